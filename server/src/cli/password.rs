//! `engram password <email>`: an administrator on the host sets a person's new password. After a
//! move (`engram import`) nobody's old password works, and this is how each person gets one again.

use crate::cli::archive::location;
use crate::store::{AnyStore, Backend};
use chrono::Utc;
use engine::auth::rules::NewPassword;
use engine::store::{Actor, StoreError};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    /// The password breaks a rule of `engine::auth::rules`; the sentence says which.
    #[error("{0}")]
    Rejected(String),
    #[error("There is no database at {0}; start Engram (or import an archive) first.")]
    NoDatabase(String),
    #[error("could not open {at}: {detail}")]
    Open { at: String, detail: String },
    #[error("There is no person with the email {0} who can sign in.")]
    NoPerson(String),
    #[error("could not set the password: {0}")]
    Failed(String),
}

/// Sets the password of the person with that email (who has not left) in the database at `url`.
/// Returns a sentence naming them.
pub async fn set_password(url: &str, email: &str, password: &str) -> Result<String, PasswordError> {
    let password = NewPassword::parse(password).map_err(|e| PasswordError::Rejected(e.to_string()))?;
    let at = location(url);
    if Backend::of(url).ok() == Some(Backend::Sqlite) && !Path::new(&at).exists() {
        return Err(PasswordError::NoDatabase(at));
    }
    let store = AnyStore::open(url).await.map_err(|e| PasswordError::Open { at, detail: e.to_string() })?.shared();
    let failed = |e: StoreError| {
        tracing::error!(error = %e, "setting a password failed");
        PasswordError::Failed(e.to_string())
    };
    let Some((person, _)) = store.credentials(email).await.map_err(failed)? else {
        return Err(PasswordError::NoPerson(email.to_string()));
    };
    let hash =
        engine::auth::hash_password(password.into_string()).await.map_err(|e| PasswordError::Failed(e.to_string()))?;
    match store.set_password_hash(person.id, &hash, Actor { person: None, at: Utc::now() }).await {
        Ok(()) => Ok(format!("set a new password for {} <{}>", person.name, person.email)),
        Err(StoreError::NotFound(_)) => Err(PasswordError::NoPerson(email.to_string())),
        Err(e) => Err(failed(e)),
    }
}
