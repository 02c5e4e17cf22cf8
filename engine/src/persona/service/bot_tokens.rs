//! A bot's tokens: making, judging, listing and revoking them. Host-only, like passwords, so the
//! wasm build of the engine (which the tokens' page types are part of) has no token hashing in it.

use crate::auth::{hash_api_token, new_api_token, TOKEN_PREFIX};
use crate::kernel::Actor;
use crate::org::{Person, PersonId};
use crate::persona::bot_tokens::*;
use crate::persona::service::{BotEnv, Caller, PersonaError};
use crate::persona::store::PersonaStore;
use chrono::{DateTime, Duration, Utc};
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
            _ => Err(PersonaError::NotAllowed(format!("Only {agent}'s owner or lead can see or revoke its tokens"))),
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
