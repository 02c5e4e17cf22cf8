//! The secret key at start-up, and `engram keys rotate`.
//!
//! Start-up finds the key (see `key_source`) and checks it against the database's key check before
//! anything is served: a wrong key, or a sealed database with no key, stops the start with a
//! sentence that says what to do. Connector keys kept in plain text by an earlier version are
//! sealed then, in the same transaction.

use super::key_source::{
    create_key_file, file_beside, pending_path, read_key_file, sqlite_file, KeyFileError, KeyOrigin, KeySetting,
    KEY_FILE_VAR, KEY_VAR,
};
use super::{KeyParseError, SecretBox, SecretKey};
use crate::store::{AnyStore, Backend, Sealed, UnlockError};
use chrono::{DateTime, Utc};
use engine::store::StoreError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("set {KEY_VAR} or {KEY_FILE_VAR}, not both: they name two keys")]
    Both,
    #[error("{KEY_VAR} is not a secret key: it {0}")]
    BadVariable(KeyParseError),
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    #[error(
        "this database is not a file, so there is no folder beside it for a key file: set {KEY_VAR} to a secret key \
         (32 bytes in base64, as `openssl rand -base64 32` prints) or {KEY_FILE_VAR} to a file that holds one (the \
         first start creates it, with mode 0600, if it is missing)"
    )]
    NoPlaceForKeyFile,
    #[error(
        "this database's connector keys are sealed, but there is no key file at {}: restore it from the backup \
         taken with the database, or set {KEY_VAR} to the key the database was sealed with; nothing was changed",
        .0.display()
    )]
    KeyFileMissing(PathBuf),
    #[error("{}", wrong_key(.0))]
    WrongKey(KeyOrigin),
    #[error("There is no database at {0}; start Engram (or the demo) first.")]
    NoDatabase(String),
    #[error("could not open the database: {0}")]
    Open(String),
    #[error("could not read or seal the database's connector keys: {0}")]
    Store(StoreError),
    #[error("nothing was changed, and the old key still opens the database: {0}")]
    NotRotated(StoreError),
    #[error(
        "the connector keys are re-sealed under the new key, but it could not be moved into place: move {} over {} \
         before the next start ({reason})",
        .pending.display(), .path.display()
    )]
    NotMovedIntoPlace { pending: PathBuf, path: PathBuf, reason: String },
    #[error("could not write the new key out, so nothing was changed: {0}")]
    Output(std::io::Error),
}

fn wrong_key(origin: &KeyOrigin) -> String {
    match origin {
        KeyOrigin::Variable => format!(
            "the secret key does not open this database's connector keys: set {KEY_VAR} to the key this database was \
             sealed with (the one `engram keys rotate` printed last, or the key file the database began with); \
             nothing was changed"
        ),
        KeyOrigin::File(path) => {
            let pending = pending_path(path);
            let interrupted = if pending.exists() {
                format!(
                    " If `engram keys rotate` stopped after it re-sealed the keys, the new key is in {}: move it over \
                     the key file.",
                    pending.display()
                )
            } else {
                String::new()
            };
            format!(
                "the secret key in {} does not open this database's connector keys: restore the key file backed up \
                 with this database, or set {KEY_VAR} to the key it was sealed with; nothing was changed.{interrupted}",
                path.display()
            )
        }
    }
}

/// The key the settings give, and where it came from. A key file is created (with a new key) only
/// for a database that has never been sealed: for one that has, a missing file is an error, since a
/// new key could not open it.
async fn find_key(
    store: &AnyStore,
    setting: &KeySetting,
    database_url: &str,
) -> Result<(SecretKey, KeyOrigin), SecretError> {
    let path = match setting {
        KeySetting::Both => return Err(SecretError::Both),
        KeySetting::Given(text) => {
            return SecretKey::parse(text).map(|k| (k, KeyOrigin::Variable)).map_err(SecretError::BadVariable)
        }
        KeySetting::File(path) => path.clone(),
        KeySetting::BesideDatabase => file_beside(database_url).ok_or(SecretError::NoPlaceForKeyFile)?,
    };
    if let Some(key) = read_key_file(&path)? {
        return Ok((key, KeyOrigin::File(path)));
    }
    if store.key_check_exists().await.map_err(SecretError::Store)? {
        return Err(SecretError::KeyFileMissing(path));
    }
    let key = SecretKey::generate();
    if create_key_file(&path, &key)? {
        tracing::info!(file = %path.display(), "created the secret key file; back it up with the database");
        return Ok((key, KeyOrigin::File(path)));
    }
    // Another start created it in the meantime: both use that one.
    let key = read_key_file(&path)?.ok_or_else(|| SecretError::KeyFileMissing(path.clone()))?;
    Ok((key, KeyOrigin::File(path)))
}

