//! The storage of agent tokens and of which token started which run. Every change is audited in
//! its own transaction; only a token's hash is ever written.

use super::{AgentToken, LiveAgentToken};
use crate::kernel::{Actor, AgentId, StoreError};
use crate::runs::RunId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

#[async_trait]
pub trait AgentTokenStore: Send + Sync {
    /// Makes a token for the agent unless it already holds `live_limit` live ones (then `None`,
    /// nothing written), deciding in one write so two makers never both take the last place;
    /// audited `agent.token_made` with the token's id and name, never its secret.
    async fn make_agent_token(
        &self,
        agent: AgentId,
        name: &str,
        secret_hash: &str,
        live_limit: u32,
        actor: Actor,
    ) -> Result<Option<AgentToken>, StoreError>;
    /// The agent's tokens, newest first, at most `limit`.
    async fn agent_tokens_of(&self, agent: AgentId, limit: u32) -> Result<Vec<AgentToken>, StoreError>;
    /// Revokes one of the agent's live tokens; audited `agent.token_revoked`. False when it has no
    /// such live token (nothing audited).
    async fn revoke_agent_token_of(&self, agent: AgentId, id: i64, actor: Actor) -> Result<bool, StoreError>;
    /// The live token whose secret hashes to `secret_hash`, marked used at `now`.
    async fn live_agent_token(
        &self,
        secret_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<LiveAgentToken>, StoreError>;
    /// Records that `token` started `run`.
    async fn bind_token_run(&self, run: RunId, token: i64) -> Result<(), StoreError>;
    /// The token that started `run`, if one did.
    async fn token_of_run(&self, run: RunId) -> Result<Option<i64>, StoreError>;
}

crate::port!(
    /// Making and judging agent tokens: the tokens, the agents from the directory, and whether an
    /// agent is paused.
    AgentTokenPorts: AgentTokenStore,
    crate::org::store::OrgStore,
    crate::runs::schedules::ScheduleStore
);
