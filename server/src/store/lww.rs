//! A deliberately wrong core save, for the lost-update benchmark only: it writes the version after
//! the one it was based on whatever the current version is, replacing a version already there
//! (last write wins). The benchmark's checker must report the saves this loses; that is how it
//! shows it can fail. Compiled only with the `bench-lww` feature, which only the benchmark turns
//! on, and never on the store traits, so no route can reach it.

use super::{AnyStore, PgStore, SqliteStore};
use crate::store::OrBackend;
use engine::cores::NewCoreVersion;
use engine::store::StoreError;

impl SqliteStore {
    #[doc(hidden)]
    pub async fn append_core_version_unchecked(&self, new: &NewCoreVersion) -> Result<u32, StoreError> {
        let version = new.based_on + 1;
        sqlx::query(
            "INSERT INTO core_versions (scope_key, version, body, tokens, author_id, note, restored_from, saved_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope_key, version) DO UPDATE SET body = excluded.body, \
             tokens = excluded.tokens, author_id = excluded.author_id, note = excluded.note, saved_at = excluded.saved_at",
        )
        .bind(new.scope.key())
        .bind(i64::from(version))
        .bind(&new.text)
        .bind(i64::from(new.tokens))
        .bind(new.author.0)
        .bind(&new.note)
        .bind(new.restored_from.map(i64::from))
        .bind(new.at)
        .execute(self.pool())
        .await
        .or_backend()?;
        Ok(version)
    }
}

impl PgStore {
    #[doc(hidden)]
    pub async fn append_core_version_unchecked(&self, new: &NewCoreVersion) -> Result<u32, StoreError> {
        let version = new.based_on + 1;
        sqlx::query(
            "INSERT INTO core_versions (scope_key, version, body, tokens, author_id, note, restored_from, saved_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (scope_key, version) DO UPDATE SET \
             body = excluded.body, tokens = excluded.tokens, author_id = excluded.author_id, note = excluded.note, \
             saved_at = excluded.saved_at",
        )
        .bind(new.scope.key())
        .bind(i64::from(version))
        .bind(&new.text)
        .bind(i64::from(new.tokens))
        .bind(new.author.0)
        .bind(&new.note)
        .bind(new.restored_from.map(i64::from))
        .bind(new.at)
        .execute(self.pool())
        .await
        .or_backend()?;
        Ok(version)
    }
}

impl AnyStore {
    #[doc(hidden)]
    pub async fn append_core_version_unchecked(&self, new: &NewCoreVersion) -> Result<u32, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.append_core_version_unchecked(new).await,
            AnyStore::Postgres(s) => s.append_core_version_unchecked(new).await,
        }
    }
}
