//! `engram erase [VALUE] [--as ADMIN]`: erases a third party's email address or phone number from
//! memory, as the admin page does, and prints what went. Without VALUE it reads the first line of
//! stdin, which keeps the value out of the shell's history and the process list. The command line
//! on the host is the operator; `--as` names the admin the erasure is made as instead.

use crate::cli::archive::location;
use crate::cli::{find_person, CliError};
use crate::settings::Settings;
use crate::store::{AnyStore, Backend};
use engine::erasure::service::{ErasureBy, Erasures};
use engine::erasure::ErasureError;
use engine::{SystemClock, UserSafe};
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;

/// A refusal (not an admin, not one email or phone number, someone in the directory) exits 3 with
/// the reason; anything else 1.
fn refused(e: ErasureError) -> CliError {
    if let Some(detail) = e.internal_detail() {
        tracing::error!(%detail, "internal error in the command line");
        return CliError { code: 1, message: e.user_message() };
    }
    CliError { code: 3, message: e.user_message() }
}

fn failed(message: String) -> CliError {
    CliError { code: 1, message }
}

/// Erases `value`, or the first line of `stdin` when none is given, as `who` (an admin's email)
/// or as the host's operator.
pub async fn run(
    settings: &Settings,
    value: Option<&str>,
    who: Option<&str>,
    stdin: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let value = match value {
        Some(v) => v.to_string(),
        None => {
            let mut line = String::new();
            stdin.read_line(&mut line).map_err(|e| failed(format!("could not read the value from stdin: {e}")))?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    let url = &settings.database_url;
    let at = location(url);
    if Backend::of(url).map_err(|e| failed(e.to_string()))? == Backend::Sqlite && !Path::new(&at).exists() {
        return Err(failed(format!("There is no database at {at}; start Engram (or run engram init) first.")));
    }
    let opened = AnyStore::open(url).await.map_err(|e| failed(format!("could not open {at}: {e}")))?;
    // The audit's hash is keyed with the company's erasure key, sealed under the secret key.
    let now = engine::Clock::now(&SystemClock);
    let (opened, _) = crate::secrets::unlock_store(opened, &settings.secret_key, url, now)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let store = opened.shared();
    let admin = match who {
        Some(who) => Some(find_person(store.as_ref(), who).await.map_err(|m| CliError { code: 3, message: m })?),
        None => None,
    };
    let by = admin.as_ref().map_or(ErasureBy::HostOperator, ErasureBy::Person);
    let erased = Erasures::new(store, Arc::new(SystemClock)).erase(by, &value).await.map_err(refused)?;
    writeln!(out, "{}", erased.sentence()).map_err(|e| failed(e.to_string()))
}
