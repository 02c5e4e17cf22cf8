//! Storage adapters. Each backend implements the engine's store traits: SQLite, the embedded
//! default, and PostgreSQL, for several servers on one database. The database URL's scheme picks
//! the backend.
//!
//! # Written once
//!
//! A store whose statements and logic are the same on both backends is written once, as a macro in
//! its module here (`runs::runs_store!`, …), and expanded in `sqlite::*` and `postgres::*`. Each
//! backend's `mod.rs` gives the names it expands with: `ThisStore`, `Pool`, `Conn` and `DbRow` (its
//! store, pool, connection and row), `begin_write` (a transaction for a read-then-write),
//! `begin_read` (one snapshot for several reads), `FOR_UPDATE` and `FOR_SHARE` (what locks a row
//! read for a write, or keeps it as read), `lock` (an advisory lock from `locks`),
//! `lock_agent_memory` (a bot's memory rows), `BY_BYTES` (text ordered by its bytes) and `in_list`
//! with `list` (a column among a list bound as one parameter). SQLite's write transactions begin
//! IMMEDIATE and take the one write lock at once, so there `FOR_UPDATE` and `FOR_SHARE` are empty and
//! the locks take nothing. Statements number their parameters (`$1`), which both accept; a statement
//! only one backend can run stays in that backend's module, with the reason beside it, and the
//! shared logic calls it by name.

pub(crate) mod agent_tokens;
mod agents;
mod archive;
mod backlog;
mod base;
#[cfg(feature = "bench-seed")]
pub mod bench_seed;
mod cards;
mod cores;
mod draft_sources;
mod erasure;
mod idempotency;
mod inbox;
mod lesson_vectors;
mod lessons;
mod lists;
#[cfg(feature = "bench-lww")]
mod lww;
mod memory_audits;
mod memory_rows;
pub(crate) mod memory_scopes;
mod nightly;
mod operations;
mod org;
mod org_listing;
mod people;
mod persona;
pub mod postgres;
mod run_rows;
mod runs;
pub(crate) mod schedules;
mod sealing;
mod secrets;
mod self_edits;
mod setup;
mod snapshots;
pub mod sqlite;
mod teams;
mod thread_lines;
mod tokens;

use engine::store::{Store, StoreError};
use std::sync::Arc;

pub use postgres::PgStore;
pub use sealing::{Sealed, UnlockError};
pub use sqlite::SqliteStore;

/// A database error as the store reports it: the backend's own words, under `StoreError::Backend`.
pub(crate) fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// Whether the database refused a write for a unique constraint, on either backend.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// `.or_backend()`: any database error, in a result, as [`backend`] reports it.
pub(crate) trait OrBackend<T> {
    fn or_backend(self) -> Result<T, StoreError>;
}

impl<T, E: std::fmt::Display> OrBackend<T> for Result<T, E> {
    fn or_backend(self) -> Result<T, StoreError> {
        self.map_err(backend)
    }
}

/// `.or_duplicate(|| name)`: a write refused for a unique constraint is `StoreError::Duplicate`
/// naming what was taken; any other database error, as [`backend`] reports it.
pub(crate) trait OrDuplicate<T> {
    fn or_duplicate(self, taken: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T> OrDuplicate<T> for Result<T, sqlx::Error> {
    fn or_duplicate(self, taken: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(taken()) } else { backend(e) })
    }
}

/// Advisory lock namespaces (the first key of `pg_advisory_xact_lock(int, int)`), one per ledger or
/// cap, so that unrelated locks never wait on each other.
pub(crate) mod locks {
    pub const CONNECTOR_CALLS: i32 = 1;
    pub const MODEL_CALLS: i32 = 2;
    /// One bot's memory rows. The second key is the bot's name hashed by the database
    /// (`hashtext`), so every server agrees on it.
    pub const AGENT_MEMORY: i32 = 301;
    /// One person's kept cards, while a keep decides and saves their use against the cap.
    pub const PERSON_CARDS: i32 = 401;
    /// The events ledger: ids are given and committed in one order, so a follower never skips one.
    pub const EVENTS: i32 = 501;
    /// One connector's who's-who lists, while a fetch replaces one.
    pub const LIST_SAVES: i32 = 502;
    /// Team names, while a new or renamed team's name is checked against every other, ignoring case.
    pub const TEAM_NAMES: i32 = 601;
    /// Who manages whom, while a change is checked for a circle of managers.
    pub const MANAGERS: i32 = 602;
    /// Who is an admin, while a demotion or a departure counts the admins who would remain.
    pub const ADMINS: i32 = 603;
}

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

    /// The work a start-up does once across servers after migrating (today: writing the match terms
    /// of every card that has none). [`AnyStore::open`] runs it; a migration that clears data for
    /// it to write again is tested by running it without reopening.
    pub async fn start_up_tasks(&self) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.start_up_tasks().await,
            AnyStore::Postgres(s) => s.start_up_tasks().await,
        }
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

