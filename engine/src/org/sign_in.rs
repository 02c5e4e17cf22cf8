//! Sign-in, with its throttle, and the personal and bot API tokens.

use super::tokens::{ApiTokenInfo, SignInPorts};
use crate::auth::throttle::{Admission, SignInThrottle};
use crate::auth::{hash_api_token, new_api_token, AuthError, Throttle, DUMMY_HASH, TOKEN_PREFIX};
use crate::clock::Clock;
use crate::kernel::{Actor, StoreError};
use crate::kernel::{Person, PersonId};
use chrono::{DateTime, Utc};
use std::net::IpAddr;
use std::sync::Arc;

/// Sign-in and the personal tokens. Its clones share one throttle.
#[derive(Clone)]
pub struct AuthService {
    store: Arc<dyn SignInPorts>,
    clock: Arc<dyn Clock>,
    throttle: Arc<SignInThrottle>,
}

impl AuthService {
    pub fn new(store: Arc<dyn SignInPorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock, throttle: Arc::default() }
    }

    /// The sign-in throttle, for the other places that check a person's password.
    pub fn throttle(&self) -> Arc<SignInThrottle> {
        self.throttle.clone()
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The person a session speaks for, as the store has them now.
    pub async fn person(&self, id: PersonId) -> Result<Option<Person>, StoreError> {
        self.store.person(id).await
    }

    /// The person a session speaks for, with their session generation: a session signed in under
    /// an older one is over (a password change or reset).
    pub async fn person_with_generation(
        &self,
        id: PersonId,
    ) -> Result<Option<super::people::SessionPerson>, StoreError> {
        self.store.person_with_generation(id).await
    }

    /// Checks a password typed at `client`, slowing down and then refusing repeated attempts
    /// for one account or from one address (see `auth::throttle`). When this attempt's wrong
    /// password locks a person's account, the lock is audited and shown to admins as an event.
    pub async fn sign_in(&self, email: &str, password: &str, client: IpAddr) -> Result<Person, AuthError> {
        let attempt = self.throttle.begin(email, client, self.now());
        match attempt.admission {
            Admission::Refuse { retry_after_secs } => {
                return Err(AuthError::Throttled { retry_after_secs, cause: Throttle::Attempts })
            }
            Admission::Check { delay_ms: 0 } => {}
            Admission::Check { delay_ms } => tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await,
        }
        match self.check_password(email, password).await {
            Ok(person) => {
                self.throttle.succeeded(email, client, self.now());
                Ok(person)
            }
            Err(Checked::Wrong(Some(person))) if attempt.locks_account => {
                let now = self.now();
                let until = now + chrono::Duration::seconds(crate::auth::throttle::LOCKOUT_SECS);
                // The refusal stands whether or not the record is written; a failure is ours to log.
                if let Err(e) = self.store.record_sign_in_lock(&person, until, now).await {
                    tracing::error!(error = %e, person = %person.id, "could not record a sign-in lock");
                }
                Err(AuthError::Refused)
            }
            Err(Checked::Wrong(_)) => Err(AuthError::Refused),
            Err(Checked::Failed(e)) => Err(e),
        }
    }

    /// The person whose password this is, or why not. A wrong password names whose account it
    /// was for (if anyone's) for the caller to act on; it is never shown.
    async fn check_password(&self, email: &str, password: &str) -> Result<Person, Checked> {
        let credentials = self.store.credentials(email).await.map_err(|e| Checked::Failed(e.into()))?;
        match credentials {
            Some((person, hash)) => match self.throttle.hashing().verify(password.to_string(), hash).await {
                Ok(true) => Ok(person),
                Ok(false) => Err(Checked::Wrong(Some(person))),
                Err(e) => Err(Checked::Failed(e)),
            },
            // The same work and the same answers as for a known account, a full gate included.
            None => match self.throttle.hashing().verify(password.to_string(), DUMMY_HASH.to_string()).await {
                Err(e @ AuthError::Throttled { .. }) => Err(Checked::Failed(e)),
                _ => Err(Checked::Wrong(None)),
            },
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
        let info = self.store.create_api_token(person.id, name, &hash_api_token(&secret), actor).await?;
        Ok((info, secret))
    }

    pub async fn api_tokens(&self, person: &Person) -> Result<Vec<ApiTokenInfo>, AuthError> {
        self.store.api_tokens(person.id).await.map_err(Into::into)
    }

    pub async fn revoke_api_token(&self, person: &Person, id: i64) -> Result<(), AuthError> {
        let actor = Actor { person: Some(person.id), at: self.now() };
        if self.store.revoke_api_token(person.id, id, actor).await? {
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
        self.store.person_by_token(&hash_api_token(secret), self.now()).await.map_err(Into::into)
    }
}

/// Why a password did not sign anyone in.
enum Checked {
    /// The password is not this account's (`None`: the email names nobody who can sign in).
    Wrong(Option<Person>),
    Failed(AuthError),
}
