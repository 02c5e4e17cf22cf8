//! An in-memory directory for the engine's own tests: the organisation's store held in a
//! `Directory`, so a use case's rules can be tried without a database. The store contract suite
//! proves the real backends; this fake only has to be plain. What a test does not need answers an
//! error that says so, never a made-up value.

use super::listing::{fold, Outline, PrefixSearch, TeamSize};
use super::store::{Around, OrgListing, OrgStore};
use super::teams::{TeamChange, TeamStore, TeamStoreError};
use super::{
    Agent, AgentId, AuditEntry, Company, Departure, Directory, LocaleName, NewAgent, NewPerson, Person, PersonId, Role,
    RoleId, RoleSlug, Team, TeamId,
};
use crate::kernel::{Actor, StoreError};
use async_trait::async_trait;
use std::sync::Mutex;

/// The organisation's store, in memory: a directory and the audit rows written to it.
#[derive(Default)]
pub struct FakeOrg {
    pub company: Mutex<Option<Company>>,
    pub dir: Mutex<Directory>,
    pub audit: Mutex<Vec<AuditEntry>>,
}

fn not_held(what: &str) -> StoreError {
    StoreError::Backend(format!("the in-memory directory does not hold {what}"))
}

impl FakeOrg {
    /// A directory of these people, teams and roles.
    pub fn with(people: Vec<Person>, teams: Vec<Team>, roles: Vec<Role>) -> Self {
        let dir = Mutex::new(Directory { people, teams, roles, agents: vec![] });
        Self { company: Mutex::default(), dir, audit: Mutex::default() }
    }

    fn read<T>(&self, f: impl FnOnce(&Directory) -> T) -> T {
        f(&self.dir.lock().expect("the fake's lock"))
    }

    fn write<T>(&self, f: impl FnOnce(&mut Directory) -> T) -> T {
        f(&mut self.dir.lock().expect("the fake's lock"))
    }

    fn audited(&self, actor: Actor, action: &str, subject: String) {
        let entry = AuditEntry { at: actor.at, actor: actor.person, action: action.into(), subject, detail: "".into() };
        self.audit.lock().expect("the fake's lock").push(entry);
    }

    /// A person as the directory holds them now.
    pub fn person_now(&self, id: PersonId) -> Option<Person> {
        self.read(|d| d.people.iter().find(|p| p.id == id).cloned())
    }

    /// A team as the directory holds it now.
    pub fn team_now(&self, id: TeamId) -> Option<Team> {
        self.read(|d| d.team(id).cloned())
    }
}

/// People by name (by bytes, as the stores order them), then id.
fn by_name<'a>(people: impl Iterator<Item = &'a Person>) -> Vec<Person> {
    let mut out: Vec<Person> = people.cloned().collect();
    out.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()).then(a.id.cmp(&b.id)));
    out
}

/// What a search considers, as the stores decide it: of each way it matches (the folded name, the
/// email, and, when `by_team`, the main team's name), the first `search.considers` in that way's
/// order; `current` keeps only those who have not left. Each way's people, in its order.
fn ways<'a>(d: &'a Directory, search: &PrefixSearch, current: bool, by_team: bool) -> [Vec<&'a Person>; 3] {
    let pool = || d.people.iter().filter(move |p| !current || p.left_at.is_none());
    let first = |mut found: Vec<&'a Person>, order: &dyn Fn(&Person, &Person) -> std::cmp::Ordering| {
        found.sort_by(|a, b| order(a, b));
        found.truncate(search.considers as usize);
        found
    };
    let named = first(pool().filter(|p| search.matches(&p.name)).collect(), &|a, b| {
        (fold(&a.name), a.name.as_bytes(), a.id).cmp(&(fold(&b.name), b.name.as_bytes(), b.id))
    });
    let mailed = first(pool().filter(|p| search.matches(&p.email)).collect(), &|a, b| {
        (a.email.as_bytes(), a.id).cmp(&(b.email.as_bytes(), b.id))
    });
    let teamed = if by_team {
        let team_matches = |p: &Person| p.main_team.and_then(|t| d.team(t)).is_some_and(|t| search.matches(&t.name));
        first(pool().filter(|p| team_matches(p)).collect(), &|a, b| {
            (a.main_team, a.name.as_bytes(), a.id).cmp(&(b.main_team, b.name.as_bytes(), b.id))
        })
    } else {
        Vec::new()
    };
    [named, mailed, teamed]
}

