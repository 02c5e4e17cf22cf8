//! Teams, leads and managers: an admin makes a team, names it, puts it in a role and chooses its
//! lead; a team's lead may rename it too. An admin moves people between main teams and sets who
//! manages whom. The store checks, inside each change's transaction, what it rests on (the lead
//! has not left, the name is free, no circle of managers); here are the permissions and words.

use super::{actor_of, Teams};
use crate::org::listing::{offset_of, PEOPLE_PAGE_SIZE};
use crate::org::names::parse_display_name;
use crate::org::teams::{may_rename, Member, TeamChange, TeamStoreError, TeamView};
use crate::org::{OrgError, Person, PersonId, RoleId, Team, TeamId};

/// What a team's page or the API asks to change; `None` leaves that part as it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TeamEdit {
    pub name: Option<String>,
    pub role: Option<Option<RoleId>>,
    pub lead: Option<Option<PersonId>>,
}

/// The store's refusal in words, for a change to `team` (when there is one).
fn refusal(e: TeamStoreError, team: Option<&Team>) -> OrgError {
    match e {
        TeamStoreError::NoSuchTeam => OrgError::NotFound("There is no such team".to_string()),
        TeamStoreError::NoSuchPerson => OrgError::NotFound("There is no such person".to_string()),
        TeamStoreError::NoSuchRole => OrgError::NotFound("There is no such role".to_string()),
        TeamStoreError::HasLeft(name) => OrgError::Invalid(format!("{name} has left and cannot lead a team")),
        TeamStoreError::NameTaken(other) => OrgError::Duplicate(format!("There is already a team called {other}")),
        TeamStoreError::NotLead => not_lead(team.map(|t| t.name.as_str()).unwrap_or("this team")),
        TeamStoreError::ManagerCircle => OrgError::Invalid("That would make a circle of managers".to_string()),
        TeamStoreError::Store(e) => e.into(),
    }
}

fn not_lead(team: &str) -> OrgError {
    OrgError::NotAllowed(format!("Only {team}'s lead or an admin can change this team"))
}

