//! `AgentTokens`: making, listing and revoking a company agent's tokens, by its owner or an admin,
//! and judging a token a request presents. Each checks who asks and what was typed before anything
//! is written; bad input changes nothing.

use super::store::AgentTokenPorts;
use super::{AgentToken, TOKENS_LISTED};
use crate::clock::Clock;
use crate::kernel::{Actor, AgentId, Person};
use crate::org::Agent;
use crate::runs::RunError;
use std::sync::Arc;

/// Who may make, list and revoke an agent's tokens: its owner or an admin, and only for a company
/// agent.
pub fn may_manage_tokens(me: &Person, agent: &Agent) -> Result<(), RunError> {
    if agent.private {
        // Another's private agent is no agent at all to anyone else.
        if agent.owner != me.id {
            return Err(RunError::NotFound("There is no such agent".into()));
        }
        return Err(RunError::Invalid(
            "A private agent has no agent tokens: it works only for you; use your own API token".into(),
        ));
    }
    if me.is_admin || me.id == agent.owner {
        Ok(())
    } else {
        Err(RunError::NotAllowed(format!(
            "Only the agent's owner or an admin can see and change {}'s tokens",
            agent.name
        )))
    }
}

#[derive(Clone)]
pub struct AgentTokens {
    store: Arc<dyn AgentTokenPorts>,
    clock: Arc<dyn Clock>,
}

impl AgentTokens {
    pub fn new(store: Arc<dyn AgentTokenPorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn actor(&self, me: &Person) -> Actor {
        Actor { person: Some(me.id), at: self.clock.now() }
    }

    async fn managed(&self, me: &Person, agent: AgentId) -> Result<Agent, RunError> {
        let a = self.store.agent(agent).await?.ok_or_else(|| RunError::NotFound("There is no such agent".into()))?;
        may_manage_tokens(me, &a)?;
        Ok(a)
    }

    /// Whether `me` may see and change the agent's tokens: false for someone who only reads the
    /// agent; an error for an agent `me` does not see.
    pub async fn manages(&self, me: &Person, agent: AgentId) -> Result<bool, RunError> {
        let a = match self.store.agent(agent).await? {
            Some(a) if a.visible_to(me.id) => a,
            _ => return Err(RunError::NotFound("There is no such agent".into())),
        };
        match may_manage_tokens(me, &a) {
            Ok(()) => Ok(true),
            Err(RunError::NotAllowed(_) | RunError::Invalid(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The agent's tokens, newest first (revoked ones too, marked so), for its owner or an admin.
    pub async fn list(&self, me: &Person, agent: AgentId) -> Result<Vec<AgentToken>, RunError> {
        self.managed(me, agent).await?;
        Ok(self.store.agent_tokens_of(agent, TOKENS_LISTED).await?)
    }

    /// Makes a token named after where it is used: the secret is returned once, and only its hash
    /// is kept.
    #[cfg(feature = "server")]
    pub async fn make(&self, me: &Person, agent: AgentId, name: &str) -> Result<(AgentToken, String), RunError> {
        use super::{parse_token_name, LIVE_TOKENS_PER_AGENT};
        let a = self.managed(me, agent).await?;
        let name = parse_token_name(name)?;
        let secret = super::new_agent_token();
        let hash = super::hash_agent_token(&secret);
        match self.store.make_agent_token(agent, &name, &hash, LIVE_TOKENS_PER_AGENT, self.actor(me)).await? {
            Some(t) => Ok((t, secret)),
            None => Err(RunError::Invalid(format!(
                "{} already holds {LIVE_TOKENS_PER_AGENT} live tokens, as many as an agent may; revoke one it no \
                 longer needs first",
                a.name
            ))),
        }
    }

    /// Revokes one of the agent's tokens: it stops at once, and the runs it started take no more
    /// calls.
    pub async fn revoke(&self, me: &Person, agent: AgentId, id: i64) -> Result<(), RunError> {
        let a = self.managed(me, agent).await?;
        if !self.store.revoke_agent_token_of(agent, id, self.actor(me)).await? {
            return Err(RunError::NotFound(format!("{} has no live token #{id}; it may already be revoked", a.name)));
        }
        Ok(())
    }

    /// The live token a request presents, or `None` when it is none (unknown, revoked, not an
    /// agent token at all). A token of an agent that became private or is paused is refused in
    /// words.
    #[cfg(feature = "server")]
    pub async fn judge(&self, secret: &str) -> Result<Option<super::LiveAgentToken>, RunError> {
        use crate::runs::schedules::TRIGGER_PAUSED;
        if !super::looks_like_agent_token(secret) {
            return Ok(None);
        }
        let now = self.clock.now();
        let Some(t) = self.store.live_agent_token(&super::hash_agent_token(secret), now).await? else {
            return Ok(None);
        };
        let Some(agent) = self.store.agent(t.agent).await? else {
            return Ok(None);
        };
        if agent.private {
            return Err(RunError::NotAllowed(
                "This agent is now private: it works only for its owner, and its agent tokens no longer work".into(),
            ));
        }
        if self.store.paused(t.agent).await? {
            return Err(RunError::Changed(TRIGGER_PAUSED.into()));
        }
        Ok(Some(t))
    }
}
