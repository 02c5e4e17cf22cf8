//! `engram ops report [--json]`: what memory costs, as the Operations page shows it, for whoever
//! runs it on the host (who holds the database itself). It opens the database read-only and
//! changes nothing.

use crate::settings::Settings;
use crate::store::{Backend, PgStore, SqliteStore};
use clap::Subcommand;
use engine::services::Services;
use engine::SystemClock;
use std::io::Write;
use std::sync::Arc;

/// `engram ops …`.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Ops {
    /// What memory costs: per layer, per day, the oldest card past its hard limit, and a projection
    /// to 10,000 people; read-only
    Report {
        /// The report as JSON, as GET /api/ops/report answers it
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(ops: &Ops, settings: &Settings, out: &mut impl Write) -> Result<(), String> {
    let Ops::Report { json } = ops;
    let url = settings.database_url.clone();
    let backend = Backend::of(&url).map_err(|e| e.to_string())?;
    let path = match backend {
        Backend::Sqlite => url.strip_prefix("sqlite://").unwrap_or(&url).split('?').next().unwrap_or("").to_string(),
        Backend::Postgres => "the PostgreSQL database".to_string(),
    };
    if backend == Backend::Sqlite && !std::path::Path::new(&path).exists() {
        return Err(format!("There is no database at {path}; start Engram (or the demo) first."));
    }
    let store: Arc<dyn engine::store::Store> = match backend {
        Backend::Sqlite => {
            Arc::new(SqliteStore::open_read_only(&url).await.map_err(|e| format!("could not open {path}: {e}"))?)
        }
        Backend::Postgres => {
            Arc::new(PgStore::open_read_only(&url).await.map_err(|e| format!("could not open {path}: {e}"))?)
        }
    };
    // The bots' core blocks are files in the vault: ENGRAM_VAULT, else the demo's beside its file.
    let mut settings = settings.clone();
    if settings.vault.is_none() && backend == Backend::Sqlite {
        let beside = super::vault_beside(&url);
        settings.vault = beside.is_dir().then_some(beside);
    }
    let services = Services::build(store, Arc::new(SystemClock), crate::startup::reading_adapters(&settings));
    let report = services.operations.report_on_host().await.map_err(|e| {
        // What failed inside is the operator's to read here: this is their own host.
        match engine::UserSafe::internal_detail(&e) {
            Some(detail) => format!("the report could not be made: {detail}"),
            None => e.to_string(),
        }
    })?;
    let w = |e: std::io::Error| e.to_string();
    if *json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        writeln!(out, "{text}").map_err(w)?;
    } else {
        for line in engine::operations::words::report_lines(&report) {
            writeln!(out, "{line}").map_err(w)?;
        }
    }
    Ok(())
}