/// Gives an opened store its secret key, after checking the key against the database. Connector
/// keys kept in plain text until now are sealed, in one transaction, and audited.
pub async fn unlock_store(
    store: AnyStore,
    setting: &KeySetting,
    database_url: &str,
    at: DateTime<Utc>,
) -> Result<(AnyStore, Arc<SecretBox>), SecretError> {
    let (key, origin) = find_key(&store, setting, database_url).await?;
    let secrets = Arc::new(SecretBox::new(&key));
    let (store, sealed_now) = unlock(store, secrets.clone(), &origin, at).await?;
    if sealed_now > 0 {
        tracing::info!(keys = sealed_now, "sealed the connector keys kept in plain text");
    }
    Ok((store, secrets))
}

async fn unlock(
    store: AnyStore,
    secrets: Arc<SecretBox>,
    origin: &KeyOrigin,
    at: DateTime<Utc>,
) -> Result<(AnyStore, u32), SecretError> {
    store.unlock(secrets, at).await.map_err(|e| match e {
        UnlockError::WrongKey => SecretError::WrongKey(origin.clone()),
        UnlockError::Store(e) => SecretError::Store(e),
    })
}

/// What `engram keys rotate` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotated {
    /// How many connector keys were re-sealed.
    pub resealed: u32,
    /// The key file now holding the new key; `None` when the key is `ENGRAM_SECRET_KEY`'s.
    pub key_file: Option<PathBuf>,
}

/// Re-seals every connector key under a new secret key, in one transaction, and puts the new key
/// where the old one came from.
///
/// From a key file: the new key is written beside it (`engram.key.new`) first, and moved over the
/// old file only once the database has committed, so until then the old key file stays as it was.
/// From `ENGRAM_SECRET_KEY`: the new key is written to `out` before the commit (so a rotation that
/// stops after committing has shown it), and the operator sets the variable to it.
pub async fn rotate(database_url: &str, setting: &KeySetting, out: &mut dyn Write) -> Result<Rotated, SecretError> {
    let backend = Backend::of(database_url).map_err(|e| SecretError::Open(e.to_string()))?;
    if backend == Backend::Sqlite {
        if let Some(path) = sqlite_file(database_url).filter(|p| !Path::new(p).exists()) {
            return Err(SecretError::NoDatabase(path.to_string()));
        }
    }
    let store = AnyStore::open(database_url).await.map_err(|e| SecretError::Open(e.to_string()))?;
    let (old_key, origin) = find_key(&store, setting, database_url).await?;
    let old = Arc::new(SecretBox::new(&old_key));
    let (store, _) = unlock(store, old.clone(), &origin, Utc::now()).await?;
    let new_key = SecretKey::generate();
    let new = SecretBox::new(&new_key);
    match &origin {
        KeyOrigin::File(path) => {
            let pending = pending_path(path);
            // The old key opens the database, so a key an earlier rotation left here never took.
            match std::fs::remove_file(&pending) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(KeyFileError::Io(pending, e.to_string()).into())
                }
                _ => {}
            }
            if !create_key_file(&pending, &new_key)? {
                return Err(KeyFileError::Io(pending, "another rotation is writing it".into()).into());
            }
            let resealed = match store.reseal_all(&old, &new, Utc::now()).await {
                Ok(Sealed::Done(n)) => n,
                outcome => {
                    let _ = std::fs::remove_file(&pending);
                    return Err(match outcome {
                        Err(e) => SecretError::NotRotated(e),
                        _ => SecretError::WrongKey(origin.clone()),
                    });
                }
            };
            std::fs::rename(&pending, path).map_err(|e| SecretError::NotMovedIntoPlace {
                pending: pending.clone(),
                path: path.clone(),
                reason: e.to_string(),
            })?;
            tracing::info!(keys = resealed, file = %path.display(), "rotated the secret key");
            writeln!(
                out,
                "Re-sealed {resealed} connector key(s) under a new secret key, now in {}. The old key no longer opens \
                 this database: back up the new key file with it, and restart every server.",
                path.display()
            )
            .map_err(SecretError::Output)?;
            Ok(Rotated { resealed, key_file: Some(path.clone()) })
        }
        KeyOrigin::Variable => {
            writeln!(out, "New secret key (shown once):\n{}", new_key.to_base64())
                .and_then(|()| out.flush())
                .map_err(SecretError::Output)?;
            let resealed = match store.reseal_all(&old, &new, Utc::now()).await {
                Ok(Sealed::Done(n)) => n,
                Ok(Sealed::WrongKey) => return Err(SecretError::WrongKey(origin.clone())),
                Err(e) => return Err(SecretError::NotRotated(e)),
            };
            tracing::info!(keys = resealed, "rotated the secret key");
            writeln!(
                out,
                "Re-sealed {resealed} connector key(s) under the new key. Set {KEY_VAR} to it on every server and \
                 restart them: the old key no longer opens this database."
            )
            .map_err(SecretError::Output)?;
            Ok(Rotated { resealed, key_file: None })
        }
    }
}
