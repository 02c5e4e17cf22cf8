//! Teams as admins shape them (a new team, its name, role and lead), people moved between main
//! teams, and who manages whom. Each store method checks what it depends on inside its own
//! transaction, so two changes racing each other cannot leave the organisation in a state
//! that either alone would have refused.

use super::{Person, PersonId, Role, RoleId, Team, TeamId};
use crate::kernel::{Actor, StoreError};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A person as a team's page names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub id: PersonId,
    pub name: String,
}

/// A team's page: who leads it, how many are in it and one page of them, and what the viewer may
/// change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamView {
    pub team: Team,
    pub role_name: Option<String>,
    /// The lead, while they have not left.
    pub lead: Option<Member>,
    /// The lead's email, as an admin's Lead field offers it; `None` for anyone else.
    pub lead_email: Option<String>,
    /// How many current people have this as their main team.
    pub member_count: u32,
    /// One page of them, by name ([`PEOPLE_PAGE_SIZE`](super::listing::PEOPLE_PAGE_SIZE) a page).
    pub members: Vec<Member>,
    /// The page shown, from 1, and whether there is a next one.
    pub page: u32,
    pub has_next: bool,
    /// Its lead or an admin.
    pub may_rename: bool,
    /// Admins: its role and its lead (chosen by a search, never from a list of everyone).
    pub may_manage: bool,
    /// What an admin chooses a role from: every role. Empty for anyone else.
    pub roles: Vec<Role>,
}

/// Its lead (while they have not left) or an admin may rename a team.
pub fn may_rename(viewer: &Person, team: &Team) -> bool {
    viewer.is_admin || (team.lead == Some(viewer.id) && viewer.left_at.is_none())
}

/// What a team change sets; `None` leaves that part as it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TeamChange {
    pub name: Option<String>,
    /// `Some(None)` takes the team out of any role.
    pub role: Option<Option<RoleId>>,
    /// `Some(None)` leaves the team without a lead.
    pub lead: Option<Option<PersonId>>,
    /// The change is made as this person, the team's lead, not as an admin: it is refused with
    /// [`TeamStoreError::NotLead`] unless they still lead the team when it is written.
    pub as_lead: Option<PersonId>,
}

/// Why a team store refused a change, decided inside the change's transaction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TeamStoreError {
    #[error("no such team")]
    NoSuchTeam,
    #[error("no such person")]
    NoSuchPerson,
    #[error("no such role")]
    NoSuchRole,
    /// The person named (as a lead, a manager, or the one moved) has left.
    #[error("{0} has left")]
    HasLeft(String),
    /// Another team has this name, in some case; carries that team's name as it is spelled.
    #[error("the name is taken by {0}")]
    NameTaken(String),
    /// `TeamChange::as_lead` no longer leads the team.
    #[error("not the team's lead")]
    NotLead,
    /// The manager chosen is the person, or someone who reports to them, however indirectly.
    #[error("that would make a circle of managers")]
    ManagerCircle,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[async_trait]
pub trait TeamStore: Send + Sync {
    /// A new team, audited `team.create`; refused with `NameTaken` when another team's name
    /// differs from this one only in case.
    async fn add_team(&self, name: &str, role: Option<RoleId>, actor: Actor) -> Result<Team, TeamStoreError>;
    /// Changes a team's name, role and lead together, one audit row for each part that changed
    /// (`team.rename`, `team.role`, `team.lead`). The lead must not have left.
    async fn change_team(&self, team: TeamId, change: &TeamChange, actor: Actor) -> Result<Team, TeamStoreError>;
    /// Moves a person who has not left to another main team, audited `person.team`. Returns the
    /// person as they were before, so the caller can tell a move from a stay.
    async fn move_person(&self, person: PersonId, team: TeamId, actor: Actor) -> Result<Person, TeamStoreError>;
    /// Sets (or clears) a person's manager, audited `person.manager`. The manager must not have
    /// left, and the chain above them must not reach the person: checked while every other
    /// manager change waits, so two changes cannot close a circle between them.
    async fn set_manager(
        &self,
        person: PersonId,
        manager: Option<PersonId>,
        actor: Actor,
    ) -> Result<(), TeamStoreError>;
}

/// Whether `name` is another team's, ignoring case: the same rule on both backends, since SQLite's
/// `lower()` folds ASCII only. Returns that team's name as spelled.
pub fn name_taken<'a>(
    name: &str,
    except: Option<TeamId>,
    teams: impl IntoIterator<Item = (TeamId, &'a str)>,
) -> Option<String> {
    let wanted = name.to_lowercase();
    teams
        .into_iter()
        .find(|(id, other)| Some(*id) != except && other.to_lowercase() == wanted)
        .map(|(_, other)| other.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_taken_whatever_their_case_but_not_by_the_team_itself() {
        let teams = [(TeamId(1), "Support Desk"), (TeamId(2), "Équipe")];
        assert_eq!(name_taken("support desk", None, teams), Some("Support Desk".to_string()));
        assert_eq!(name_taken("ÉQUIPE", None, teams), Some("Équipe".to_string()));
        assert_eq!(name_taken("SUPPORT DESK", Some(TeamId(1)), teams), None);
        assert_eq!(name_taken("Platform", None, teams), None);
    }
}
