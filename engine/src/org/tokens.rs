//! People's personal API tokens, as their store keeps them, and what sign-in reads and writes.

use crate::kernel::events::Event;
use crate::kernel::{Actor, Person, PersonId, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A personal API token as listed to its owner; the secret itself is never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiTokenInfo {
    pub id: i64,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[async_trait]
pub trait TokenStore: Send + Sync {
    async fn create_api_token(
        &self,
        person: PersonId,
        name: &str,
        secret_hash: &str,
        actor: Actor,
    ) -> Result<ApiTokenInfo, StoreError>;
    async fn api_tokens(&self, person: PersonId) -> Result<Vec<ApiTokenInfo>, StoreError>;
    /// Revokes one of the person's own tokens; false when they hold no such live token.
    async fn revoke_api_token(&self, person: PersonId, id: i64, actor: Actor) -> Result<bool, StoreError>;
    /// The owner of a live token, marking it used.
    async fn person_by_token(&self, secret_hash: &str, at: DateTime<Utc>) -> Result<Option<Person>, StoreError>;
    /// Wrong passwords locked `person`'s account for sign-in from new addresses until `until`: an
    /// audit row and a `sign_in_locked` event naming their email (what admins read on Events), in
    /// one write.
    async fn record_sign_in_lock(
        &self,
        person: &Person,
        until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> Result<Event, StoreError>;
}

/// What sign-in reads and writes: org's stores (people and their password hashes) and the tokens'.
pub trait SignInPorts: super::store::OrgStore + super::people::PeopleStore + TokenStore {}

impl<T: super::store::OrgStore + super::people::PeopleStore + TokenStore + ?Sized> SignInPorts for T {}