impl Teams {
    async fn known_team(&self, team: TeamId) -> Result<Team, OrgError> {
        self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))
    }

    /// A team's page, for anyone signed in: its lead, how many are in it, and page `page` (from 1)
    /// of its members by name.
    pub async fn team_view(&self, viewer: &Person, team: TeamId, page: u32) -> Result<TeamView, OrgError> {
        // The team and its role's name come from the outline, one read that admins need anyway
        // for the roles they choose from: a page view is a few statements fewer, each a round
        // trip to the database (on PostgreSQL, the page's cost).
        let outline = self.store.outline().await?;
        let t = outline.team(team).cloned().ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        let page = page.max(1);
        let member = |p: &Person| Member { id: p.id, name: p.name.clone() };
        let mut members =
            self.store.team_members(team, offset_of(page, PEOPLE_PAGE_SIZE), PEOPLE_PAGE_SIZE + 1).await?;
        let has_next = members.len() > PEOPLE_PAGE_SIZE as usize;
        members.truncate(PEOPLE_PAGE_SIZE as usize);
        let member_count =
            self.store.team_sizes().await?.iter().find(|s| s.team == Some(team)).map(|s| s.people).unwrap_or(0);
        let may_manage = viewer.is_admin;
        let lead = match t.lead {
            Some(l) => self.store.person(l).await?.filter(|p| p.left_at.is_none()),
            None => None,
        };
        let role_name = t.role.and_then(|r| outline.role(r)).map(|r| r.name.clone());
        Ok(TeamView {
            role_name,
            lead_email: lead.as_ref().filter(|_| may_manage).map(|p| p.email.clone()),
            lead: lead.as_ref().map(member),
            member_count,
            members: members.iter().map(member).collect(),
            page,
            has_next,
            may_rename: may_rename(viewer, &t),
            may_manage,
            roles: if may_manage { outline.roles } else { Vec::new() },
            team: t,
        })
    }

    /// "New team": an admin names it and may put it in a role.
    pub async fn create_team(&self, actor: &Person, name: &str, role: Option<RoleId>) -> Result<Team, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add a team".to_string()));
        }
        let name = parse_display_name(name, "A team")?;
        self.store.add_team(&name, role, actor_of(&*self.clock, actor)).await.map_err(|e| refusal(e, None))
    }

    /// Changes a team's name, role and lead at once, or nothing if any part is refused. Its lead
    /// may rename it; only an admin puts it in a role or chooses its lead.
    pub async fn change_team(&self, actor: &Person, team: TeamId, edit: &TeamEdit) -> Result<Team, OrgError> {
        let t = self.known_team(team).await?;
        if !actor.is_admin {
            if edit.role.is_some() {
                return Err(OrgError::NotAllowed("Only an admin can put a team in a role".to_string()));
            }
            if edit.lead.is_some() {
                return Err(OrgError::NotAllowed("Only an admin can choose a team's lead".to_string()));
            }
            if !may_rename(actor, &t) {
                return Err(not_lead(&t.name));
            }
        }
        if edit.name.is_none() && edit.role.is_none() && edit.lead.is_none() {
            return Err(OrgError::Invalid("Say what to change: the team's name, role or lead".to_string()));
        }
        let name = edit.name.as_deref().map(|n| parse_display_name(n, "A team")).transpose()?;
        let change = TeamChange {
            name,
            role: edit.role,
            lead: edit.lead,
            // An admin who also leads the team changes it as an admin.
            as_lead: (!actor.is_admin).then_some(actor.id),
        };
        self.store.change_team(team, &change, actor_of(&*self.clock, actor)).await.map_err(|e| refusal(e, Some(&t)))
    }

    /// "Rename", on the team's page: its lead or an admin.
    pub async fn rename_team(&self, actor: &Person, team: TeamId, name: &str) -> Result<Team, OrgError> {
        self.change_team(actor, team, &TeamEdit { name: Some(name.to_string()), ..TeamEdit::default() }).await
    }

    /// Admins put a team in a role, under Teams and on the team's page.
    pub async fn set_team_role(&self, actor: &Person, team: TeamId, role: Option<RoleId>) -> Result<(), OrgError> {
        self.change_team(actor, team, &TeamEdit { role: Some(role), ..TeamEdit::default() }).await.map(|_| ())
    }

    /// Admins choose a team's lead, a person who has not left, or leave it without one.
    pub async fn set_team_lead(&self, actor: &Person, team: TeamId, lead: Option<PersonId>) -> Result<(), OrgError> {
        self.change_team(actor, team, &TeamEdit { lead: Some(lead), ..TeamEdit::default() }).await.map(|_| ())
    }

    /// An admin moves someone to another main team. Their department role follows the new team
    /// unless they have their own; the sentence returned says which.
    pub async fn move_person(&self, actor: &Person, person: PersonId, team: TeamId) -> Result<String, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can move people between teams".to_string()));
        }
        let before =
            self.store.move_person(person, team, actor_of(&*self.clock, actor)).await.map_err(|e| match e {
                TeamStoreError::HasLeft(name) => OrgError::Invalid(format!("{name} has left and cannot be moved")),
                other => refusal(other, None),
            })?;
        let t = self.known_team(team).await?;
        if before.main_team == Some(team) {
            return Ok(format!("{} is already in {}", before.name, t.name));
        }
        let role_name = |id: RoleId| async move { self.store.role_by_id(id).await.map(|r| r.map(|r| r.name)) };
        let role = match (before.role_override, t.role) {
            (Some(own), _) => match role_name(own).await? {
                Some(name) => format!("they keep their own department role, {name}"),
                None => "they keep their own department role".to_string(),
            },
            (None, Some(from_team)) => match role_name(from_team).await? {
                Some(name) => format!("their department role is now {name}, from their team"),
                None => "their department role now comes from their team".to_string(),
            },
            (None, None) => format!("{} has no department role, so neither have they", t.name),
        };
        Ok(format!("Moved {} to {}: {role}", before.name, t.name))
    }

    /// An admin sets (or clears) a person's manager: a current person, never themselves, and
    /// never so that managers go round in a circle.
    pub async fn set_manager(&self, by: &Person, person: PersonId, manager: Option<PersonId>) -> Result<(), OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can set a person's manager".to_string()));
        }
        if manager == Some(person) {
            return Err(OrgError::Invalid("A person cannot be their own manager".to_string()));
        }
        self.store.set_manager(person, manager, actor_of(&*self.clock, by)).await.map_err(|e| match e {
            // Someone who left manages nobody: to this rule they are no longer there.
            TeamStoreError::HasLeft(_) => OrgError::NotFound("There is no such person".to_string()),
            other => refusal(other, None),
        })
    }
}

