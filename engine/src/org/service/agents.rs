//! Company agents: an admin creates one; whoever manages it (its owner, or an admin) copies it for
//! a team and gives it toolsets; an admin alone sets its clearance.

use super::{actor_of, known_person, known_role, Agents};
use crate::kernel::DataLabel;
use crate::kernel::StoreError;
use crate::org::agents::{
    clearance_meaning, parse_description, private_agent_name, team_copy_name, AgentForm, HAND_MADE,
    PRIVATE_HOLDS_NO_TOOLSETS,
};
use crate::org::names::parse_display_name;
use crate::org::NewAgent;
use crate::org::{Agent, AgentId, OrgError, Person, TeamId};
use serde::{Deserialize, Serialize};

/// A toolset as an agent's page lists it: a connector, its data label and who it admits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsetChoice {
    pub id: i64,
    pub name: String,
    pub label: DataLabel,
    /// The names of the roles it admits; empty admits everyone in the company.
    pub admits: Vec<String>,
    pub held: bool,
}

/// An agent's page: the agent, what it holds, and what the viewer may change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentAccess {
    pub agent: Agent,
    pub owner_name: String,
    pub role_name: Option<String>,
    pub team_copy_name: Option<String>,
    pub copy_of_name: Option<String>,
    pub toolsets: Vec<ToolsetChoice>,
    pub clearance: DataLabel,
    /// "this agent's model may be given cards labelled up to internal".
    pub clearance_meaning: String,
    /// The viewer is its owner or an admin: they may give it toolsets and copy it.
    pub manages: bool,
    /// The viewer is an admin: they may set its clearance.
    pub is_admin: bool,
    /// How the agent works, as its owner or an admin wrote it; Draft from what exists reads it.
    #[serde(default)]
    pub playbook: String,
    /// Which lessons its runs load; empty means no limit.
    #[serde(default)]
    pub memory_scopes: Vec<crate::org::memory_scopes::MemoryScope>,
}

impl Agents {
    /// An agent the person may see: every company agent, and of private agents only their own,
    /// so another person's private agent reads as no agent at all, to admins too.
    async fn known_agent(&self, by: &Person, agent: AgentId) -> Result<Agent, OrgError> {
        match self.store.agent(agent).await? {
            Some(a) if a.visible_to(by.id) => Ok(a),
            _ => Err(OrgError::NotFound("There is no such agent".to_string())),
        }
    }

    /// "New private agent": anyone current makes an agent of their own (the inbox assistant).
    /// Only they see it and ask it; it has no department role and holds no company toolsets, so
    /// what it learns stays with their private agents.
    pub async fn create_private_agent(&self, by: &Person, name: &str, description: &str) -> Result<Agent, OrgError> {
        if by.left_at.is_some() {
            return Err(OrgError::NotAllowed("Only current people can make a private agent".to_string()));
        }
        let typed = parse_display_name(name, "A private agent")?;
        let description = parse_description(description)?;
        // Agents' names are unique company-wide; the owner's name keeps one person's choice from
        // colliding with, or revealing, another's.
        let name = private_agent_name(&typed, &by.name);
        let new =
            NewAgent { name: name.clone(), template: HAND_MADE.to_string(), role: None, owner: by.id, team_copy: None };
        self.store.add_private_agent(&new, &description, actor_of(&*self.clock, by)).await.map_err(|e| match e {
            StoreError::Duplicate(_) => OrgError::Duplicate(format!("You already have a private agent called {typed}")),
            other => other.into(),
        })
    }

    /// The person's own private agents, by name.
    pub async fn private_agents(&self, by: &Person) -> Result<Vec<Agent>, OrgError> {
        self.store.private_agents(by.id).await.map_err(Into::into)
    }

