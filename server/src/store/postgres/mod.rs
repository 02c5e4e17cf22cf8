//! The PostgreSQL backend, for organisations that run several servers on one database.

mod cards;
mod org;
mod persona;

use engine::store::StoreError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;
use std::str::FromStr;
use std::time::Duration;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
}

pub(crate) fn backend(e: sqlx::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}

pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// Placeholder for a method not yet written for this backend.
pub(crate) fn not_yet() -> StoreError {
    StoreError::Backend("not yet written for PostgreSQL".into())
}

impl PgStore {
    /// Connects and applies migrations.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).map_err(backend)?;
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(backend)?;
        MIGRATOR.run(&pool).await.map_err(|e| StoreError::Backend(e.to_string()))?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    pub async fn is_empty(&self) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM company").fetch_one(&self.pool).await.map_err(backend)?;
        Ok(n == 0)
    }
}
