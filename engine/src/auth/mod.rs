//! Passwords and personal API tokens.

use crate::kernel::StoreError;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use blake2::{Blake2b512, Digest};
use gate::BUSY_RETRY_AFTER_SECS;
use rand::RngCore;
use throttle::throttled_message;

pub mod gate;
pub mod invite;
pub mod rules;
pub mod throttle;

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
    /// Too many attempts for this account or from this address, or too many passwords being
    /// hashed at once on this server; nothing was checked.
    #[error("{}", turned_away(*retry_after_secs, *cause))]
    Throttled { retry_after_secs: u64, cause: Throttle },
}

/// Why an attempt was turned away before its password was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throttle {
    /// Too many attempts for the account or from the address (`throttle`).
    Attempts,
    /// As many passwords as this server hashes at once are being hashed (`gate`).
    Busy,
}

pub const BUSY_MESSAGE: &str =
    "Engram is checking many passwords right now. Wait a moment, then try again; nothing was changed.";

fn turned_away(retry_after_secs: u64, cause: Throttle) -> String {
    match cause {
        Throttle::Attempts => throttled_message(retry_after_secs),
        Throttle::Busy => BUSY_MESSAGE.to_string(),
    }
}

impl AuthError {
    /// Too many passwords are being hashed at once.
    pub fn busy() -> Self {
        AuthError::Throttled { retry_after_secs: BUSY_RETRY_AFTER_SECS, cause: Throttle::Busy }
    }
}

/// OWASP's argon2id parameters: m = 19 MiB, t = 2, p = 1.
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn hash_now(password: &str) -> Result<String, AuthError> {
    let mut salt = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| AuthError::Internal(e.to_string()))?;
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AuthError::Internal(e.to_string()))
}

fn verify_now(password: &str, hash: &str) -> Result<bool, AuthError> {
    let parsed = PasswordHash::new(hash).map_err(|e| AuthError::Internal(e.to_string()))?;
    Ok(hasher().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// Hashes off the async executor, outside any server's gate: for the command line and the demo's
/// seed. A request hashes through its server's `gate::HashingGate`.
pub async fn hash_password(password: String) -> Result<String, AuthError> {
    tokio::task::spawn_blocking(move || hash_now(&password)).await.map_err(|e| AuthError::Internal(e.to_string()))?
}

/// Checks a password off the async executor, outside any server's gate, as `hash_password`.
pub async fn verify_password(password: String, hash: String) -> Result<bool, AuthError> {
    tokio::task::spawn_blocking(move || verify_now(&password, &hash))
        .await
        .map_err(|e| AuthError::Internal(e.to_string()))?
}

/// A fixed hash verified when the email is unknown, so both refusals take the same time.
pub(crate) const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$7PzGK0VZUrm9X1cm2gIiSF0PsBfwqOtbFnvL6ptV+aA";

pub const TOKEN_PREFIX: &str = "eng_";

/// Only this hash of a token is stored; the token itself is shown once.
pub fn hash_api_token(secret: &str) -> String {
    let digest = Blake2b512::digest(secret.as_bytes());
    digest.iter().take(32).map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn new_api_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let body: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{TOKEN_PREFIX}{body}")
}

/// A store failure is the backend's, never the person's: it becomes this error's internal case,
/// whose detail is logged at the edge and never shown.
impl From<StoreError> for AuthError {
    fn from(e: StoreError) -> Self {
        AuthError::Internal(e.to_string())
    }
}

impl crate::error::UserSafe for AuthError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            AuthError::Refused => crate::error::ErrorKind::Unauthorized,
            AuthError::Invalid(_) => crate::error::ErrorKind::Invalid,
            AuthError::Throttled { .. } => crate::error::ErrorKind::Throttled,
            AuthError::Internal(_) => crate::error::ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            AuthError::Refused => "refused",
            AuthError::Invalid(_) => "invalid",
            AuthError::Throttled { .. } => "throttled",
            AuthError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            AuthError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn passwords_verify_and_refuse() {
        let hash = hash_password("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify_now("correct horse", &hash).unwrap());
        assert!(!verify_now("wrong", &hash).unwrap());
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