/// The people a search considers, each once, by name.
fn considered(d: &Directory, search: &PrefixSearch, current: bool, by_team: bool) -> Vec<Person> {
    let mut seen = std::collections::HashSet::new();
    by_name(ways(d, search, current, by_team).into_iter().flatten().filter(|p| seen.insert(p.id)))
}

/// A person for a test's directory.
pub fn person(id: i64, name: &str, admin: bool, team: Option<i64>) -> Person {
    Person {
        id: PersonId(id),
        name: name.into(),
        email: format!("{}@example.com", name.to_lowercase()),
        is_admin: admin,
        main_team: team.map(TeamId),
        role_override: None,
        manager: None,
        left_at: None,
    }
}

/// A hand-made agent for a test's directory, owned by `owner`.
pub fn agent(id: i64, name: &str, owner: i64, private: bool) -> Agent {
    Agent {
        id: AgentId(id),
        name: name.into(),
        template: "hand-made".into(),
        role: None,
        owner: PersonId(owner),
        team_copy: None,
        description: String::new(),
        copy_of: None,
        private,
    }
}

/// A role for a test's directory.
pub fn role(id: i64, name: &str) -> Role {
    Role {
        id: RoleId(id),
        slug: RoleSlug::from_name(name).expect("a role's name makes a slug"),
        name: name.into(),
        company_core_limit: crate::org::COMPANY_CORE_LIMIT,
    }
}

#[async_trait]
impl OrgStore for FakeOrg {
    async fn company(&self) -> Result<Option<Company>, StoreError> {
        Ok(self.company.lock().expect("the fake's lock").clone())
    }
    async fn create_company(&self, _: &Company, _: Actor) -> Result<(), StoreError> {
        Err(not_held("a company"))
    }
    async fn set_company_locale(&self, locale: &LocaleName, _: Actor) -> Result<(), StoreError> {
        let mut company = self.company.lock().expect("the fake's lock");
        match company.as_mut() {
            Some(c) => {
                c.locale = locale.clone();
                Ok(())
            }
            None => Err(StoreError::NotFound("company".into())),
        }
    }
    async fn directory(&self) -> Result<Directory, StoreError> {
        Ok(self.read(Clone::clone))
    }
    async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
        Ok(self.person_now(id))
    }
    async fn credentials(&self, _: &str) -> Result<Option<(Person, String)>, StoreError> {
        Err(not_held("passwords"))
    }
    async fn role(&self, slug: &RoleSlug) -> Result<Option<Role>, StoreError> {
        Ok(self.read(|d| d.roles.iter().find(|r| &r.slug == slug).cloned()))
    }
    async fn role_by_id(&self, id: RoleId) -> Result<Option<Role>, StoreError> {
        Ok(self.read(|d| d.role(id).cloned()))
    }
    async fn team(&self, id: TeamId) -> Result<Option<Team>, StoreError> {
        Ok(self.team_now(id))
    }
    async fn team_with_role(&self, id: TeamId) -> Result<Option<(Team, Option<Role>)>, StoreError> {
        Ok(self.read(|d| d.team(id).map(|t| (t.clone(), t.role.and_then(|r| d.role(r).cloned())))))
    }
    async fn agent(&self, id: AgentId) -> Result<Option<Agent>, StoreError> {
        Ok(self.read(|d| d.agents.iter().find(|a| a.id == id).cloned()))
    }
    async fn create_role(&self, slug: &RoleSlug, name: &str, limit: u32, actor: Actor) -> Result<Role, StoreError> {
        let role = self.write(|d| {
            if d.roles.iter().any(|r| &r.slug == slug) {
                return Err(StoreError::Duplicate(name.into()));
            }
            let id = RoleId(d.roles.len() as i64 + 1);
            d.roles.push(Role { id, slug: slug.clone(), name: name.into(), company_core_limit: limit });
            Ok(d.roles.last().cloned().expect("just pushed"))
        })?;
        self.audited(actor, "role.create", role.name.clone());
        Ok(role)
    }
    async fn create_team(&self, _: &str, _: Option<RoleId>, _: Actor) -> Result<Team, StoreError> {
        Err(not_held("team creation outside TeamStore"))
    }
    async fn create_person(&self, _: &NewPerson, _: Actor) -> Result<Person, StoreError> {
        Err(not_held("new people"))
    }
    async fn create_agent(&self, _: &NewAgent, _: Actor) -> Result<Agent, StoreError> {
        Err(not_held("new agents"))
    }
    async fn set_team_role(&self, _: TeamId, _: Option<RoleId>, _: Actor) -> Result<(), StoreError> {
        Err(not_held("team roles outside TeamStore"))
    }
    async fn set_team_lead(&self, _: TeamId, _: Option<PersonId>, _: Actor) -> Result<(), StoreError> {
        Err(not_held("team leads outside TeamStore"))
    }
    async fn set_person_role(&self, person: PersonId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        self.write(|d| match d.people.iter_mut().find(|p| p.id == person) {
            Some(p) => {
                p.role_override = role;
                Ok(())
            }
            None => Err(StoreError::NotFound(format!("person {person}"))),
        })?;
        self.audited(actor, "person.role", person.to_string());
        Ok(())
    }
    async fn around(&self, _: PersonId, _: u32) -> Result<Around, StoreError> {
        Err(not_held("who's who"))
    }
    async fn set_agent_role(&self, _: AgentId, _: Option<RoleId>, _: Actor) -> Result<(), StoreError> {
        Err(not_held("agents' roles"))
    }
    async fn set_company_core_limit(&self, role: RoleId, limit: u32, actor: Actor) -> Result<(), StoreError> {
        self.write(|d| match d.roles.iter_mut().find(|r| r.id == role) {
            Some(r) => {
                r.company_core_limit = limit;
                Ok(())
            }
            None => Err(StoreError::NotFound(format!("role {role}"))),
        })?;
        self.audited(actor, "role.limit", role.to_string());
        Ok(())
    }
    async fn set_password_hash(&self, _: PersonId, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(not_held("passwords"))
    }
    async fn mark_left(&self, _: PersonId, _: Actor) -> Result<Departure, StoreError> {
        Err(not_held("departures"))
    }
    async fn audit_log(&self, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let log = self.audit.lock().expect("the fake's lock");
        Ok(log.iter().rev().take(limit as usize).cloned().collect())
    }
}

