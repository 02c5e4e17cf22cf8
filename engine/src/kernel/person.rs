//! Who a person is, as every area names them: the actor of a change, the owner of a memory.

use super::ids::{PersonId, RoleId, TeamId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub id: PersonId,
    pub name: String,
    pub email: String,
    pub is_admin: bool,
    pub main_team: Option<TeamId>,
    /// A department role given by an admin; without it the person takes their main team's role.
    pub role_override: Option<RoleId>,
    /// Their manager, set by an admin; who's who names them.
    #[serde(default)]
    pub manager: Option<PersonId>,
    /// When they left the company: they can no longer sign in, and history still names them.
    #[serde(default)]
    pub left_at: Option<DateTime<Utc>>,
}
