//! The SQLite backend. Every read-then-write transaction begins IMMEDIATE so two writers never
//! both read the same version and then both write.

mod agent_tokens;
mod agents;
mod archive;
mod backlog;
mod cards;
mod cores;
mod draft_sources;
mod erasure;
mod idempotency;
mod import;
mod inbox;
mod lesson_vectors;
mod lessons;
mod lists;
mod memory_audits;
mod memory_rows;
mod memory_scopes;
mod nightly;
mod operations;
mod org;
mod org_listing;
mod people;
mod persona;
mod runs;
mod schedules;
mod secrets;
mod self_edits;
mod setup;
mod snapshots;
mod teams;
mod thread_lines;
mod tokens;

use crate::store::OrBackend;
use engine::store::StoreError;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{SqliteConnection, SqlitePool};
use std::str::FromStr;
use std::time::Duration;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");

#[derive(Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// Seals and opens connector keys; see `store::sealing`.
    secrets: crate::store::sealing::Secrets,
}

pub(crate) use crate::store::{backend, is_unique_violation, locks};

crate::store::base::base_store!();

/// The names the stores written once in `store::*` expand with here (see "Written once" in `store`).
pub(crate) type ThisStore = SqliteStore;
pub(crate) type Conn = SqliteConnection;
pub(crate) type DbRow = sqlx::sqlite::SqliteRow;
pub(crate) type Pool = SqlitePool;

/// Nothing: SQLite locks no single row, and a write transaction holds the database's one write
/// lock from its start ([`begin_write`]).
pub(crate) const FOR_UPDATE: &str = "";

/// Nothing, as [`FOR_UPDATE`].
pub(crate) const FOR_SHARE: &str = "";

/// Nothing: SQLite's default collation, BINARY, already orders text by its bytes.
pub(crate) const BY_BYTES: &str = "";

/// A column folded as a search compares it (`engine::org::listing::fold`): SQLite's `lower` folds
/// A to Z and nothing else, compared by bytes. The migrations index the same expression.
pub(crate) fn folded(column: &str) -> String {
    format!("lower({column})")
}

/// A transaction for a read-then-write. It begins IMMEDIATE, taking the write lock at once, so two
/// writers never both read the same version and then both write.
pub(crate) async fn begin_write(pool: &SqlitePool) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
    pool.begin_with("BEGIN IMMEDIATE").await.or_backend()
}

/// A transaction for several reads that must agree with each other: a deferred one, which in WAL
/// mode reads one snapshot from its first read to its end, and blocks no writer.
pub(crate) async fn begin_read(pool: &SqlitePool) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
    pool.begin().await.or_backend()
}

/// A condition that `column` is one of a list bound as parameter `$n` (see [`list`]): SQLite has no
/// arrays, so the list is bound as one JSON array and read back with `json_each`, and the statement
/// is the same whatever the list's length.
pub(crate) fn in_list(column: &str, n: usize) -> String {
    format!("{column} IN (SELECT value FROM json_each(${n}))")
}

/// A list as [`in_list`] binds it: a JSON array.
pub(crate) fn list<T: serde::Serialize>(values: &[T]) -> String {
    serde_json::to_string(values).unwrap_or_default()
}

/// Takes no lock: a write transaction here begins IMMEDIATE and so already excludes every other
/// writer, which the advisory locks of PostgreSQL stand in for there.
pub(crate) async fn lock(_conn: &mut SqliteConnection, _namespace: i32, _key: i64) -> Result<(), StoreError> {
    Ok(())
}

/// Takes no lock: every write to a bot's memory rows runs in a transaction begun IMMEDIATE
/// ([`begin_write`]), which already excludes every other writer.
pub(crate) async fn lock_agent_memory(_conn: &mut SqliteConnection, _agent: &str) -> Result<(), StoreError> {
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) the database file and applies migrations.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)
            .or_backend()?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // A request that cannot get a connection fails, logged, within the busy timeout rather
        // than waiting out sqlx's 30 s default. A local file cannot drop a connection, so none is
        // pinged before use: that would be one more round trip to SQLite's thread per statement.
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .test_before_acquire(false)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .or_backend()?;
        MIGRATOR.run(&pool).await.or_backend()?;
        let store = Self { pool, secrets: None };
        store.start_up_tasks().await?;
        Ok(store)
    }

    /// The work a start-up does once after migrating: the match terms of every card that has none.
    pub(crate) async fn start_up_tasks(&self) -> Result<(), StoreError> {
        cards::terms::index_once(&self.pool).await
    }

    /// Opens an existing database without writing to it, for the CLI's read-only commands.
    pub async fn open_read_only(url: &str) -> Result<Self, StoreError> {
        let options =
            SqliteConnectOptions::from_str(url).or_backend()?.read_only(true).busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new().max_connections(2).connect_with(options).await.or_backend()?;
        Ok(Self { pool, secrets: None })
    }
}