#[async_trait]
impl OrgListing for FakeOrg {
    async fn outline(&self) -> Result<Outline, StoreError> {
        Ok(self.read(|d| Outline {
            teams: d.teams.clone(),
            roles: d.roles.clone(),
            agents: d.agents.iter().filter(|a| !a.private).cloned().collect(),
        }))
    }
    async fn people_page(
        &self,
        search: Option<&PrefixSearch>,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| {
            match search {
                None => by_name(d.people.iter()),
                Some(s) => considered(d, s, false, true),
            }
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .collect()
        }))
    }
    async fn search_overflows(&self, search: &PrefixSearch) -> Result<bool, StoreError> {
        let one_more = PrefixSearch { considers: search.considers.saturating_add(1), ..search.clone() };
        Ok(self.read(|d| ways(d, &one_more, false, true).iter().any(|way| way.len() > search.considers as usize)))
    }
    async fn pick_people(&self, search: &PrefixSearch, limit: u32) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| considered(d, search, true, false).into_iter().take(limit as usize).collect()))
    }
    async fn people_named(&self, name: &str, limit: u32) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| {
            d.people
                .iter()
                .filter(|p| p.left_at.is_none() && fold(&p.name) == fold(name))
                .take(limit as usize)
                .cloned()
                .collect()
        }))
    }
    async fn people_by_ids(&self, ids: &[PersonId]) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| by_name(d.people.iter().filter(|p| ids.contains(&p.id)))))
    }
    async fn team_members(&self, team: TeamId, offset: u32, limit: u32) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| {
            by_name(d.people.iter().filter(|p| p.left_at.is_none() && p.main_team == Some(team)))
                .into_iter()
                .skip(offset as usize)
                .take(limit as usize)
                .collect()
        }))
    }
    async fn team_sizes(&self) -> Result<Vec<TeamSize>, StoreError> {
        Ok(self.read(|d| {
            let mut sizes: Vec<TeamSize> = Vec::new();
            for p in d.people.iter().filter(|p| p.left_at.is_none()) {
                match sizes.iter_mut().find(|s| s.team == p.main_team) {
                    Some(s) => s.people += 1,
                    None => sizes.push(TeamSize { team: p.main_team, people: 1 }),
                }
            }
            sizes
        }))
    }
    async fn people_by_emails(&self, emails: &[String]) -> Result<Vec<Person>, StoreError> {
        Ok(self.read(|d| {
            d.people
                .iter()
                .filter(|p| p.left_at.is_none() && emails.iter().any(|e| e.eq_ignore_ascii_case(&p.email)))
                .cloned()
                .collect()
        }))
    }
}

