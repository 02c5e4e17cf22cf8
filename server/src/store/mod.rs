//! Storage adapters. Each backend implements the engine's store traits: SQLite, the embedded
//! default, and PostgreSQL, for several servers on one database. The database URL's scheme picks
//! the backend.

mod agents;
mod archive;
#[cfg(feature = "bench-seed")]
pub mod bench_seed;
mod cards;
mod cores;
mod draft_sources;
mod idempotency;
mod import;
mod inbox;
mod lessons;
mod lists;
#[cfg(feature = "bench-lww")]
mod lww;
pub(crate) mod memory_audits;
mod memory_rows;
pub(crate) mod memory_scopes;
mod nightly;
pub(crate) mod people;
mod persona;
pub mod postgres;
mod run_rows;
mod runs;
mod sealing;
mod secrets;
pub(crate) mod self_edits;
mod setup;
mod snapshots;
pub mod sqlite;
mod teams;
mod tokens;

use engine::store::{Store, StoreError};
use std::sync::Arc;

pub use postgres::PgStore;
pub use sealing::{Sealed, UnlockError};
pub use sqlite::SqliteStore;

/// The backend a database URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Only the scheme is quoted: the rest of a URL may hold a password.
    #[error("the database URL must begin with sqlite:// or postgres:// (or postgresql://), not {0:?}")]
    UnknownScheme(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Backend {
    pub fn of(url: &str) -> Result<Self, OpenError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            let scheme = url.split_once(':').map(|(s, _)| format!("{s}:")).unwrap_or_default();
            Err(OpenError::UnknownScheme(scheme))
        }
    }
}

/// An open store of either backend; the server and the CLI hold it as `Arc<dyn Store>`, and keep
/// the concrete one only where the backend matters (sessions share its pool).
#[derive(Clone)]
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl AnyStore {
    /// Opens the database the URL names (creating a SQLite file if needed) and applies migrations.
    pub async fn open(url: &str) -> Result<Self, OpenError> {
        Ok(match Backend::of(url)? {
            Backend::Sqlite => AnyStore::Sqlite(SqliteStore::open(url).await?),
            Backend::Postgres => AnyStore::Postgres(PgStore::open(url).await?),
        })
    }

    pub fn shared(&self) -> Arc<dyn Store> {
        match self {
            AnyStore::Sqlite(s) => Arc::new(s.clone()),
            AnyStore::Postgres(s) => Arc::new(s.clone()),
        }
    }
}

/// An agent's access from the rows both backends read: each carries its clearance, and each but
/// the one of an agent holding no toolset carries a toolset's connector.
pub(crate) fn agent_access_from(
    rows: &[(String, Option<i64>)],
) -> Result<Option<(engine::cards::access::DataLabel, Vec<i64>)>, StoreError> {
    let Some((clearance, _)) = rows.first() else { return Ok(None) };
    let clearance = engine::cards::access::DataLabel::parse(clearance)
        .ok_or_else(|| StoreError::Backend("unreadable clearance".into()))?;
    Ok(Some((clearance, rows.iter().filter_map(|(_, c)| *c).collect())))
}

/// The people around a person from the union both backends read, each row labelled with who it
/// is to them: `manager`, `lead` or `teammate`.
pub(crate) fn around_from<'a>(
    team: Option<engine::org::Team>,
    team_role: Option<String>,
    people: impl IntoIterator<Item = (&'a str, engine::org::Person)>,
) -> engine::runs::whoswho::Around {
    let mut around = engine::runs::whoswho::Around { team, team_role, ..Default::default() };
    for (who, person) in people {
        match who {
            "manager" => around.manager = Some(person),
            "lead" => around.lead = Some(person),
            _ => around.teammates.push(person),
        }
    }
    // A union keeps no order: names compare by their bytes, as the teammates' index orders them.
    around.teammates.sort_by(|a, b| a.name.cmp(&b.name));
    around
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_picks_the_backend_and_an_unknown_one_is_named_without_the_rest() {
        assert_eq!(Backend::of("sqlite://data/engram.db").unwrap(), Backend::Sqlite);
        assert_eq!(Backend::of("sqlite::memory:").unwrap(), Backend::Sqlite);
        assert_eq!(Backend::of("postgres://u@h/db").unwrap(), Backend::Postgres);
        assert_eq!(Backend::of("postgresql://u@h/db").unwrap(), Backend::Postgres);
        let e = Backend::of("mysql://root:secret@h/db").unwrap_err().to_string();
        assert_eq!(e, "the database URL must begin with sqlite:// or postgres:// (or postgresql://), not \"mysql:\"");
        assert!(Backend::of("data/engram.db").is_err());
    }
}
