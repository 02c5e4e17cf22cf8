//! Passwords and personal API tokens.

use crate::org::Person;
use crate::service::Engine;
use crate::store::{Actor, ApiTokenInfo, StoreError};
use crate::throttle::{throttled_message, Admission};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use blake2::{Blake2b512, Digest};
use rand::RngCore;
use std::net::IpAddr;

/// The one message for an unknown email and a wrong password alike.
pub const SIGN_IN_REFUSED: &str = "That email and password do not match an account";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("{SIGN_IN_REFUSED}")]
    Refused,
    #[error("{0}")]
    Invalid(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
    /// Too many attempts for this account or from this address; nothing was checked.
    #[error("{}", throttled_message(*retry_after_secs))]
    Throttled { retry_after_secs: u64 },
}

/// OWASP's argon2id parameters: m = 19 MiB, t = 2, p = 1.
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes off the async executor: argon2 takes tens of milliseconds of one core.
pub async fn hash_password(password: String) -> Result<String, AuthError> {
    tokio::task::spawn_blocking(move || {
        let mut salt = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut salt);
        let salt = SaltString::encode_b64(&salt).map_err(|e| AuthError::Internal(e.to_string()))?;
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| AuthError::Internal(e.to_string()))
    })
    .await
    .map_err(|e| AuthError::Internal(e.to_string()))?
}

pub async fn verify_password(password: String, hash: String) -> Result<bool, AuthError> {
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&hash).map_err(|e| AuthError::Internal(e.to_string()))?;
        Ok(hasher().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .map_err(|e| AuthError::Internal(e.to_string()))?
}

/// A fixed hash verified when the email is unknown, so both refusals take the same time.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$7PzGK0VZUrm9X1cm2gIiSF0PsBfwqOtbFnvL6ptV+aA";

pub const TOKEN_PREFIX: &str = "eng_";

/// Only this hash of a token is stored; the token itself is shown once.
pub fn hash_api_token(secret: &str) -> String {
    let digest = Blake2b512::digest(secret.as_bytes());
    digest.iter().take(32).map(|b| format!("{b:02x}")).collect()
}

fn new_api_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let body: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{TOKEN_PREFIX}{body}")
}

fn internal(e: StoreError) -> AuthError {
    AuthError::Internal(e.to_string())
}

impl Engine {
    /// Checks a password typed at `client`, slowing down and then refusing repeated attempts
    /// for one account or from one address (see `crate::throttle`).
    pub async fn sign_in(&self, email: &str, password: &str, client: IpAddr) -> Result<Person, AuthError> {
        match self.sign_in_throttle().begin(email, client, self.now()) {
            Admission::Refuse { retry_after_secs } => return Err(AuthError::Throttled { retry_after_secs }),
            Admission::Check { delay_ms: 0 } => {}
            Admission::Check { delay_ms } => tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await,
        }
        let person = self.check_password(email, password).await?;
        self.sign_in_throttle().succeeded(email, client);
        Ok(person)
    }

    async fn check_password(&self, email: &str, password: &str) -> Result<Person, AuthError> {
        match self.store().credentials(email).await.map_err(internal)? {
            Some((person, hash)) => {
                if verify_password(password.to_string(), hash).await? {
                    Ok(person)
                } else {
                    Err(AuthError::Refused)
                }
            }
            None => {
                let _ = verify_password(password.to_string(), DUMMY_HASH.to_string()).await;
                Err(AuthError::Refused)
            }
        }
    }

    /// Creates a token for the person themselves; returns it once, with its listing.
    pub async fn create_api_token(&self, person: &Person, name: &str) -> Result<(ApiTokenInfo, String), AuthError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(AuthError::Invalid("Give the token a name, so you can tell it apart later".to_string()));
        }
        if name.chars().count() > 80 {
            return Err(AuthError::Invalid("A token's name can be at most 80 characters".to_string()));
        }
        let secret = new_api_token();
        let actor = Actor { person: Some(person.id), at: self.now() };
        let info =
            self.store().create_api_token(person.id, name, &hash_api_token(&secret), actor).await.map_err(internal)?;
        Ok((info, secret))
    }

    pub async fn api_tokens(&self, person: &Person) -> Result<Vec<ApiTokenInfo>, AuthError> {
        self.store().api_tokens(person.id).await.map_err(internal)
    }

    pub async fn revoke_api_token(&self, person: &Person, id: i64) -> Result<(), AuthError> {
        let actor = Actor { person: Some(person.id), at: self.now() };
        if self.store().revoke_api_token(person.id, id, actor).await.map_err(internal)? {
            Ok(())
        } else {
            Err(AuthError::Invalid("You have no such token, or it was already revoked".to_string()))
        }
    }

    /// The person a bearer token speaks for, if it is live.
    pub async fn person_for_token(&self, secret: &str) -> Result<Option<Person>, AuthError> {
        if !secret.starts_with(TOKEN_PREFIX) {
            return Ok(None);
        }
        self.store().person_by_token(&hash_api_token(secret), self.now()).await.map_err(internal)
    }
}

/// A bot's own token: it reads only that bot's rows. Only the bot's owner makes one.
impl crate::persona::service::Org {
    pub async fn create_agent_token(
        &self,
        owner: &Person,
        agent: &str,
        name: &str,
    ) -> Result<String, crate::persona::service::PersonaError> {
        use crate::persona::service::PersonaError;
        let roster = self.roster().await?;
        let a = roster.get(agent).ok_or_else(|| PersonaError::NotOnRoster(agent.to_string()))?;
        if !a.is_owner(&owner.email) {
            return Err(PersonaError::NotAllowed(format!("Only {agent}'s owner can make a token for it")));
        }
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(PersonaError::Invalid("Give the token a name of at most 80 characters".to_string()));
        }
        let secret = new_api_token();
        self.store()
            .create_agent_token(agent, owner.id, name, &hash_api_token(&secret), self.clock().now())
            .await
            .map_err(|e| PersonaError::Internal(e.to_string()))?;
        Ok(secret)
    }

    /// The bot a bearer token acts as, if it is a live bot token.
    pub async fn agent_for_token(&self, secret: &str) -> Result<Option<String>, StoreError> {
        if !secret.starts_with(TOKEN_PREFIX) {
            return Ok(None);
        }
        self.store().agent_by_token(&hash_api_token(secret), self.clock().now()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn passwords_verify_and_refuse() {
        let hash = hash_password("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify_password("correct horse".into(), hash.clone()).await.unwrap());
        assert!(!verify_password("wrong".into(), hash).await.unwrap());
    }

    #[test]
    fn dummy_hash_parses() {
        assert!(PasswordHash::new(DUMMY_HASH).is_ok());
    }

    #[test]
    fn tokens_hash_stably_and_differ() {
        let a = new_api_token();
        let b = new_api_token();
        assert_ne!(a, b);
        assert!(a.starts_with(TOKEN_PREFIX));
        assert_eq!(hash_api_token(&a), hash_api_token(&a));
        assert_eq!(hash_api_token(&a).len(), 64);
    }
}