/// The columns [`joined_team_from`] reads, for a team `t` read beside something else.
pub(crate) const JOINED_TEAM_COLUMNS: &str =
    "t.id AS team_id, t.name AS team_name, t.lead_id AS team_lead_id, t.role_id AS team_role_id";
/// The columns [`joined_role_from`] reads, for a role `r` read beside something else.
pub(crate) const JOINED_ROLE_COLUMNS: &str =
    "r.slug AS role_slug, r.name AS role_name, r.company_core_limit AS role_limit";

/// A team read beside something else, left-joined ([`JOINED_TEAM_COLUMNS`]), on either backend:
/// `None` when there is none.
pub(crate) fn joined_team_from<'r, R: sqlx::Row>(row: &'r R) -> Option<engine::org::Team>
where
    &'static str: sqlx::ColumnIndex<R>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    use engine::org::{PersonId, RoleId, TeamId};
    row.get::<Option<i64>, _>("team_id").map(|id| engine::org::Team {
        id: TeamId(id),
        name: row.get("team_name"),
        lead: row.get::<Option<i64>, _>("team_lead_id").map(PersonId),
        role: row.get::<Option<i64>, _>("team_role_id").map(RoleId),
    })
}

/// What a run's cores are chosen from, from the rows both backends read for it in one statement:
/// the role and the team beside each current core version found, or one row without a version.
pub(crate) fn run_cores_from<R: sqlx::Row>(
    role: engine::org::RoleId,
    rows: &[R],
    version_from: impl Fn(&R) -> Result<engine::cores::CoreVersion, StoreError>,
) -> Result<Option<engine::cores::RunCores>, StoreError>
where
    &'static str: sqlx::ColumnIndex<R>,
    for<'r> Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let Some(first) = rows.first() else { return Ok(None) };
    let role = joined_role_from(first, Some(role))?.ok_or_else(|| StoreError::Backend("unreadable role".into()))?;
    let mut versions = Vec::new();
    for row in rows.iter().filter(|r| r.get::<Option<i64>, _>("version").is_some()) {
        versions.push(version_from(row)?);
    }
    let company = versions
        .iter()
        .position(|v| matches!(v.scope, engine::cores::CoreScope::Company(_)))
        .map(|i| versions.remove(i));
    let team = joined_team_from(first).map(|t| (t, versions.pop()));
    Ok(Some(engine::cores::RunCores { role, company, team }))
}

/// A team with its role, from a row with [`JOINED_TEAM_COLUMNS`] and [`JOINED_ROLE_COLUMNS`], on
/// either backend.
pub(crate) fn team_with_role_from<'r, R: sqlx::Row>(
    row: &'r R,
) -> Result<(engine::org::Team, Option<engine::org::Role>), StoreError>
where
    &'static str: sqlx::ColumnIndex<R>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let team = joined_team_from(row).ok_or_else(|| StoreError::Backend("unreadable team".into()))?;
    let role = joined_role_from(row, team.role)?;
    Ok((team, role))
}

/// A role read beside something else, left-joined ([`JOINED_ROLE_COLUMNS`]), on either backend,
/// given its id: `None` when there is no role.
pub(crate) fn joined_role_from<'r, R: sqlx::Row>(
    row: &'r R,
    id: Option<engine::org::RoleId>,
) -> Result<Option<engine::org::Role>, StoreError>
where
    &'static str: sqlx::ColumnIndex<R>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let (Some(id), Some(slug), Some(name), Some(limit)) = (
        id,
        row.get::<Option<String>, _>("role_slug"),
        row.get::<Option<String>, _>("role_name"),
        row.get::<Option<i64>, _>("role_limit"),
    ) else {
        return Ok(None);
    };
    let slug = engine::org::RoleSlug::parse(&slug).map_err(|e| StoreError::Backend(e.to_string()))?;
    Ok(Some(engine::org::Role { id, slug, name, company_core_limit: limit as u32 }))
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
