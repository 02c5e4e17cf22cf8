//! The ForgettingStore: forgotten records, and the daily forgetting job's removals and claim.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `delete_unused_cards`.

macro_rules! forgetting_store {
    () => {
        use super::*;
        use crate::store::OrBackend;
        use engine::cards::store::ForgettingStore;

        #[async_trait]
        impl ForgettingStore for ThisStore {
            async fn forget(
                &self,
                person: PersonId,
                card: &Card,
                until: DateTime<Utc>,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query("DELETE FROM card_uses WHERE person_id = $1 AND card_id = $2")
                    .bind(person.0)
                    .bind(card.id)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                sqlx::query(
                    "INSERT INTO forgotten_records (person_id, connector_id, kind, record_id, until, tool, \
                     forgotten_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (person_id, connector_id, kind, record_id) DO UPDATE SET \
                     until = excluded.until, tool = excluded.tool, forgotten_at = excluded.forgotten_at, lifted_at = NULL, \
                     lifted_reason = NULL",
                )
                .bind(person.0)
                .bind(card.connector)
                .bind(&card.kind)
                .bind(&card.record_id)
                .bind(until)
                .bind(&card.tool)
                .bind(actor.at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                audit(&mut tx, actor, "card.forget", &format!("person:{}", person.0), &format!("card:{}", card.id))
                    .await?;
                tx.commit().await.or_backend()
            }

            async fn forgotten(&self, person: PersonId, now: DateTime<Utc>) -> Result<Vec<Forgotten>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT connector_id, kind, record_id, tool, forgotten_at, until FROM forgotten_records \
                     WHERE person_id = $1 AND lifted_at IS NULL AND until > $2 ORDER BY until DESC, record_id{BY_BYTES}"
                ))
                .bind(person.0)
                .bind(now)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| {
                        let until: DateTime<Utc> = r.get("until");
                        Forgotten {
                            connector: r.get("connector_id"),
                            kind: r.get("kind"),
                            record_id: r.get("record_id"),
                            tool: r.get("tool"),
                            // Rows from before the column existed were forgotten for the full 30 days.
                            forgotten_at: r
                                .get::<Option<DateTime<Utc>>, _>("forgotten_at")
                                .unwrap_or(until - chrono::Duration::days(engine::cards::service::FORGET_DAYS)),
                            until,
                        }
                    })
                    .collect())
            }

            async fn lift_forget(
                &self,
                person: PersonId,
                f: &Forgotten,
                reason: &str,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "UPDATE forgotten_records SET lifted_at = $1, lifted_reason = $2 WHERE person_id = $3 \
                     AND connector_id = $4 AND kind = $5 AND record_id = $6 AND lifted_at IS NULL",
                )
                .bind(actor.at)
                .bind(reason)
                .bind(person.0)
                .bind(f.connector)
                .bind(&f.kind)
                .bind(&f.record_id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                audit(&mut tx, actor, "card.forget_lifted", &format!("person:{}", person.0), reason).await?;
                tx.commit().await.or_backend()
            }

            async fn forgotten_until(
                &self,
                person: PersonId,
                connector: i64,
                kind: &str,
                record_id: &str,
            ) -> Result<Option<DateTime<Utc>>, StoreError> {
                sqlx::query_scalar(
                    "SELECT until FROM forgotten_records WHERE person_id = $1 AND connector_id = $2 AND kind = $3 \
                     AND record_id = $4 AND lifted_at IS NULL",
                )
                .bind(person.0)
                .bind(connector)
                .bind(kind)
                .bind(record_id)
                .fetch_optional(self.pool())
                .await
                .or_backend()
            }

            async fn all_uses(&self) -> Result<Vec<(Card, CardUse)>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
                     JOIN cards c ON c.id = u.card_id ORDER BY c.id",
                    joined_card_columns()
                ))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
            }

            async fn remove_unkept_cards(&self, actor: Actor) -> Result<u32, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let n = delete_unused_cards(&mut tx).await? as u32;
                if n > 0 {
                    audit(&mut tx, actor, "card.remove_unkept", "cards", &format!("{n} cards nobody keeps")).await?;
                }
                tx.commit().await.or_backend()?;
                Ok(n)
            }

            async fn job_last_run(&self, name: &str) -> Result<Option<String>, StoreError> {
                sqlx::query_scalar("SELECT last_local_date FROM job_runs WHERE name = $1")
                    .bind(name)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()
            }

            async fn claim_job_run(&self, name: &str, local_date: &str) -> Result<bool, StoreError> {
                // One statement: of racing claims for the same date, the unique name lets one insert or
                // move the date, and the others find it already there and change nothing.
                let done = sqlx::query(
                    "INSERT INTO job_runs (name, last_local_date) VALUES ($1, $2) \
                     ON CONFLICT (name) DO UPDATE SET last_local_date = excluded.last_local_date \
                     WHERE job_runs.last_local_date <> excluded.last_local_date",
                )
                .bind(name)
                .bind(local_date)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(done.rows_affected() == 1)
            }
        }
    };
}
pub(crate) use forgetting_store;
