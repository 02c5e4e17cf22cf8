//! API tokens: only a secret's hash is stored.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! tokens_store {
    () => {
        use super::{audit, begin_write, DbRow, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::{Person, PersonId};
        use engine::runs::{Event, NewEvent};
        use engine::store::{Actor, ApiTokenInfo, OrgStore, StoreError, TokenStore};
        use sqlx::Row;

        fn token_from(row: &DbRow) -> ApiTokenInfo {
            ApiTokenInfo {
                id: row.get("id"),
                name: row.get("name"),
                created_at: row.get("created_at"),
                last_used_at: row.get("last_used_at"),
                revoked_at: row.get("revoked_at"),
            }
        }

        #[async_trait]
        impl TokenStore for ThisStore {
            async fn create_api_token(
                &self,
                person: PersonId,
                name: &str,
                secret_hash: &str,
                actor: Actor,
            ) -> Result<ApiTokenInfo, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let row = sqlx::query(
                    "INSERT INTO api_tokens (person_id, name, secret_hash, created_at) VALUES ($1, $2, $3, $4) \
                     RETURNING id, name, created_at, last_used_at, revoked_at",
                )
                .bind(person.0)
                .bind(name)
                .bind(secret_hash)
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let info = token_from(&row);
                audit(&mut tx, actor, "api_token.create", &format!("person:{person}"), &format!("token:{} {name}", info.id))
                    .await?;
                tx.commit().await.or_backend()?;
                Ok(info)
            }

            async fn api_tokens(&self, person: PersonId) -> Result<Vec<ApiTokenInfo>, StoreError> {
                Ok(sqlx::query(
                    "SELECT id, name, created_at, last_used_at, revoked_at FROM api_tokens WHERE person_id = $1 \
                     ORDER BY id DESC",
                )
                .bind(person.0)
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(token_from)
                .collect())
            }

            async fn revoke_api_token(&self, person: PersonId, id: i64, actor: Actor) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let done = sqlx::query(
                    "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND person_id = $3 AND revoked_at IS NULL",
                )
                .bind(actor.at)
                .bind(id)
                .bind(person.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                audit(&mut tx, actor, "api_token.revoke", &format!("person:{person}"), &format!("token:{id}")).await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }

            async fn person_by_token(&self, secret_hash: &str, at: DateTime<Utc>) -> Result<Option<Person>, StoreError> {
                let row = sqlx::query(
                    "UPDATE api_tokens SET last_used_at = $1 WHERE secret_hash = $2 AND revoked_at IS NULL RETURNING person_id",
                )
                .bind(at)
                .bind(secret_hash)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                match row {
                    Some(r) => Ok(self.person(PersonId(r.get("person_id"))).await?.filter(|p| p.left_at.is_none())),
                    None => Ok(None),
                }
            }

            async fn record_sign_in_lock(
                &self,
                person: &Person,
                until: DateTime<Utc>,
                at: DateTime<Utc>,
            ) -> Result<Event, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let detail = format!("wrong passwords; new addresses wait until {}", until.to_rfc3339());
                audit(&mut tx, Actor { person: None, at }, "person.sign_in_locked", &format!("person:{}", person.id), &detail)
                    .await?;
                let event =
                    NewEvent { name: "sign_in_locked".into(), state: Some(person.email.clone()), ..NewEvent::default() };
                let recorded = super::runs::insert_event(&mut tx, &event, at).await?;
                tx.commit().await.or_backend()?;
                Ok(recorded)
            }
        }
    };
}
pub(crate) use tokens_store;
