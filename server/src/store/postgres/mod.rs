//! The PostgreSQL backend, for organisations that run several servers on one database.
//!
//! How concurrent writers are kept apart, where SQLite would begin IMMEDIATE:
//! - Core versions rely on the unique `(scope_key, version)` constraint: a save inserts the version
//!   after the one it was based on, and the loser of a race gets the violation, which becomes the
//!   retry-free refusal `StoreError::Changed { current }`. No row is locked.
//! - Read-then-write on one existing row takes `SELECT … FOR UPDATE` on that row.
//! - A count checked against a cap (calls per hour, per day) has no row to lock, so it takes a
//!   transaction-scoped advisory lock (`pg_advisory_xact_lock`) on the ledger first: see `claim_call`.

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
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgConnection, PgPool};
use std::str::FromStr;
use std::time::Duration;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
    /// Seals and opens connector keys; see `store::sealing`.
    secrets: crate::store::sealing::Secrets,
}

pub(crate) use crate::store::{backend, is_unique_violation, locks};

crate::store::base::base_store!();

/// The names the stores written once in `store::*` expand with here (see "Written once" in `store`).
pub(crate) type ThisStore = PgStore;
pub(crate) type Conn = PgConnection;
pub(crate) type DbRow = sqlx::postgres::PgRow;
pub(crate) type Pool = PgPool;

/// Locks the row a read-then-write reads, until the transaction ends.
pub(crate) const FOR_UPDATE: &str = " FOR UPDATE";

/// Keeps the row a read-then-write depends on as read, without writing it, until the transaction ends.
pub(crate) const FOR_SHARE: &str = " FOR SHARE";

/// Orders text by its bytes, as SQLite does, whatever the database's locale.
pub(crate) const BY_BYTES: &str = " COLLATE \"C\"";

/// A column folded as a search compares it (`engine::org::listing::fold`): A to Z and nothing else,
/// as SQLite's `lower` folds (PostgreSQL's folds every letter its locale knows), compared by bytes.
/// The migrations index the same expression.
pub(crate) fn folded(column: &str) -> String {
    format!("translate({column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\"")
}

/// A transaction for a read-then-write: the rows it depends on are locked as it reads them
/// ([`FOR_UPDATE`], [`lock`]).
pub(crate) async fn begin_write(pool: &PgPool) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, StoreError> {
    pool.begin().await.or_backend()
}

/// A read-only transaction that sees one snapshot throughout, so several reads agree with each other.
pub(crate) async fn begin_read(pool: &PgPool) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, StoreError> {
    pool.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await.or_backend()
}

/// A condition that `column` is one of a list bound as parameter `$n` (see [`list`]): one array, so
/// the statement is the same whatever the list's length.
pub(crate) fn in_list(column: &str, n: usize) -> String {
    format!("{column} = ANY(${n})")
}

/// A list as [`in_list`] binds it: an array.
pub(crate) fn list<T>(values: &[T]) -> &[T] {
    values
}

/// Serialises the rest of the transaction with every other one that takes the same lock; released
/// at commit or rollback. The key is folded into 32 bits: a collision only serialises more than
/// needed, it never lets two holders in at once.
pub(crate) async fn lock(conn: &mut PgConnection, namespace: i32, key: i64) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
        .bind(namespace)
        .bind((key % i64::from(i32::MAX)) as i32)
        .execute(conn)
        .await
        .or_backend()?;
    Ok(())
}

/// Serialises the rest of the transaction with every other write to the bot's memory rows. An
/// advisory lock rather than row locks: a reflection's plan depends on rows a concurrent one may
/// be about to insert, which no row lock covers. The bot's name is hashed by the database
/// (`hashtext`), so every server agrees on the key.
pub(crate) async fn lock_agent_memory(conn: &mut PgConnection, agent: &str) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
        .bind(locks::AGENT_MEMORY)
        .bind(agent)
        .execute(conn)
        .await
        .or_backend()?;
    Ok(())
}

/// How long a pooled connection may lie idle and still be handed out without a ping first. A ping
/// is a round trip of its own, which a run's twenty or so reads would each wait for. A connection
/// in use less than a second ago is alive but for a rare mishap, which fails one read and closes
/// the connection when it is released (the pool pings it then); after a restart of the database,
/// which takes longer than that, every connection is pinged before it is handed out again.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(1);

impl PgStore {
    /// Connects and applies migrations.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).or_backend()?;
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for > IDLE_BEFORE_PING {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
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

    /// Connects without migrating, in sessions that refuse every write, for the CLI's read-only
    /// commands.
    pub async fn open_read_only(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).or_backend()?.options([("default_transaction_read_only", "on")]);
        let pool = PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .or_backend()?;
        Ok(Self { pool, secrets: None })
    }
}