    /// "New agent": an admin sets up a company agent with its name, department role, owner (a
    /// current person) and description.
    pub async fn create_agent(&self, by: &Person, form: &AgentForm) -> Result<Agent, OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add an agent".to_string()));
        }
        let name = parse_display_name(&form.name, "An agent")?;
        let description = parse_description(&form.description)?;
        known_role(&*self.store, form.role).await?;
        let owner = known_person(&*self.store, form.owner).await?;
        if owner.left_at.is_some() {
            return Err(OrgError::Invalid(format!("{} has left and cannot own an agent", owner.name)));
        }
        let new = NewAgent {
            name: name.clone(),
            template: HAND_MADE.to_string(),
            role: form.role,
            owner: owner.id,
            team_copy: None,
        };
        self.store.add_agent(&new, &description, actor_of(&*self.clock, by)).await.map_err(|e| match e {
            StoreError::Duplicate(_) => OrgError::Duplicate(format!("There is already an agent called {name}")),
            other => other.into(),
        })
    }

    /// "Copy for a team": whoever manages an agent copies it for a team, as a team copy whose core
    /// is that team's. One copy of an agent per team.
    pub async fn copy_agent_for_team(&self, by: &Person, agent: AgentId, team: TeamId) -> Result<Agent, OrgError> {
        let source = self.known_agent(by, agent).await?;
        if source.private {
            return Err(OrgError::Invalid("A private agent is not copied for a team".to_string()));
        }
        if !(by.is_admin || source.owner == by.id) {
            return Err(OrgError::NotAllowed(format!(
                "Only {}'s owner or an admin can copy it for a team",
                source.name
            )));
        }
        if source.team_copy.is_some() {
            let original = match source.copy_of {
                Some(o) => self.store.agent(o).await?.map(|a| a.name),
                None => None,
            };
            return Err(OrgError::Invalid(match original {
                Some(o) => format!("{} is already a team copy; copy {o} instead", source.name),
                None => format!("{} is already a team copy", source.name),
            }));
        }
        let team =
            self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        let exists = |copy: Agent| {
            OrgError::Duplicate(format!("{} already has a copy for {}: {}", source.name, team.name, copy.name))
        };
        if let Some(copy) = self.store.team_copy_of(source.id, team.id).await? {
            return Err(exists(copy));
        }
        let name = parse_display_name(&team_copy_name(&source.name, &team.name), "A team copy")?;
        match self.store.copy_agent(source.id, team.id, &name, actor_of(&*self.clock, by)).await {
            Ok(a) => Ok(a),
            // Another copy may have won a race since the check: say which refusal it is.
            Err(StoreError::Duplicate(_)) => match self.store.team_copy_of(source.id, team.id).await? {
                Some(copy) => Err(exists(copy)),
                None => Err(OrgError::Duplicate(format!("There is already an agent called {name}"))),
            },
            Err(StoreError::NotFound(_)) => Err(OrgError::NotFound("There is no such agent".to_string())),
            Err(other) => Err(other.into()),
        }
    }

    /// Whoever manages an agent gives it toolsets: the connectors whose tools it may use.
    pub async fn set_agent_toolsets(&self, by: &Person, agent: AgentId, toolsets: &[i64]) -> Result<(), OrgError> {
        let a = self.known_agent(by, agent).await?;
        if !(by.is_admin || a.owner == by.id) {
            return Err(OrgError::NotAllowed(format!("Only {}'s owner or an admin can change its toolsets", a.name)));
        }
        if a.private && !toolsets.is_empty() {
            return Err(OrgError::Invalid(PRIVATE_HOLDS_NO_TOOLSETS.to_string()));
        }
        let connectors = self.store.toolsets().await?;
        let mut chosen: Vec<i64> = Vec::with_capacity(toolsets.len());
        for t in toolsets {
            if !connectors.iter().any(|c| c.id == *t) {
                return Err(OrgError::NotFound("There is no such toolset".to_string()));
            }
            if !chosen.contains(t) {
                chosen.push(*t);
            }
        }
        chosen.sort_unstable();
        self.store.set_agent_toolsets(a.id, &chosen, actor_of(&*self.clock, by)).await.map_err(Into::into)
    }

    /// An admin alone sets the label an agent's model is cleared for. Returns what it now means.
    pub async fn set_agent_clearance(&self, by: &Person, agent: AgentId, clearance: &str) -> Result<String, OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can change an agent's clearance".to_string()));
        }
        let a = self.known_agent(by, agent).await?;
        let label = DataLabel::parse(clearance.trim()).ok_or_else(|| {
            OrgError::Invalid("Choose a clearance: public, internal, confidential or personal".to_string())
        })?;
        self.store.set_agent_clearance(a.id, label, actor_of(&*self.clock, by)).await?;
        Ok(clearance_meaning(label))
    }

    /// Whoever manages the agent limits which lessons its runs load. Returns what it now means.
    pub async fn set_memory_scopes(&self, by: &Person, agent: AgentId, names: &[String]) -> Result<String, OrgError> {
        use crate::org::memory_scopes::{may_set, parse_scopes, scopes_line};
        let a = self.known_agent(by, agent).await?;
        if !may_set(by, a.owner) {
            return Err(OrgError::NotAllowed(format!(
                "Only {}'s owner or an admin can change its memory scopes",
                a.name
            )));
        }
        let scopes = parse_scopes(names)?;
        self.store.set_memory_scopes(a.id, &scopes, actor_of(&*self.clock, by)).await?;
        Ok(scopes_line(&scopes))
    }

    /// An agent's page, for anyone signed in: what it holds and is cleared for, and which of its
    /// controls the viewer may use.
    pub async fn agent_access(&self, by: &Person, agent: AgentId) -> Result<AgentAccess, OrgError> {
        let a = self.known_agent(by, agent).await?;
        let (clearance, held) = self
            .store
            .held_access(a.id)
            .await?
            .ok_or_else(|| OrgError::NotFound("There is no such agent".to_string()))?;
        let dir = self.store.outline().await?;
        let owner = self.store.person(a.owner).await?;
        let role_name = |slug: &str| {
            dir.roles
                .iter()
                .find(|r| r.slug.as_str() == slug)
                .map(|r| r.name.clone())
                .unwrap_or_else(|| slug.to_string())
        };
        let toolsets = self
            .store
            .toolsets()
            .await?
            .into_iter()
            .map(|c| ToolsetChoice {
                id: c.id,
                held: held.contains(&c.id),
                admits: c.admits_roles.iter().map(|s| role_name(s)).collect(),
                name: c.name,
                label: c.label,
            })
            .collect();
        Ok(AgentAccess {
            owner_name: owner.map(|p| p.name).unwrap_or_default(),
            role_name: a.role.and_then(|r| dir.role(r)).map(|r| r.name.clone()),
            team_copy_name: a.team_copy.and_then(|t| dir.team(t)).map(|t| t.name.clone()),
            copy_of_name: a.copy_of.and_then(|c| dir.agent(c)).map(|x| x.name.clone()),
            manages: by.is_admin || a.owner == by.id,
            is_admin: by.is_admin,
            playbook: self.store.agent_playbook(a.id).await?.unwrap_or_default(),
            memory_scopes: self.store.memory_scopes(a.id).await?,
            clearance_meaning: clearance_meaning(clearance),
            clearance,
            toolsets,
            agent: a,
        })
    }
}
