//! Agents' schedules, triggers and pauses.
//!
//! Written once for both backends (see "Written once" in `store`).

use engine::runs::schedules::{Schedule, When};
use engine::store::StoreError;

pub(crate) const SCHEDULE_COLUMNS: &str = "agent_id, instruction, kind, at_value, next_due_at, set_by, set_at";

/// A stored schedule; a kind or value no write makes is the backend's fault, never guessed at.
pub(crate) fn schedule_from(
    agent: i64,
    instruction: String,
    kind: &str,
    value: &str,
    next_due: chrono::DateTime<chrono::Utc>,
    set_by: Option<i64>,
    set_at: chrono::DateTime<chrono::Utc>,
) -> Result<Schedule, StoreError> {
    let when = When::parse(kind, value)
        .map_err(|_| StoreError::Backend(format!("agent {agent} has a schedule stored as {kind} {value}")))?;
    Ok(Schedule {
        agent: engine::org::AgentId(agent),
        instruction,
        when,
        next_due,
        set_by: set_by.map(engine::org::PersonId),
        set_at,
    })
}

macro_rules! schedules_store {
    () => {
        use super::{audit, begin_write, ThisStore, FOR_UPDATE};
        use crate::store::schedules::{schedule_from, SCHEDULE_COLUMNS};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Duration, Utc};
        use engine::org::{AgentId, PersonId};
        use engine::runs::schedules::{NewSchedule, Schedule, ScheduleStore, Trigger, TriggerFire};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        fn schedule_row(r: &super::DbRow) -> Result<Schedule, StoreError> {
            schedule_from(
                r.get("agent_id"),
                r.get("instruction"),
                r.get::<String, _>("kind").as_str(),
                r.get::<String, _>("at_value").as_str(),
                r.get("next_due_at"),
                r.get("set_by"),
                r.get("set_at"),
            )
        }

        #[async_trait]
        impl ScheduleStore for ThisStore {
            async fn schedule(&self, agent: AgentId) -> Result<Option<Schedule>, StoreError> {
                let row = sqlx::query(&format!("SELECT {SCHEDULE_COLUMNS} FROM agent_schedules WHERE agent_id = $1"))
                    .bind(agent.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(schedule_row).transpose()
            }

            async fn set_schedule(
                &self,
                agent: AgentId,
                s: &NewSchedule,
                actor: Actor,
            ) -> Result<Schedule, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old = sqlx::query(&format!(
                    "SELECT {SCHEDULE_COLUMNS} FROM agent_schedules WHERE agent_id = $1{FOR_UPDATE}"
                ))
                .bind(agent.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let old = old.as_ref().map(schedule_row).transpose()?;
                let row = sqlx::query(&format!(
                    "INSERT INTO agent_schedules (agent_id, instruction, kind, at_value, next_due_at, set_by, set_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (agent_id) DO UPDATE SET instruction = excluded.instruction, kind = excluded.kind, \
                     at_value = excluded.at_value, next_due_at = excluded.next_due_at, set_by = excluded.set_by, \
                     set_at = excluded.set_at \
                     RETURNING {SCHEDULE_COLUMNS}"
                ))
                .bind(agent.0)
                .bind(&s.instruction)
                .bind(s.when.kind())
                .bind(s.when.value())
                .bind(s.next_due)
                .bind(actor.person.map(|p| p.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let saved = schedule_row(&row)?;
                // The audit says when it runs, never what the instruction says.
                let detail = match &old {
                    None => format!("set: {}", s.when.words()),
                    Some(o) => {
                        let text = if o.instruction == s.instruction { "same instruction" } else { "instruction changed" };
                        format!("{} → {}, {text}", o.when.words(), s.when.words())
                    }
                };
                audit(&mut tx, actor, "agent.schedule", &agent.0.to_string(), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(saved)
            }

            async fn clear_schedule(&self, agent: AgentId, actor: Actor) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let kind: Option<(String, String)> =
                    sqlx::query_as("DELETE FROM agent_schedules WHERE agent_id = $1 RETURNING kind, at_value")
                        .bind(agent.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?;
                let Some((kind, value)) = kind else { return Ok(false) };
                let was = engine::runs::schedules::When::parse(&kind, &value).map(|w| w.words()).unwrap_or(kind);
                audit(&mut tx, actor, "agent.schedule_cleared", &agent.0.to_string(), &format!("was: {was}")).await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }

            async fn paused(&self, agent: AgentId) -> Result<bool, StoreError> {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM paused_agents WHERE agent_id = $1")
                    .bind(agent.0)
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                Ok(n > 0)
            }

            async fn set_paused(&self, agent: AgentId, paused: bool, actor: Actor) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let changed = if paused {
                    sqlx::query(
                        "INSERT INTO paused_agents (agent_id, paused_by, paused_at) VALUES ($1, $2, $3) \
                         ON CONFLICT (agent_id) DO NOTHING",
                    )
                    .bind(agent.0)
                    .bind(actor.person.map(|p| p.0))
                    .bind(actor.at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?
                    .rows_affected()
                } else {
                    sqlx::query("DELETE FROM paused_agents WHERE agent_id = $1")
                        .bind(agent.0)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?
                        .rows_affected()
                };
                if changed == 0 {
                    return Ok(false);
                }
                let action = if paused { "agent.paused" } else { "agent.resumed" };
                audit(&mut tx, actor, action, &agent.0.to_string(), "").await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }

            async fn due_schedules(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Schedule>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {SCHEDULE_COLUMNS} FROM agent_schedules s WHERE s.next_due_at <= $1 \
                     AND NOT EXISTS (SELECT 1 FROM paused_agents p WHERE p.agent_id = s.agent_id) \
                     ORDER BY s.next_due_at, s.agent_id LIMIT $2"
                ))
                .bind(now)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(schedule_row).collect()
            }

            async fn claim_schedule(
                &self,
                agent: AgentId,
                due: DateTime<Utc>,
                next: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                // One statement: of several servers moving the same due time on, one matches it.
                let n = sqlx::query(
                    "UPDATE agent_schedules SET next_due_at = $3 WHERE agent_id = $1 AND next_due_at = $2 \
                     AND NOT EXISTS (SELECT 1 FROM paused_agents p WHERE p.agent_id = $1)",
                )
                .bind(agent.0)
                .bind(due)
                .bind(next)
                .execute(self.pool())
                .await
                .or_backend()?
                .rows_affected();
                Ok(n == 1)
            }

            async fn trigger(&self, agent: AgentId) -> Result<Option<Trigger>, StoreError> {
                let row: Option<(Option<i64>, DateTime<Utc>)> =
                    sqlx::query_as("SELECT made_by, made_at FROM agent_triggers WHERE agent_id = $1")
                        .bind(agent.0)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                Ok(row.map(|(by, at)| Trigger { agent, made_by: by.map(PersonId), made_at: at }))
            }

            async fn set_trigger(&self, agent: AgentId, secret_hash: &str, actor: Actor) -> Result<Trigger, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let had: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM agent_triggers WHERE agent_id = $1")
                    .bind(agent.0)
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                sqlx::query(
                    "INSERT INTO agent_triggers (agent_id, secret_hash, made_by, made_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (agent_id) DO UPDATE SET secret_hash = excluded.secret_hash, \
                     made_by = excluded.made_by, made_at = excluded.made_at",
                )
                .bind(agent.0)
                .bind(secret_hash)
                .bind(actor.person.map(|p| p.0))
                .bind(actor.at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let detail = if had > 0 { "rotated" } else { "made" };
                audit(&mut tx, actor, "agent.trigger", &agent.0.to_string(), detail).await?;
                tx.commit().await.or_backend()?;
                Ok(Trigger { agent, made_by: actor.person, made_at: actor.at })
            }

            async fn clear_trigger(&self, agent: AgentId, actor: Actor) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let n = sqlx::query("DELETE FROM agent_triggers WHERE agent_id = $1")
                    .bind(agent.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?
                    .rows_affected();
                if n == 0 {
                    return Ok(false);
                }
                audit(&mut tx, actor, "agent.trigger_cleared", &agent.0.to_string(), "").await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }

            async fn fire_trigger(
                &self,
                agent: AgentId,
                secret_hash: &str,
                now: DateTime<Utc>,
                per_hour: u32,
            ) -> Result<TriggerFire, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The trigger's row is held while counting, so two posts never both take the last
                // place in the hour.
                let stored: Option<String> = sqlx::query_scalar(&format!(
                    "SELECT secret_hash FROM agent_triggers WHERE agent_id = $1{FOR_UPDATE}"
                ))
                .bind(agent.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                if stored.as_deref() != Some(secret_hash) {
                    return Ok(TriggerFire::Refused);
                }
                let paused: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM paused_agents WHERE agent_id = $1")
                    .bind(agent.0)
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                if paused > 0 {
                    return Ok(TriggerFire::Paused);
                }
                let hour_ago = now - Duration::hours(1);
                sqlx::query("DELETE FROM trigger_fires WHERE agent_id = $1 AND at <= $2")
                    .bind(agent.0)
                    .bind(hour_ago)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let fired: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM trigger_fires WHERE agent_id = $1 AND at > $2")
                    .bind(agent.0)
                    .bind(hour_ago)
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                if fired >= i64::from(per_hour) {
                    tx.commit().await.or_backend()?;
                    return Ok(TriggerFire::Limited);
                }
                sqlx::query("INSERT INTO trigger_fires (agent_id, at) VALUES ($1, $2)")
                    .bind(agent.0)
                    .bind(now)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                tx.commit().await.or_backend()?;
                Ok(TriggerFire::Fired)
            }

            async fn retry_failed_schedule_runs(
                &self,
                since: DateTime<Utc>,
                at: DateTime<Utc>,
                limit: u32,
            ) -> Result<Vec<engine::runs::RunId>, StoreError> {
                let failed: Vec<i64> = sqlx::query_scalar(
                    "SELECT r.id FROM runs r WHERE r.created_at >= $1 AND r.kind = 'schedule' \
                     AND r.state = 'failed' AND r.retry_of IS NULL \
                     AND NOT EXISTS (SELECT 1 FROM paused_agents p WHERE p.agent_id = r.agent_id) \
                     ORDER BY r.id LIMIT $2",
                )
                .bind(since)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                let mut retried = Vec::new();
                for old in failed {
                    // Each in its own write: the new run and the old one's closing stand or fall
                    // together, and a server that finds the old one already closed keeps nothing.
                    let mut tx = begin_write(self.pool()).await?;
                    let fresh: Option<i64> = sqlx::query_scalar(
                        "INSERT INTO runs (thread_id, message_id, agent_id, for_person_id, kind, state, unwatched, \
                         data_label, sources, review_mode, retry_of, created_at) \
                         SELECT thread_id, message_id, agent_id, for_person_id, kind, 'running', unwatched, \
                         'public', '[]', FALSE, id, $2 FROM runs WHERE id = $1 AND state = 'failed' RETURNING id",
                    )
                    .bind(old)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                    let Some(fresh) = fresh else { continue };
                    let closed = sqlx::query(
                        "UPDATE runs SET state = 'retried', retried_by = $1, retried_at = $2 \
                         WHERE id = $3 AND state = 'failed'",
                    )
                    .bind(fresh)
                    .bind(at)
                    .bind(old)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?
                    .rows_affected();
                    if closed == 0 {
                        // Another server retried it meanwhile: its retry stands, this one goes.
                        continue;
                    }
                    tx.commit().await.or_backend()?;
                    retried.push(engine::runs::RunId(fresh));
                }
                Ok(retried)
            }
        }
    };
}
pub(crate) use schedules_store;
