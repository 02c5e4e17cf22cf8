//! Idempotency keys.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! idempotency_store {
    () => {
        use super::{begin_write, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::store::{IdemClaim, IdempotencyStore, StoreError};
        use sqlx::Row;

        #[async_trait]
        impl IdempotencyStore for ThisStore {
            async fn idem_claim(
                &self,
                scope: &str,
                key: &str,
                route: &str,
                body_hash: &str,
                at: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<IdemClaim, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND created_at < $3")
                    .bind(scope)
                    .bind(key)
                    .bind(stale_before)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let claimed = sqlx::query(
                    "INSERT INTO idempotency_keys (scope, key, route, body_hash, created_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (scope, key) DO NOTHING",
                )
                .bind(scope)
                .bind(key)
                .bind(route)
                .bind(body_hash)
                .bind(at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let found = if claimed.rows_affected() == 1 {
                    IdemClaim::Fresh
                } else {
                    let row = sqlx::query(
                        "SELECT route, body_hash, status, body FROM idempotency_keys WHERE scope = $1 AND key = $2",
                    )
                    .bind(scope)
                    .bind(key)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                    // Gone between the insert and the read: released by a refusal a moment ago.
                    let Some(row) = row else {
                        tx.commit().await.or_backend()?;
                        return Ok(IdemClaim::InFlight);
                    };
                    let (was_route, was_hash): (String, String) = (row.get("route"), row.get("body_hash"));
                    let status: Option<i32> = row.get("status");
                    let body: Option<Vec<u8>> = row.get("body");
                    if was_route != route || was_hash != body_hash {
                        IdemClaim::Mismatch
                    } else {
                        match status {
                            Some(status) => IdemClaim::Replay { status: status as u16, body: body.unwrap_or_default() },
                            None => IdemClaim::InFlight,
                        }
                    }
                };
                tx.commit().await.or_backend()?;
                Ok(found)
            }

            async fn idem_finish(&self, scope: &str, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError> {
                sqlx::query("UPDATE idempotency_keys SET status = $1, body = $2 WHERE scope = $3 AND key = $4")
                    .bind(i32::from(status))
                    .bind(body)
                    .bind(scope)
                    .bind(key)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(())
            }

            async fn idem_release(&self, scope: &str, key: &str) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status IS NULL")
                    .bind(scope)
                    .bind(key)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(())
            }

            async fn idem_purge_before(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
                let done = sqlx::query("DELETE FROM idempotency_keys WHERE created_at < $1")
                    .bind(before)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(done.rows_affected())
            }
        }
    };
}
pub(crate) use idempotency_store;
