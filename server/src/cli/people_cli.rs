//! `engram people import FILE`: the dry run of a CSV import of people, and with `--apply` the
//! import itself, on either backend. The command line on the host is the operator; `--as` names
//! the admin the import is made as instead.

use crate::cli::archive::location;
use crate::cli::bots_cli::CliError;
use crate::cli::find_person;
use crate::settings::Settings;
use crate::store::{AnyStore, Backend, PgStore, SqliteStore};
use clap::{Args, Subcommand};
use engine::auth::invite::INVITE_DAYS;
use engine::org::import::{decode_csv, people_count, thousands, ImportError};
use engine::org::service::ImportBy;
use engine::services::Services;
use engine::store::Store;
use engine::{SystemClock, UserSafe};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `engram people …`.
#[derive(Debug, Args)]
pub struct PeopleArgs {
    #[command(subcommand)]
    pub command: PeopleCommand,
}

#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// Add people from a CSV file with the columns name, email, team and role: shows the dry run
    /// and changes nothing; with --apply, adds them in one transaction and prints their invite links
    Import {
        /// The CSV file; its first line names the columns
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Add the people the dry run accepts
        #[arg(long)]
        apply: bool,
        /// The check the dry run printed: the apply is refused if the file now checks differently
        #[arg(long, value_name = "CHECK", requires = "apply")]
        check: Option<String>,
        /// The admin the import is made as, by email; the host's operator when left out
        #[arg(long = "as", value_name = "ADMIN")]
        who: Option<String>,
    },
}

/// A refusal (not an admin, a bad file, changed since the dry run) exits 3 with the reason;
/// anything else 1.
fn refused(e: ImportError) -> CliError {
    if let Some(detail) = e.internal_detail() {
        tracing::error!(%detail, "internal error in the command line");
    }
    let code = if matches!(e, ImportError::Internal(_)) { 1 } else { 3 };
    CliError { code, message: e.user_message() }
}

fn failed(message: String) -> CliError {
    CliError { code: 1, message }
}

pub async fn run(args: &PeopleArgs, settings: &Settings, out: &mut impl Write) -> Result<(), CliError> {
    match &args.command {
        PeopleCommand::Import { file, apply, check, who } => {
            import(settings, file, *apply, check.as_deref(), who.as_deref(), out).await
        }
    }
}

/// The dry run reads only; the apply opens the database for writing (and migrates it).
async fn open(url: &str, write: bool) -> Result<Arc<dyn Store>, CliError> {
    let at = location(url);
    let backend = Backend::of(url).map_err(|e| failed(e.to_string()))?;
    if backend == Backend::Sqlite && !Path::new(&at).exists() {
        return Err(failed(format!("There is no database at {at}; start Engram (or run engram init) first.")));
    }
    let opened: Result<Arc<dyn Store>, String> = match (write, backend) {
        (true, _) => AnyStore::open(url).await.map(|s| s.shared()).map_err(|e| e.to_string()),
        (false, Backend::Sqlite) => {
            SqliteStore::open_read_only(url).await.map(|s| Arc::new(s) as Arc<dyn Store>).map_err(|e| e.to_string())
        }
        (false, Backend::Postgres) => {
            PgStore::open_read_only(url).await.map(|s| Arc::new(s) as Arc<dyn Store>).map_err(|e| e.to_string())
        }
    };
    opened.map_err(|detail| failed(format!("could not open {at}: {detail}")))
}

async fn import(
    settings: &Settings,
    file: &Path,
    apply: bool,
    check: Option<&str>,
    who: Option<&str>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| failed(format!("could not read {name}: {e}")))?;
    let text = decode_csv(&bytes).map_err(refused)?;
    let store = open(&settings.database_url, apply).await?;
    let Services { org, .. } =
        Services::build(store.clone(), Arc::new(SystemClock), crate::startup::reading_adapters(settings));
    let admin = match who {
        Some(who) => Some(find_person(store.as_ref(), who).await.map_err(|m| CliError { code: 3, message: m })?),
        None => None,
    };
    let by = admin.as_ref().map_or(ImportBy::HostOperator, ImportBy::Person);
    let w = |e: std::io::Error| failed(e.to_string());
    let rows = |n: usize| if n == 1 { "1 row".to_string() } else { format!("{} rows", thousands(n)) };
    if !apply {
        let plan = org.import_dry_run(by, &text).await.map_err(refused)?;
        writeln!(
            out,
            "Dry run of {name}: {} to add, {} refused. Nothing was changed.",
            people_count(plan.to_add.len()),
            rows(plan.refused.len())
        )
        .map_err(w)?;
        if !plan.to_add.is_empty() {
            writeln!(out, "People to add:").map_err(w)?;
            for r in &plan.to_add {
                let role = r.role_name.as_deref().map(|n| format!(", role {n}")).unwrap_or_default();
                writeln!(out, "  line {}: {} <{}>, team {}{role}", r.line, r.name, r.email, r.team_name).map_err(w)?;
            }
        }
        if !plan.refused.is_empty() {
            writeln!(out, "Refused rows:").map_err(w)?;
            for r in &plan.refused {
                writeln!(out, "  {}", r.sentence()).map_err(w)?;
            }
        }
        if !plan.to_add.is_empty() {
            writeln!(out, "To add them: engram people import {name} --apply --check {}", plan.check()).map_err(w)?;
        }
        return Ok(());
    }
    let done = org.import_people(by, &text, check).await.map_err(refused)?;
    writeln!(out, "Added {} from {name} in one transaction.", people_count(done.added.len())).map_err(w)?;
    if !done.refused.is_empty() {
        writeln!(out, "{} not added:", rows(done.refused.len())).map_err(w)?;
        for r in &done.refused {
            writeln!(out, "  {}", r.sentence()).map_err(w)?;
        }
    }
    let once = format!("each works once, for {INVITE_DAYS} days, and is shown only now");
    match &settings.public_url {
        Some(origin) => {
            writeln!(out, "Invite links ({once}):").map_err(w)?;
            for p in &done.added {
                writeln!(out, "{} {origin}{}", p.email, p.invite_path).map_err(w)?;
            }
        }
        None => {
            writeln!(
                out,
                "Invite links ({once}). Put the server's address before each, as in \
                 https://engram.example.com/invite/…; set ENGRAM_PUBLIC_URL to print whole links:"
            )
            .map_err(w)?;
            for p in &done.added {
                writeln!(out, "{} {}", p.email, p.invite_path).map_err(w)?;
            }
        }
    }
    Ok(())
}