/// The directory beside a test's own rows: an area's fake adds its store to `rows`, and the
/// directory answers the organisation's store for it.
#[derive(Default)]
pub struct WithOrg<T> {
    pub org: FakeOrg,
    pub rows: T,
}

#[async_trait]
impl<T: Send + Sync> OrgStore for WithOrg<T> {
    async fn company(&self) -> Result<Option<Company>, StoreError> {
        self.org.company().await
    }
    async fn create_company(&self, company: &Company, actor: Actor) -> Result<(), StoreError> {
        self.org.create_company(company, actor).await
    }
    async fn set_company_locale(&self, locale: &LocaleName, actor: Actor) -> Result<(), StoreError> {
        self.org.set_company_locale(locale, actor).await
    }
    async fn directory(&self) -> Result<Directory, StoreError> {
        self.org.directory().await
    }
    async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
        self.org.person(id).await
    }
    async fn credentials(&self, email: &str) -> Result<Option<(Person, String)>, StoreError> {
        self.org.credentials(email).await
    }
    async fn role(&self, slug: &RoleSlug) -> Result<Option<Role>, StoreError> {
        self.org.role(slug).await
    }
    async fn role_by_id(&self, id: RoleId) -> Result<Option<Role>, StoreError> {
        self.org.role_by_id(id).await
    }
    async fn team(&self, id: TeamId) -> Result<Option<Team>, StoreError> {
        self.org.team(id).await
    }
    async fn team_with_role(&self, id: TeamId) -> Result<Option<(Team, Option<Role>)>, StoreError> {
        self.org.team_with_role(id).await
    }
    async fn agent(&self, id: AgentId) -> Result<Option<Agent>, StoreError> {
        self.org.agent(id).await
    }
    async fn create_role(&self, slug: &RoleSlug, name: &str, limit: u32, actor: Actor) -> Result<Role, StoreError> {
        self.org.create_role(slug, name, limit, actor).await
    }
    async fn create_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, StoreError> {
        self.org.create_team(name, role, actor).await
    }
    async fn create_person(&self, person: &NewPerson, actor: Actor) -> Result<Person, StoreError> {
        self.org.create_person(person, actor).await
    }
    async fn create_agent(&self, agent: &NewAgent, actor: Actor) -> Result<Agent, StoreError> {
        self.org.create_agent(agent, actor).await
    }
    async fn set_team_role(&self, team: TeamId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        self.org.set_team_role(team, role, actor).await
    }
    async fn set_team_lead(&self, team: TeamId, lead: Option<PersonId>, actor: Actor) -> Result<(), StoreError> {
        self.org.set_team_lead(team, lead, actor).await
    }
    async fn set_person_role(&self, person: PersonId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        self.org.set_person_role(person, role, actor).await
    }
    async fn around(&self, person: PersonId, teammates: u32) -> Result<Around, StoreError> {
        self.org.around(person, teammates).await
    }
    async fn set_agent_role(&self, agent: AgentId, role: Option<RoleId>, actor: Actor) -> Result<(), StoreError> {
        self.org.set_agent_role(agent, role, actor).await
    }
    async fn set_company_core_limit(&self, role: RoleId, limit: u32, actor: Actor) -> Result<(), StoreError> {
        self.org.set_company_core_limit(role, limit, actor).await
    }
    async fn set_password_hash(&self, person: PersonId, hash: &str, actor: Actor) -> Result<(), StoreError> {
        self.org.set_password_hash(person, hash, actor).await
    }
    async fn mark_left(&self, person: PersonId, actor: Actor) -> Result<Departure, StoreError> {
        self.org.mark_left(person, actor).await
    }
    async fn audit_log(&self, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        self.org.audit_log(limit).await
    }
}

