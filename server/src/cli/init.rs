//! `engram init`: the first run's setup from the host, as Set up Engram does it in the browser.
//! The password comes from standard input or a prompt that does not echo it, never an argument,
//! so it stays out of the shell's history and the process list.

use crate::cli::archive::location;
use crate::store::{AnyStore, Backend};
use engine::org::service::SetupRequest;
use engine::org::setup::SetupError;
use engine::services::Services;
use engine::SystemClock;
use std::io::{BufRead, IsTerminal};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// A refusal of the setup itself: bad input, or a company that already exists.
    #[error("{0}")]
    Refused(String),
    #[error("could not read the password: {0}")]
    Password(String),
    #[error("could not open {at}: {detail}")]
    Open { at: String, detail: String },
}

/// What `engram init` was given on its command line.
#[derive(Debug, Clone)]
pub struct InitArgs {
    pub company: String,
    pub zone: String,
    pub locale: String,
    pub admin: String,
    pub name: Option<String>,
}

/// A name for the admin from their email when none was given: "ada.lovelace@…" is "Ada Lovelace".
pub fn name_from_email(email: &str) -> String {
    let local = email.trim().split('@').next().unwrap_or_default();
    local
        .split(['.', '_', '-', '+'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first admin's password: the first line of standard input when it is not a terminal (a pipe
/// or a file), else typed twice at a prompt that does not echo it.
pub fn read_password(email: &str) -> Result<String, InitError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin.lock().read_line(&mut line).map_err(|e| InitError::Password(e.to_string()))?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_string());
    }
    let first = rpassword::prompt_password(format!("Password for {}: ", email.trim()))
        .map_err(|e| InitError::Password(e.to_string()))?;
    let again =
        rpassword::prompt_password("The same password again: ").map_err(|e| InitError::Password(e.to_string()))?;
    if first != again {
        return Err(InitError::Refused("The two passwords differ; nothing was changed.".to_string()));
    }
    Ok(first)
}

/// Sets up the database at `url` (creating a SQLite file if needed): the company and its first
/// admin, once. Returns the sentence to print.
pub async fn init(url: &str, args: &InitArgs, password: &str) -> Result<String, InitError> {
    let at = location(url);
    let open_failed = |detail: String| InitError::Open { at: at.clone(), detail };
    if Backend::of(url).map_err(|e| open_failed(e.to_string()))? == Backend::Sqlite {
        if let Some(dir) = std::path::Path::new(&at).parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| open_failed(e.to_string()))?;
        }
    }
    let store = AnyStore::open(url).await.map_err(|e| open_failed(e.to_string()))?.shared();
    // Only the company's side is used; the rest of the settings change nothing here.
    let adapters = crate::startup::reading_adapters(&crate::settings::Settings::from_env());
    let Services { org, .. } = Services::build(store, Arc::new(SystemClock), adapters);
    let name = args.name.clone().unwrap_or_else(|| name_from_email(&args.admin));
    let request = SetupRequest {
        company: &args.company,
        time_zone: &args.zone,
        locale: &args.locale,
        admin_name: &name,
        admin_email: &args.admin,
        password,
    };
    match org.set_up(request).await {
        Ok(admin) => Ok(format!(
            "Engram is set up for {} ({}); {} <{}> is its admin and can sign in now.",
            args.company.trim(),
            args.zone.trim(),
            admin.name,
            admin.email
        )),
        Err(e @ SetupError::Internal(_)) => {
            tracing::error!(error = ?e, "engram init failed");
            Err(InitError::Refused(engine::UserSafe::user_message(&e)))
        }
        Err(SetupError::AlreadySetUp) => Err(InitError::Refused(format!(
            "Engram is already set up at {at}; nothing was changed. Sign in instead, or add people as its admin."
        ))),
        Err(e) => Err(InitError::Refused(format!("{e}; nothing was changed."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_made_from_the_email() {
        assert_eq!(name_from_email("ada.lovelace@acme.example"), "Ada Lovelace");
        assert_eq!(name_from_email("ada@acme.example"), "Ada");
        assert_eq!(name_from_email("grace_hopper-2@acme.example"), "Grace Hopper 2");
        assert_eq!(name_from_email("@x"), "");
    }
}
