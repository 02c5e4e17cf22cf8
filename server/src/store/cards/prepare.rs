//! The PrepareStore: Prepare my day's settings, zones, the roles' "my work" queries and the daily claim.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! prepare_store {
    () => {
        use super::super::{begin_write, ThisStore};
        use super::*;
        use crate::store::OrBackend;
        use engine::cards::store::PrepareStore;

        #[async_trait]
        impl PrepareStore for ThisStore {
            async fn my_work_queries(&self, role: RoleId) -> Result<Vec<MyWorkQuery>, StoreError> {
                let rows = sqlx::query("SELECT * FROM my_work_queries WHERE role_id = $1 ORDER BY id")
                    .bind(role.0)
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| MyWorkQuery {
                        id: r.get("id"),
                        role: RoleId(r.get("role_id")),
                        connector: r.get("connector_id"),
                        tool: r.get("tool"),
                        arguments: r.get("arguments"),
                        label: r.get("label"),
                    })
                    .collect())
            }

            async fn add_my_work_query(&self, q: &MyWorkQuery, actor: Actor) -> Result<MyWorkQuery, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO my_work_queries (role_id, connector_id, tool, arguments, label, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                )
                .bind(q.role.0)
                .bind(q.connector)
                .bind(&q.tool)
                .bind(&q.arguments)
                .bind(&q.label)
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                audit(&mut tx, actor, "my_work.add", &format!("role:{}", q.role.0), &q.label).await?;
                tx.commit().await.or_backend()?;
                Ok(MyWorkQuery { id, ..q.clone() })
            }

            async fn prepare_setting(&self, person: PersonId) -> Result<PrepareSetting, StoreError> {
                let row = sqlx::query("SELECT * FROM prepare_my_day WHERE person_id = $1")
                    .bind(person.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(row
                    .map(|r| PrepareSetting {
                        enabled: r.get("enabled"),
                        at_time: r.get("at_time"),
                        last_local_date: r.get("last_local_date"),
                    })
                    .unwrap_or_default())
            }

            async fn save_prepare_setting(&self, person: PersonId, s: &PrepareSetting) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO prepare_my_day (person_id, enabled, at_time, last_local_date) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (person_id) DO UPDATE SET enabled = excluded.enabled, at_time = excluded.at_time, \
                     last_local_date = excluded.last_local_date",
                )
                .bind(person.0)
                .bind(s.enabled)
                .bind(&s.at_time)
                .bind(&s.last_local_date)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(())
            }

            async fn prepare_enabled(&self) -> Result<Vec<(PersonId, PrepareSetting)>, StoreError> {
                let rows = sqlx::query("SELECT * FROM prepare_my_day WHERE enabled ORDER BY person_id")
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| {
                        (
                            PersonId(r.get("person_id")),
                            PrepareSetting {
                                enabled: true,
                                at_time: r.get("at_time"),
                                last_local_date: r.get("last_local_date"),
                            },
                        )
                    })
                    .collect())
            }

            async fn person_time_zone(&self, person: PersonId) -> Result<Option<String>, StoreError> {
                let tz: Option<Option<String>> = sqlx::query_scalar("SELECT time_zone FROM people WHERE id = $1")
                    .bind(person.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(tz.flatten())
            }

            async fn set_person_time_zone(&self, person: PersonId, zone: Option<&str>, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("UPDATE people SET time_zone = $1 WHERE id = $2")
                    .bind(zone)
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                audit(&mut tx, actor, "person.time_zone", &format!("person:{}", person.0), zone.unwrap_or("company's")).await?;
                tx.commit().await.or_backend()
            }

            async fn claim_prepare(&self, person: PersonId, local_date: &str) -> Result<bool, StoreError> {
                let done = sqlx::query(
                    "UPDATE prepare_my_day SET last_local_date = $1 \
                     WHERE person_id = $2 AND (last_local_date IS NULL OR last_local_date <> $3)",
                )
                .bind(local_date)
                .bind(person.0)
                .bind(local_date)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(done.rows_affected() == 1)
            }
        }
    };
}
pub(crate) use prepare_store;
