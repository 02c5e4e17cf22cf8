//! Teams, leads and managers: an admin makes a team, names it, puts it in a role and chooses its
//! lead; a team's lead may rename it too. An admin moves people between main teams and sets who
//! manages whom. The store checks, inside each change's transaction, what it rests on (the lead
//! has not left, the name is free, no circle of managers); here are the permissions and words.

use super::OrgService;
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

impl OrgService {
    async fn known_team(&self, team: TeamId) -> Result<Team, OrgError> {
        self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))
    }

    /// A team's page, for anyone signed in.
    pub async fn team_view(&self, viewer: &Person, team: TeamId) -> Result<TeamView, OrgError> {
        let dir = self.store.directory().await?;
        let t = dir.team(team).cloned().ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        let member = |p: &Person| Member { id: p.id, name: p.name.clone() };
        let current = || dir.people.iter().filter(|p| p.left_at.is_none());
        let may_manage = viewer.is_admin;
        Ok(TeamView {
            role_name: t.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()),
            lead: t.lead.and_then(|l| current().find(|p| p.id == l)).map(member),
            members: current().filter(|p| p.main_team == Some(team)).map(member).collect(),
            may_rename: may_rename(viewer, &t),
            may_manage,
            roles: if may_manage { dir.roles.clone() } else { Vec::new() },
            people: if may_manage { current().map(member).collect() } else { Vec::new() },
            team: t,
        })
    }

    /// "New team": an admin names it and may put it in a role.
    pub async fn create_team(&self, actor: &Person, name: &str, role: Option<RoleId>) -> Result<Team, OrgError> {
        if !actor.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add a team".to_string()));
        }
        let name = parse_display_name(name, "A team")?;
        self.store.add_team(&name, role, self.actor(actor)).await.map_err(|e| refusal(e, None))
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
        self.store.change_team(team, &change, self.actor(actor)).await.map_err(|e| refusal(e, Some(&t)))
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
        let before = self.store.move_person(person, team, self.actor(actor)).await.map_err(|e| match e {
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
        self.store.set_manager(person, manager, self.actor(by)).await.map_err(|e| match e {
            // Someone who left manages nobody: to this rule they are no longer there.
            TeamStoreError::HasLeft(_) => OrgError::NotFound("There is no such person".to_string()),
            other => refusal(other, None),
        })
    }
}
