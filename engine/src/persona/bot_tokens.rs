//! A bot's own API tokens. Each expires (`ENGRAM_BOT_TOKEN_DAYS`, 90 days unless set); the bot's
//! owner or lead lists and revokes them; and a token stops working when the roster names another
//! owner than the person who made it, since it carried that person's say over the bot.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How long a bot token works when `ENGRAM_BOT_TOKEN_DAYS` is not set.
pub const DEFAULT_BOT_TOKEN_DAYS: u32 = 90;

/// `revoked_why` of a token its owner or lead revoked.
pub const REVOKED_BY_PERSON: &str = "revoked";
/// `revoked_why` of a token refused because the roster names another owner than its maker.
pub const REVOKED_OWNER_CHANGED: &str = "owner_changed";

/// A bot token as its owner or lead sees it listed; never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentToken {
    pub id: i64,
    pub agent: String,
    pub name: String,
    /// The name of the person who made it (the bot's owner then).
    pub made_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// `revoked`, `owner_changed`, or none (revoked before reasons were kept, or its maker left).
    pub revoked_why: Option<String>,
}

/// What the store holds of a token someone presented, for the engine to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedToken {
    pub id: i64,
    pub agent: String,
    /// The email of the person who made it.
    pub made_by_email: String,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revoked_why: Option<String>,
}

/// Whether a bearer token acts as a bot, and if not, why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    /// A live bot token: the bot it acts as.
    Live(String),
    /// Not a bot token we know, or revoked.
    Unknown,
    Expired(DateTime<Utc>),
    /// Made by someone the roster no longer names as the bot's owner.
    OwnerChanged(String),
}

impl TokenCheck {
    /// The refusal's code and sentence, or none for a live token. The codes sit beside
    /// `bad_token`, so a dispatcher can tell a token to replace from one never valid.
    pub fn refusal(&self) -> Option<(&'static str, String)> {
        match self {
            TokenCheck::Live(_) => None,
            TokenCheck::Unknown => Some(("bad_token", "That API token is unknown or revoked".to_string())),
            TokenCheck::Expired(at) => Some((
                "token_expired",
                format!(
                    "That bot token expired on {}. Its owner can make a new one with `engram org token`.",
                    at.format("%Y-%m-%d %H:%M UTC")
                ),
            )),
            TokenCheck::OwnerChanged(agent) => Some((
                "owner_changed",
                format!(
                    "That bot token no longer works because {agent}'s owner changed. \
                     The new owner can make a new one with `engram org token`."
                ),
            )),
        }
    }
}

/// Making, judging, listing and revoking tokens: host-only, like passwords, so the wasm build of
/// the engine (which the pages' types above are part of) has no token hashing in it.
#[cfg(feature = "server")]
pub use keeping::BotTokens;

#[cfg(feature = "server")]
mod keeping {
    use super::*;
    use crate::auth::{hash_api_token, new_api_token, TOKEN_PREFIX};
    use crate::kernel::Actor;
    use crate::org::{Person, PersonId};
    use crate::persona::service::{BotEnv, Caller, PersonaError};
    use crate::persona::store::PersonaStore;
    use chrono::Duration;
    use std::sync::Arc;

