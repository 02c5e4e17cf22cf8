//! The SQLite backend's ForgettingStore: forgotten records, and the daily forgetting job's removals and claim.

use super::*;
use crate::store::OrBackend;
use engine::cards::store::ForgettingStore;

#[async_trait]
impl ForgettingStore for SqliteStore {
    async fn forget(
        &self,
        person: PersonId,
        card: &Card,
        until: DateTime<Utc>,
        actor: Actor,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        sqlx::query("DELETE FROM card_uses WHERE person_id = ? AND card_id = ?")
            .bind(person.0)
            .bind(card.id)
            .execute(&mut *tx)
            .await
            .or_backend()?;
        sqlx::query(
            "INSERT INTO forgotten_records (person_id, connector_id, kind, record_id, until, tool, forgotten_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (person_id, connector_id, kind, record_id) DO UPDATE SET \
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
        audit(&mut tx, actor, "card.forget", &format!("person:{}", person.0), &format!("card:{}", card.id)).await?;
        tx.commit().await.or_backend()
    }

    async fn forgotten(&self, person: PersonId, now: DateTime<Utc>) -> Result<Vec<Forgotten>, StoreError> {
        let rows = sqlx::query(
            "SELECT connector_id, kind, record_id, tool, forgotten_at, until FROM forgotten_records \
             WHERE person_id = ? AND lifted_at IS NULL AND until > ? ORDER BY until DESC, record_id",
        )
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

    async fn lift_forget(&self, person: PersonId, f: &Forgotten, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        sqlx::query(
            "UPDATE forgotten_records SET lifted_at = ?, lifted_reason = ? WHERE person_id = ? AND connector_id = ? \
             AND kind = ? AND record_id = ? AND lifted_at IS NULL",
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
            "SELECT until FROM forgotten_records WHERE person_id = ? AND connector_id = ? AND kind = ? AND record_id = ? \
             AND lifted_at IS NULL",
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
        let cols = CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {cols}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
             JOIN cards c ON c.id = u.card_id ORDER BY c.id"
        ))
        .fetch_all(self.pool())
        .await
        .or_backend()?;
        rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
    }

    async fn remove_unkept_cards(&self, actor: Actor) -> Result<u32, StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        let done = sqlx::query("DELETE FROM cards WHERE id NOT IN (SELECT card_id FROM card_uses)")
            .execute(&mut *tx)
            .await
            .or_backend()?;
        let n = done.rows_affected() as u32;
        if n > 0 {
            audit(&mut tx, actor, "card.remove_unkept", "cards", &format!("{n} cards nobody keeps")).await?;
        }
        tx.commit().await.or_backend()?;
        Ok(n)
    }

    async fn job_last_run(&self, name: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT last_local_date FROM job_runs WHERE name = ?")
            .bind(name)
            .fetch_optional(self.pool())
            .await
            .or_backend()
    }

    async fn claim_job_run(&self, name: &str, local_date: &str) -> Result<bool, StoreError> {
        // One statement: of racing claims for the same date, the unique name lets one insert or
        // move the date, and the others find it already there and change nothing.
        let done = sqlx::query(
            "INSERT INTO job_runs (name, last_local_date) VALUES (?, ?) \
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