/// The teams' rules, tried against the in-memory directory: no database.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::org::fake::{person, role, FakeOrg};
    use std::sync::Arc;

    const ADMIN: PersonId = PersonId(1);
    const LEAD: PersonId = PersonId(2);
    const MEMBER: PersonId = PersonId(3);

    /// Support (role Support) led by Lena, with Max in it; Ada is the admin.
    fn org() -> (Teams, Arc<FakeOrg>) {
        let fake = Arc::new(FakeOrg::with(
            vec![person(1, "Ada", true, None), person(2, "Lena", false, Some(1)), person(3, "Max", false, Some(1))],
            vec![Team { id: TeamId(1), name: "Support".into(), lead: Some(LEAD), role: Some(RoleId(1)) }],
            vec![role(1, "Support"), role(2, "Sales")],
        ));
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        (Teams { store: fake.clone(), clock }, fake)
    }

    fn who(fake: &FakeOrg, id: PersonId) -> Person {
        fake.person_now(id).expect("in the directory")
    }

    #[tokio::test]
    async fn a_lead_may_rename_their_team_but_not_choose_its_role_or_lead() {
        let (teams, fake) = org();
        let lead = who(&fake, LEAD);
        let renamed = teams.rename_team(&lead, TeamId(1), "Customer Support").await.expect("the lead renames");
        assert_eq!(renamed.name, "Customer Support");

        let role = teams.set_team_role(&lead, TeamId(1), Some(RoleId(2))).await.unwrap_err();
        assert_eq!(role, OrgError::NotAllowed("Only an admin can put a team in a role".into()));
        let lead_change = teams.set_team_lead(&lead, TeamId(1), Some(MEMBER)).await.unwrap_err();
        assert_eq!(lead_change, OrgError::NotAllowed("Only an admin can choose a team's lead".into()));
        let team = fake.team_now(TeamId(1)).expect("the team");
        assert_eq!((team.role, team.lead), (Some(RoleId(1)), Some(LEAD)), "nothing refused was written");
    }

    #[tokio::test]
    async fn someone_who_does_not_lead_the_team_may_not_rename_it_and_nothing_changes() {
        let (teams, fake) = org();
        let member = who(&fake, MEMBER);
        let refused = teams.rename_team(&member, TeamId(1), "Mine now").await.unwrap_err();
        assert_eq!(refused, OrgError::NotAllowed("Only Support's lead or an admin can change this team".into()));
        assert_eq!(fake.team_now(TeamId(1)).expect("the team").name, "Support");
        assert!(fake.audit.lock().expect("the audit").is_empty(), "a refusal writes no audit row");
    }

    #[tokio::test]
    async fn a_team_name_taken_in_another_case_is_refused_with_the_name_as_spelled() {
        let (teams, fake) = org();
        let admin = who(&fake, ADMIN);
        let refused = teams.create_team(&admin, "SUPPORT", None).await.unwrap_err();
        assert_eq!(refused, OrgError::Duplicate("There is already a team called Support".into()));
        let empty = teams.change_team(&admin, TeamId(1), &TeamEdit::default()).await.unwrap_err();
        assert_eq!(empty, OrgError::Invalid("Say what to change: the team's name, role or lead".into()));
    }

    #[tokio::test]
    async fn a_move_says_whether_the_department_role_follows_the_team() {
        let (teams, fake) = org();
        let admin = who(&fake, ADMIN);
        let sales = teams.create_team(&admin, "Sales", Some(RoleId(2))).await.expect("a new team");
        let moved = teams.move_person(&admin, MEMBER, sales.id).await.expect("the move");
        assert_eq!(moved, "Moved Max to Sales: their department role is now Sales, from their team");
        assert_eq!(who(&fake, MEMBER).main_team, Some(sales.id));
        let again = teams.move_person(&admin, MEMBER, sales.id).await.expect("a stay");
        assert_eq!(again, "Max is already in Sales");

        let by_member = teams.move_person(&who(&fake, MEMBER), LEAD, sales.id).await.unwrap_err();
        assert_eq!(by_member, OrgError::NotAllowed("Only an admin can move people between teams".into()));
        assert_eq!(who(&fake, LEAD).main_team, Some(TeamId(1)));
    }

    #[tokio::test]
    async fn managers_never_go_round_in_a_circle_and_no_one_manages_themselves() {
        let (teams, fake) = org();
        let admin = who(&fake, ADMIN);
        teams.set_manager(&admin, MEMBER, Some(LEAD)).await.expect("Lena manages Max");
        let circle = teams.set_manager(&admin, LEAD, Some(MEMBER)).await.unwrap_err();
        assert_eq!(circle, OrgError::Invalid("That would make a circle of managers".into()));
        let own = teams.set_manager(&admin, LEAD, Some(LEAD)).await.unwrap_err();
        assert_eq!(own, OrgError::Invalid("A person cannot be their own manager".into()));
        assert_eq!(who(&fake, LEAD).manager, None);
    }
}
