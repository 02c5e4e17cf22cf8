//! Agent tokens: what an organisation's own agent (one running in Claude Code, Cursor, the OpenAI
//! Agents SDK, LangGraph) holds to use one company agent's memory and gate while acting for
//! nobody, as a schedule does. A personal API token makes the outside agent act for its person;
//! an agent token makes it act for no one, so its run:
//! - loads only the agent's role's company core and no person's cards, lists or lessons;
//! - reads only with the agent's company-key tools;
//! - acts only through the Inbox of the agent's owner (nothing acts unapproved);
//! - is readable, as a scheduled run's thread is, by the owner, the agent's team lead and admins;
//! - is never learnt from by the nightly job (an outside agent's answer is its words, not the
//!   organisation's work).
//!
//! The rules, in one place:
//! - Only a company agent has agent tokens, and only its owner or an admin makes, lists and
//!   revokes them. A token works only for the agent it was made for.
//! - A token's secret is shown once; only its hash is kept. At most [`LIVE_TOKENS_PER_AGENT`] live
//!   tokens an agent, each with a name saying where it is used.
//! - A revoked token stops at once, and the runs it started take no more calls. An agent its
//!   owner paused runs nothing for its tokens either.
//! - Each token continues only the runs it started: another token of the same agent is refused.

pub mod service;
#[cfg(all(test, feature = "server"))]
mod service_tests;
pub mod store;

use crate::kernel::{AgentId, PersonId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use service::AgentTokens;
pub use store::{AgentTokenPorts, AgentTokenStore};

/// Agent tokens start with this, so one pasted into the wrong place is recognisable and `/mcp`
/// tells it from a person's or a bot's token without a read.
pub const AGENT_TOKEN_PREFIX: &str = "agt_";
/// An agent holds at most this many live tokens: one for each place an outside agent runs.
pub const LIVE_TOKENS_PER_AGENT: u32 = 10;
/// An agent's page and the API list at most this many of its tokens, newest first.
pub const TOKENS_LISTED: u32 = 50;
/// The longest name of a token.
pub const TOKEN_NAME_MAX_CHARS: usize = 80;

/// Said to a token that is unknown or revoked, alike.
pub const AGENT_TOKEN_REFUSED: &str = "That agent token is unknown or revoked";
/// Said when a token names an agent other than its own.
pub const OTHER_AGENT: &str = "An agent token works only for the agent it was made for";
/// Said when a token asks for a person's own lessons, which only a signed-in session reads.
pub const NO_PERSON: &str =
    "An agent token acts for nobody: it has no lessons of its own; a person keeps and reads theirs in a signed-in session";

/// One of an agent's tokens, as its owner and admins see it: never its secret or its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentToken {
    pub id: i64,
    pub agent: AgentId,
    /// Where it is used, in the owner's words: "LangGraph on the support server".
    pub name: String,
    pub made_by: Option<PersonId>,
    pub made_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revoked_by: Option<PersonId>,
}

impl AgentToken {
    pub fn live(&self) -> bool {
        self.revoked_at.is_none()
    }
}

/// A live token as a request presents it: which token, for which agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveAgentToken {
    pub id: i64,
    pub agent: AgentId,
}

/// A token's name as typed: trimmed, not empty, bounded, and holding no secret (it is listed).
pub fn parse_token_name(name: &str) -> Result<String, crate::runs::RunError> {
    use crate::runs::RunError;
    let n = name.trim();
    if n.is_empty() || n.chars().count() > TOKEN_NAME_MAX_CHARS {
        return Err(RunError::Invalid(format!(
            "Give the token a name of at most {TOKEN_NAME_MAX_CHARS} characters, saying where it is used"
        )));
    }
    crate::secrets::refuse("A token's name", n).map_err(|r| RunError::Invalid(r.to_string()))?;
    Ok(n.to_string())
}

/// What the store keeps of a token's secret.
#[cfg(feature = "server")]
pub fn hash_agent_token(secret: &str) -> String {
    crate::auth::hash_api_token(secret)
}

/// A new agent token's secret, shown once.
#[cfg(feature = "server")]
pub fn new_agent_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let body: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{AGENT_TOKEN_PREFIX}{body}")
}

/// Whether a bearer token is an agent token by its look alone: the prefix, then 64 hex digits.
pub fn looks_like_agent_token(secret: &str) -> bool {
    secret.strip_prefix(AGENT_TOKEN_PREFIX).is_some_and(|b| b.len() == 64 && b.bytes().all(|c| c.is_ascii_hexdigit()))
}
