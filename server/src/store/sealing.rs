//! What both backends share about sealed connector keys: a store opened for serving holds the
//! secret key, seals `connectors.company_key` and `person_keys.secret` on write and opens them on
//! read. Each backend's own SQL for the key check, the sealing of plain keys at start-up and the
//! rotation is in its `secrets.rs`.

use super::AnyStore;
use crate::secrets::{Place, SecretBox};
use chrono::{DateTime, Utc};
use engine::store::StoreError;
use std::sync::Arc;

/// What a store holds to seal and open connector keys; `None` for a store opened without the key
/// (the CLI's read-only commands), which neither reads nor writes keys.
pub(crate) type Secrets = Option<Arc<SecretBox>>;

pub(crate) fn sealer(secrets: &Secrets) -> Result<&SecretBox, StoreError> {
    secrets.as_deref().ok_or_else(|| {
        StoreError::Backend(
            "this store was opened without the secret key, so it neither reads nor writes connector keys".into(),
        )
    })
}

/// Opens a stored key, or says why not. After start-up's key check this fails only when the
/// database was rotated to a new key while this server ran.
pub(crate) fn open_stored(secrets: &Secrets, stored: &str, place: Place) -> Result<String, StoreError> {
    sealer(secrets)?.open(stored, place).map_err(|e| {
        StoreError::Backend(format!(
            "{place} {e}; restart Engram with the secret key this database is sealed with (was `engram keys rotate` \
             run since it started?)"
        ))
    })
}

/// Refuses a write of a key when this store's key no longer opens the database's key check, so that
/// a server left running across `engram keys rotate` never seals a key under the old one.
pub(crate) fn check_still_opens(sealer: &SecretBox, check: Option<String>) -> Result<(), StoreError> {
    match check {
        Some(c) if sealer.opens_check(&c) => Ok(()),
        Some(_) => Err(StoreError::Backend(
            "the secret key this server started with no longer opens the database (was `engram keys rotate` run?); \
             restart it with the new key"
                .into(),
        )),
        None => {
            Err(StoreError::Backend("the database has no secret key check; it was not unlocked at start-up".into()))
        }
    }
}

/// A stored connector key and where it lives.
pub(crate) struct StoredKey {
    pub place: Place,
    pub value: String,
}

/// The keys start-up must seal: every key when the database was never sealed (there is no key
/// check yet, so nothing in it can be a sealed value), else those without the sealed prefix.
pub(crate) fn seal_plain(rows: Vec<StoredKey>, sealed_before: bool, sealer: &SecretBox) -> Vec<StoredKey> {
    rows.into_iter()
        .filter(|r| !sealed_before || !SecretBox::is_sealed(&r.value))
        .map(|r| StoredKey { value: sealer.seal(&r.value, r.place), place: r.place })
        .collect()
}

/// Every key opened with the old key and sealed with the new one; refused, whole, if any does not
/// open.
pub(crate) fn reseal(rows: Vec<StoredKey>, old: &SecretBox, new: &SecretBox) -> Result<Vec<StoredKey>, StoreError> {
    rows.into_iter()
        .map(|r| {
            let plain = old
                .open(&r.value, r.place)
                .map_err(|e| StoreError::Backend(format!("{} {e}; nothing was re-sealed", r.place)))?;
            Ok(StoredKey { value: new.seal(&plain, r.place), place: r.place })
        })
        .collect()
}

/// What a sealing step found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sealed {
    /// The key opened the key check; this many keys were (re-)sealed.
    Done(u32),
    /// The key does not open the database's key check; nothing was changed.
    WrongKey,
}

#[derive(Debug, thiserror::Error)]
pub enum UnlockError {
    #[error("the secret key does not open this database's key check")]
    WrongKey,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AnyStore {
    /// Whether the database has been sealed under some key.
    pub async fn key_check_exists(&self) -> Result<bool, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.key_check_exists().await,
            AnyStore::Postgres(s) => s.key_check_exists().await,
        }
    }

    /// Gives the store its secret key, after checking it against the database in one transaction:
    /// a database never sealed gets its key check, and every connector key still in plain text is
    /// sealed. Returns the store that seals and opens keys, and how many keys were sealed now.
    pub async fn unlock(self, secrets: Arc<SecretBox>, at: DateTime<Utc>) -> Result<(Self, u32), UnlockError> {
        let sealed = match &self {
            AnyStore::Sqlite(s) => s.seal_at_rest(&secrets, at).await?,
            AnyStore::Postgres(s) => s.seal_at_rest(&secrets, at).await?,
        };
        let Sealed::Done(n) = sealed else { return Err(UnlockError::WrongKey) };
        Ok((
            match self {
                AnyStore::Sqlite(s) => AnyStore::Sqlite(s.with_secrets(secrets)),
                AnyStore::Postgres(s) => AnyStore::Postgres(s.with_secrets(secrets)),
            },
            n,
        ))
    }

    /// Re-seals every connector key and the key check from `old` to `new` in one transaction.
    pub async fn reseal_all(&self, old: &SecretBox, new: &SecretBox, at: DateTime<Utc>) -> Result<Sealed, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.reseal_all(old, new, at).await,
            AnyStore::Postgres(s) => s.reseal_all(old, new, at).await,
        }
    }
}
