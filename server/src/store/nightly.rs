//! The nightly job's marks, the spend ledger, memory's budget and its stops.
//!
//! Written once for both backends (see "Written once" in `store`).

use crate::store::OrBackend;
use engine::lessons::Evidence;
use engine::store::StoreError;

/// Whose a run is to the job: an ask is the person's it acted for, scheduled work its agent's
/// owner's. Other runs are never read.
pub(crate) const RUN_PERSON: &str = "CASE WHEN r.kind = 'ask' THEN r.for_person_id ELSE a.owner_id END";
pub(crate) const READ_KINDS: &str = "r.state = 'answered' AND r.kind IN ('ask', 'schedule')";

/// The stored evidence with the new pieces after it, each once.
pub(crate) fn merged_evidence(stored: &str, more: &[Evidence]) -> Result<String, StoreError> {
    let mut all: Vec<Evidence> =
        serde_json::from_str(stored).map_err(|_| StoreError::Backend("a stored lesson has bad evidence".into()))?;
    for e in more {
        if !all.contains(e) {
            all.push(*e);
        }
    }
    serde_json::to_string(&all).or_backend()
}

macro_rules! nightly_store {
    () => {
        use super::{audit, begin_write, ThisStore};
        use crate::store::nightly::{merged_evidence, READ_KINDS, RUN_PERSON};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::learning::nightly::{BudgetStop, NightlyStore, Queued, Spend, WorkKind};
        use engine::lessons::Evidence;
        use engine::org::PersonId;
        use engine::runs::store::RunStore;
        use engine::runs::{Run, RunId};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        #[async_trait]
        impl NightlyStore for ThisStore {
            async fn nightly_queue(&self) -> Result<Vec<Queued>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT o.person_id, COALESCE(m.personal_through, 0) AS personal_through, \
                            COALESCE(m.shared_through, 0) AS shared_through, \
                            COALESCE(m.private_through, 0) AS private_through, m.left_out_on IS NOT NULL AS left_out \
                     FROM (SELECT {RUN_PERSON} AS person_id, \
                                  MAX(CASE WHEN r.kind = 'ask' AND NOT a.private THEN r.id ELSE 0 END) AS newest_personal, \
                                  MAX(CASE WHEN r.kind = 'ask' AND a.private THEN r.id ELSE 0 END) AS newest_private, \
                                  MAX(CASE WHEN r.kind = 'schedule' THEN r.id ELSE 0 END) AS newest_shared \
                           FROM runs r JOIN agents a ON a.id = r.agent_id WHERE {READ_KINDS} GROUP BY 1) o \
                     LEFT JOIN nightly_marks m ON m.person_id = o.person_id \
                     WHERE o.person_id IS NOT NULL AND (o.newest_personal > COALESCE(m.personal_through, 0) \
                           OR o.newest_shared > COALESCE(m.shared_through, 0) \
                           OR o.newest_private > COALESCE(m.private_through, 0)) \
                     ORDER BY left_out DESC, o.person_id"
                ))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| Queued {
                        person: PersonId(r.get("person_id")),
                        personal_through: RunId(r.get("personal_through")),
                        shared_through: RunId(r.get("shared_through")),
                        private_through: RunId(r.get("private_through")),
                        left_out: r.get("left_out"),
                    })
                    .collect())
            }

            async fn runs_to_read(&self, person: PersonId, after: RunId, limit: u32) -> Result<Vec<Run>, StoreError> {
                let ids: Vec<i64> = sqlx::query_scalar(&format!(
                    "SELECT r.id FROM runs r JOIN agents a ON a.id = r.agent_id \
                     WHERE {READ_KINDS} AND {RUN_PERSON} = $1 AND r.id > $2 ORDER BY r.id LIMIT $3"
                ))
                .bind(person.0)
                .bind(after.0)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                let mut runs = Vec::with_capacity(ids.len());
                for id in ids {
                    if let Some(r) = self.run(RunId(id)).await? {
                        runs.push(r);
                    }
                }
                Ok(runs)
            }

            async fn mark_read(&self, person: PersonId, kinds: &[WorkKind], through: RunId) -> Result<(), StoreError> {
                let upto = |kind| if kinds.contains(&kind) { through.0 } else { 0 };
                sqlx::query(&format!(
                    "INSERT INTO nightly_marks (person_id, personal_through, shared_through, private_through, left_out_on) \
                     VALUES ($1, $2, $3, $4, NULL) \
                     ON CONFLICT (person_id) DO UPDATE SET \
                     personal_through = {GREATEST}(nightly_marks.personal_through, excluded.personal_through), \
                     shared_through = {GREATEST}(nightly_marks.shared_through, excluded.shared_through), \
                     private_through = {GREATEST}(nightly_marks.private_through, excluded.private_through), left_out_on = NULL"
                ))
                .bind(person.0)
                .bind(upto(WorkKind::Personal))
                .bind(upto(WorkKind::Shared))
                .bind(upto(WorkKind::Private))
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(())
            }

            async fn record_budget_stop(&self, stop: &BudgetStop, left_out: &[PersonId]) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "INSERT INTO budget_stops (local_date, budget_cents, left_out, at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (local_date) DO UPDATE SET budget_cents = excluded.budget_cents, \
                     left_out = excluded.left_out, at = excluded.at",
                )
                .bind(&stop.local_date)
                .bind(i64::from(stop.budget_cents))
                .bind(i64::from(stop.left_out))
                .bind(stop.at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                for p in left_out {
                    sqlx::query(
                        "INSERT INTO nightly_marks (person_id, personal_through, shared_through, left_out_on) VALUES ($1, 0, 0, $2) \
                         ON CONFLICT (person_id) DO UPDATE SET left_out_on = excluded.left_out_on",
                    )
                    .bind(p.0)
                    .bind(&stop.local_date)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                tx.commit().await.or_backend()
            }

            async fn budget_stops(&self, limit: u32) -> Result<Vec<BudgetStop>, StoreError> {
                let rows = sqlx::query(
                    "SELECT local_date, budget_cents, left_out, at FROM budget_stops ORDER BY local_date DESC LIMIT $1",
                )
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| BudgetStop {
                        local_date: r.get("local_date"),
                        budget_cents: r.get::<i64, _>("budget_cents").try_into().unwrap_or(0),
                        left_out: r.get::<i64, _>("left_out").try_into().unwrap_or(0),
                        at: r.get::<DateTime<Utc>, _>("at"),
                    })
                    .collect())
            }

            async fn add_spend(&self, spend: &Spend) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO memory_spend (local_date, purpose, model, millicents, at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&spend.local_date)
                .bind(&spend.purpose)
                .bind(&spend.model)
                .bind(i64::try_from(spend.millicents).unwrap_or(i64::MAX))
                .bind(spend.at)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(())
            }

            async fn spent_on(&self, local_date: &str) -> Result<u64, StoreError> {
                let total: i64 =
                    sqlx::query_scalar("SELECT CAST(COALESCE(SUM(millicents), 0) AS BIGINT) FROM memory_spend WHERE local_date = $1")
                        .bind(local_date)
                        .fetch_one(self.pool())
                        .await
                        .or_backend()?;
                Ok(total.try_into().unwrap_or(0))
            }

            async fn memory_budget(&self) -> Result<Option<u32>, StoreError> {
                let cents: Option<i64> = sqlx::query_scalar("SELECT daily_budget_cents FROM memory_settings WHERE id = 1")
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(cents.map(|c| c.try_into().unwrap_or(0)))
            }

            async fn set_memory_budget(&self, cents: u32, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old: Option<i64> = sqlx::query_scalar("SELECT daily_budget_cents FROM memory_settings WHERE id = 1")
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                sqlx::query(
                    "INSERT INTO memory_settings (id, daily_budget_cents) VALUES (1, $1) \
                     ON CONFLICT (id) DO UPDATE SET daily_budget_cents = excluded.daily_budget_cents",
                )
                .bind(i64::from(cents))
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let was = old.map(|c| format!("{c} cents")).unwrap_or_else(|| "the default".into());
                audit(&mut tx, actor, "memory.budget", "company", &format!("{was} → {cents} cents a day")).await?;
                tx.commit().await.or_backend()
            }

            async fn confirm_lesson(&self, id: i64, evidence: &[Evidence], at: DateTime<Utc>) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let stored: Option<String> =
                    sqlx::query_scalar("SELECT evidence FROM lessons WHERE id = $1 AND state = 'accepted'")
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?;
                let Some(stored) = stored else { return Err(StoreError::Changed { current: 0 }) };
                let merged = merged_evidence(&stored, evidence)?;
                sqlx::query(
                    "UPDATE lessons SET evidence = $1, confirmed = TRUE, checked_at = COALESCE(checked_at, $2) WHERE id = $3",
                )
                .bind(merged)
                .bind(at)
                .bind(id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                tx.commit().await.or_backend()
            }
        }
    };
}
pub(crate) use nightly_store;
