//! Company agents as an admin sets them up: a new agent with its description, a team copy of one,
//! and its access (the toolsets it holds, and the label its model is cleared for).

use super::{Agent, AgentId, OrgError, PersonId, RoleId, TeamId};
use crate::kernel::DataLabel;
use crate::kernel::{Actor, StoreError};
use crate::org::NewAgent;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// The template of an agent a person sets up by hand rather than from a bundled pack.
pub const HAND_MADE: &str = "hand-made";

/// The longest description an agent may carry, in characters.
pub const DESCRIPTION_MAX: usize = 1_000;

/// A description as typed: trimmed and bounded; it may be empty.
pub fn parse_description(s: &str) -> Result<String, OrgError> {
    let d = s.trim();
    if d.chars().count() > DESCRIPTION_MAX {
        return Err(OrgError::Invalid(format!("An agent's description can be at most {DESCRIPTION_MAX} characters")));
    }
    Ok(d.to_string())
}

/// The name of an agent's copy for a team: "Sales Assistant (Sales East)".
pub fn team_copy_name(agent: &str, team: &str) -> String {
    format!("{agent} ({team})")
}

/// The stored name of a private agent: "Inbox Assistant (Alice Chen)".
pub fn private_agent_name(name: &str, owner: &str) -> String {
    format!("{name} ({owner})")
}

/// Why a private agent holds no toolsets: a company connector's reads would be kept as the
/// person's cards, which shared agents load.
pub const PRIVATE_HOLDS_NO_TOOLSETS: &str =
    "A private agent holds no company toolsets: what it reads would not stay with your private agents";

/// What a clearance lets through, in the words the agent's page shows next to it.
pub fn clearance_meaning(label: DataLabel) -> String {
    format!("this agent's model may be given cards labelled up to {}", label.as_str())
}

/// A new company agent, as the admin's form gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentForm {
    pub name: String,
    pub role: Option<RoleId>,
    pub owner: PersonId,
    pub description: String,
}

/// The storage of what admins and agents' managers change about agents. Every write is audited
/// in its own transaction.
#[async_trait]
pub trait AgentAdminStore: Send + Sync {
    /// A new agent with its description; `Duplicate` when the name is taken.
    async fn add_agent(&self, agent: &NewAgent, description: &str, actor: Actor) -> Result<Agent, StoreError>;
    /// A new private agent of `agent.owner`, as `add_agent` makes a company one.
    async fn add_private_agent(&self, agent: &NewAgent, description: &str, actor: Actor) -> Result<Agent, StoreError>;
    /// The private agents `owner` made, by name. The directory never lists them.
    async fn private_agents(&self, owner: PersonId) -> Result<Vec<Agent>, StoreError>;
    /// The copy of `source` for `team`, if there is one.
    async fn team_copy_of(&self, source: AgentId, team: TeamId) -> Result<Option<Agent>, StoreError>;
    /// Copies `source` for `team` under `name`, in one transaction: its template, role, owner,
    /// description, toolsets and clearance. `Duplicate` when the name is taken or a copy of
    /// `source` for `team` already exists; `NotFound` when `source` is gone.
    async fn copy_agent(&self, source: AgentId, team: TeamId, name: &str, actor: Actor) -> Result<Agent, StoreError>;
    /// Replaces the toolsets an agent holds, leaving its clearance as it is.
    async fn set_agent_toolsets(&self, agent: AgentId, toolsets: &[i64], actor: Actor) -> Result<(), StoreError>;
    /// Sets the label an agent's model is cleared for, leaving its toolsets as they are.
    async fn set_agent_clearance(&self, agent: AgentId, clearance: DataLabel, actor: Actor) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_trimmed_and_bounded() {
        assert_eq!(parse_description("  Answers sales questions. ").unwrap(), "Answers sales questions.");
        assert_eq!(parse_description("").unwrap(), "");
        let long = "x".repeat(DESCRIPTION_MAX + 1);
        assert_eq!(
            parse_description(&long).unwrap_err().to_string(),
            "An agent's description can be at most 1000 characters"
        );
    }

    #[test]
    fn copies_are_named_for_their_team_and_clearance_is_said_in_words() {
        assert_eq!(team_copy_name("Sales Assistant", "Sales East"), "Sales Assistant (Sales East)");
        assert_eq!(
            clearance_meaning(DataLabel::Internal),
            "this agent's model may be given cards labelled up to internal"
        );
        assert_eq!(
            clearance_meaning(DataLabel::Personal),
            "this agent's model may be given cards labelled up to personal"
        );
    }
}