    fn token_name(name: &str) -> Result<String, PersonaError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(PersonaError::Invalid("Give the token a name of at most 80 characters".to_string()));
        }
        Ok(name.to_string())
    }

    /// A bot's own tokens: made by its owner, judged when presented, listed and revoked.
    #[derive(Clone)]
    pub struct BotTokens {
        store: Arc<dyn PersonaStore>,
        env: BotEnv,
    }

    impl BotTokens {
        pub fn new(store: Arc<dyn PersonaStore>, env: BotEnv) -> Self {
            Self { store, env }
        }

        /// A bot's own token, made by its owner: it reads only that bot's rows and works for
        /// `days` days. Returns the secret (shown this once) and when it expires.
        pub async fn create_agent_token(
            &self,
            owner: &Person,
            agent: &str,
            name: &str,
            days: u32,
        ) -> Result<(String, DateTime<Utc>), PersonaError> {
            let roster = self.env.roster().await?;
            let a = roster.get(agent).ok_or_else(|| PersonaError::NotOnRoster(agent.to_string()))?;
            if !a.is_owner(&owner.email) {
                return Err(PersonaError::NotAllowed(format!("Only {agent}'s owner can make a token for it")));
            }
            let name = token_name(name)?;
            let secret = new_api_token();
            let now = self.env.clock().now();
            let expires_at = now + Duration::days(i64::from(days.max(1)));
            self.store.create_agent_token(agent, owner.id, &name, &hash_api_token(&secret), now, expires_at).await?;
            Ok((secret, expires_at))
        }

        /// Whether a bearer token is a live bot token, and if not, why not. A live token is marked
        /// used; one made by someone the roster no longer names as owner is revoked for good, so
        /// naming them owner again does not bring it back.
        pub async fn agent_for_token(&self, secret: &str) -> Result<TokenCheck, PersonaError> {
            if !secret.starts_with(TOKEN_PREFIX) {
                return Ok(TokenCheck::Unknown);
            }
            let Some(t) = self.store.agent_token(&hash_api_token(secret)).await? else {
                return Ok(TokenCheck::Unknown);
            };
            let now = self.env.clock().now();
            if t.revoked_at.is_some() {
                return Ok(match t.revoked_why.as_deref() {
                    Some(REVOKED_OWNER_CHANGED) => TokenCheck::OwnerChanged(t.agent),
                    _ => TokenCheck::Unknown,
                });
            }
            if t.expires_at <= now {
                return Ok(TokenCheck::Expired(t.expires_at));
            }
            // A bot no longer on the roster has no owner to compare; whatever the token asks for is
            // refused by the call itself, as before.
            let roster = self.env.roster().await?;
            if roster.get(&t.agent).is_some_and(|a| !a.is_owner(&t.made_by_email)) {
                let actor = Actor { person: None, at: now };
                self.store.revoke_agent_token(&t.agent, t.id, REVOKED_OWNER_CHANGED, actor).await?;
                return Ok(TokenCheck::OwnerChanged(t.agent));
            }
            self.store.agent_token_used(t.id, now).await?;
            Ok(TokenCheck::Live(t.agent))
        }

        /// The person asking, if they are the bot's owner or lead.
        async fn token_keeper(&self, caller: &Caller, agent: &str) -> Result<PersonId, PersonaError> {
            let roster = self.env.roster().await?;
            let a = roster.get(agent).ok_or_else(|| PersonaError::NotOnRoster(agent.to_string()))?;
            match caller {
                Caller::Person(p) if a.is_owner_or_lead(&p.email) => Ok(p.id),
                Caller::Bot(_) => Err(PersonaError::NotAllowed("A bot's own token cannot see or revoke tokens".into())),
                _ => {
                    Err(PersonaError::NotAllowed(format!("Only {agent}'s owner or lead can see or revoke its tokens")))
                }
            }
        }

        /// A bot's tokens, newest first, for its owner or lead.
        pub async fn agent_tokens(&self, caller: &Caller, agent: &str) -> Result<Vec<AgentToken>, PersonaError> {
            self.token_keeper(caller, agent).await?;
            Ok(self.store.agent_tokens(agent).await?)
        }

        /// Revokes one of a bot's tokens, for its owner or lead; audited.
        pub async fn revoke_agent_token(&self, caller: &Caller, agent: &str, id: i64) -> Result<(), PersonaError> {
            let by = self.token_keeper(caller, agent).await?;
            let actor = Actor { person: Some(by), at: self.env.clock().now() };
            if self.store.revoke_agent_token(agent, id, REVOKED_BY_PERSON, actor).await? {
                Ok(())
            } else {
                Err(PersonaError::NotFound(format!("{agent} has no live token #{id}; it may already be revoked")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_own_code_and_a_live_token_none() {
        let at = DateTime::parse_from_rfc3339("2027-03-04T21:30:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(TokenCheck::Live("scout".into()).refusal(), None);
        assert_eq!(TokenCheck::Unknown.refusal().unwrap().0, "bad_token");
        let (code, message) = TokenCheck::Expired(at).refusal().unwrap();
        assert_eq!(code, "token_expired");
        assert!(message.contains("expired on 2027-03-04 21:30 UTC"), "{message}");
        let (code, message) = TokenCheck::OwnerChanged("scout".into()).refusal().unwrap();
        assert_eq!(code, "owner_changed");
        assert!(message.contains("scout's owner changed"), "{message}");
    }
}