#[async_trait]
impl<T: Send + Sync> OrgListing for WithOrg<T> {
    async fn outline(&self) -> Result<Outline, StoreError> {
        self.org.outline().await
    }
    async fn people_page(
        &self,
        search: Option<&PrefixSearch>,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<Person>, StoreError> {
        self.org.people_page(search, offset, limit).await
    }
    async fn search_overflows(&self, search: &PrefixSearch) -> Result<bool, StoreError> {
        self.org.search_overflows(search).await
    }
    async fn pick_people(&self, search: &PrefixSearch, limit: u32) -> Result<Vec<Person>, StoreError> {
        self.org.pick_people(search, limit).await
    }
    async fn people_named(&self, name: &str, limit: u32) -> Result<Vec<Person>, StoreError> {
        self.org.people_named(name, limit).await
    }
    async fn people_by_ids(&self, ids: &[PersonId]) -> Result<Vec<Person>, StoreError> {
        self.org.people_by_ids(ids).await
    }
    async fn team_members(&self, team: TeamId, offset: u32, limit: u32) -> Result<Vec<Person>, StoreError> {
        self.org.team_members(team, offset, limit).await
    }
    async fn team_sizes(&self) -> Result<Vec<TeamSize>, StoreError> {
        self.org.team_sizes().await
    }
    async fn people_by_emails(&self, emails: &[String]) -> Result<Vec<Person>, StoreError> {
        self.org.people_by_emails(emails).await
    }
}

/// The teams' writes, with the rules the real stores decide inside their transaction: a name
/// taken in any case, a lead who has left, a change as a lead who no longer leads.
#[async_trait]
impl TeamStore for FakeOrg {
    async fn add_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, TeamStoreError> {
        let team = self.write(|d| {
            if let Some(t) = d.teams.iter().find(|t| t.name.eq_ignore_ascii_case(name)) {
                return Err(TeamStoreError::NameTaken(t.name.clone()));
            }
            let team = Team { id: TeamId(d.teams.len() as i64 + 1), name: name.into(), lead: None, role };
            d.teams.push(team.clone());
            Ok(team)
        })?;
        self.audited(actor, "team.create", team.name.clone());
        Ok(team)
    }

    async fn change_team(&self, team: TeamId, change: &TeamChange, actor: Actor) -> Result<Team, TeamStoreError> {
        let changed = self.write(|d| {
            let taken = change.name.as_ref().and_then(|n| {
                d.teams.iter().find(|t| t.id != team && t.name.eq_ignore_ascii_case(n)).map(|t| t.name.clone())
            });
            let lead_left = match change.lead {
                Some(Some(l)) => match d.people.iter().find(|p| p.id == l) {
                    None => return Err(TeamStoreError::NoSuchPerson),
                    Some(p) => p.left_at.is_some().then(|| p.name.clone()),
                },
                _ => None,
            };
            let t = d.teams.iter_mut().find(|t| t.id == team).ok_or(TeamStoreError::NoSuchTeam)?;
            if change.as_lead.is_some() && t.lead != change.as_lead {
                return Err(TeamStoreError::NotLead);
            }
            if let Some(name) = taken {
                return Err(TeamStoreError::NameTaken(name));
            }
            if let Some(name) = lead_left {
                return Err(TeamStoreError::HasLeft(name));
            }
            if let Some(name) = &change.name {
                t.name = name.clone();
            }
            if let Some(role) = change.role {
                t.role = role;
            }
            if let Some(lead) = change.lead {
                t.lead = lead;
            }
            Ok(t.clone())
        })?;
        self.audited(actor, "team.change", changed.name.clone());
        Ok(changed)
    }

    async fn move_person(&self, person: PersonId, team: TeamId, actor: Actor) -> Result<Person, TeamStoreError> {
        let before = self.write(|d| {
            if d.team(team).is_none() {
                return Err(TeamStoreError::NoSuchTeam);
            }
            let p = d.people.iter_mut().find(|p| p.id == person).ok_or(TeamStoreError::NoSuchPerson)?;
            if p.left_at.is_some() {
                return Err(TeamStoreError::HasLeft(p.name.clone()));
            }
            let before = p.clone();
            p.main_team = Some(team);
            Ok(before)
        })?;
        self.audited(actor, "person.team", person.to_string());
        Ok(before)
    }

    async fn set_manager(
        &self,
        person: PersonId,
        manager: Option<PersonId>,
        actor: Actor,
    ) -> Result<(), TeamStoreError> {
        self.write(|d| {
            // Walk up from the new manager: meeting the person closes a circle.
            let mut up = manager;
            while let Some(m) = up {
                if m == person {
                    return Err(TeamStoreError::ManagerCircle);
                }
                up = d.people.iter().find(|p| p.id == m).and_then(|p| p.manager);
            }
            let p = d.people.iter_mut().find(|p| p.id == person).ok_or(TeamStoreError::NoSuchPerson)?;
            p.manager = manager;
            Ok(())
        })?;
        self.audited(actor, "person.manager", person.to_string());
        Ok(())
    }
}
