//! The bots' side: tasks, wakeups, episodes, memory rows, the model-call cap and bot tokens.
//!
//! Written once for both backends (see "Written once" in `store`). Each gives, besides the usual
//! names, `begin_as_bot` (a transaction for a bot's reads with its own token) and `lock_wakeups`.
//! Where SQLite begins IMMEDIATE, PostgreSQL keeps concurrent writers apart as follows:
//! - Every write to a bot's memory rows (`apply_ops`, `edit_memory`, `retire_memory`,
//!   `file_proposal`) first takes the bot's memory lock (`lock_agent_memory`), then reads the rows
//!   it will change `FOR UPDATE`. The bot's lock matters for `apply_ops`: its plan turns an add of a
//!   claim already held into a repeat, which only holds if a concurrent reflection's new rows are
//!   visible to it, and a row lock cannot cover rows not yet inserted. Taking the bot's lock before
//!   any row lock keeps the order the same everywhere (no deadlock).
//! - `finish_wakeups` locks its wakeups (in id order) and then their task row before it reads the
//!   task's log, and a posted status updates the task row before it writes the log, so a wake's own
//!   status and the fallback are never both posted.
//! - The daily model-call cap is counted under the shared ledger's advisory lock (`claim_call`).
//! - Settling a task, marking an episode corrected and using a token are single conditional
//!   statements, atomic on their own.

macro_rules! persona_store {
    () => {
        use super::backlog::{
            episode_from, episodes_on, insert_status, insert_task, task_from, wakeup_from, EPISODE_COLUMNS,
            TASK_COLUMNS,
        };
        use super::memory_rows::{
            add_evidence, close_row, insert_row, lock_active_row, mark_promoted, memory_from, memory_rows_on,
            supersede, with_evidence, MEMORY_COLUMNS,
        };
        use super::{
            audit, backend, begin_write, claim_call, is_unique_violation, lock_agent_memory, CallLedger, Conn,
            ThisStore, FOR_UPDATE,
        };
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::PersonId;
        use engine::persona::apply::{plan, RowChange};
        use engine::persona::audn::AudnOp;
        use engine::persona::backlog::{
            AppliedOps, Episode, MemoryRow, NewEpisode, NewTask, StatusEntry, Task, Wakeup, STATUS_OPEN, WAKE_STATUSES,
        };
        use engine::persona::bot_tokens::{AgentToken, PresentedToken};
        use engine::persona::store::{FinishedWake, PersonaStore};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        #[async_trait]
        impl PersonaStore for ThisStore {
            async fn create_task(&self, t: &NewTask) -> Result<Task, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id = insert_task(&mut tx, t).await?;
                tx.commit().await.or_backend()?;
                self.task(id).await?.ok_or_else(|| StoreError::NotFound(format!("task {id}")))
            }

            async fn task(&self, id: i64) -> Result<Option<Task>, StoreError> {
                let row = sqlx::query(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(task_from).transpose()
            }

            async fn task_log(&self, id: i64) -> Result<Vec<StatusEntry>, StoreError> {
                let rows =
                    sqlx::query("SELECT status, note, by_who, at FROM task_status_log WHERE task_id = $1 ORDER BY id")
                        .bind(id)
                        .fetch_all(self.pool())
                        .await
                        .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| StatusEntry {
                        status: r.get("status"),
                        note: r.get("note"),
                        by: r.get("by_who"),
                        at: r.get("at"),
                    })
                    .collect())
            }

            async fn improve_tasks(&self, agent: Option<&str>) -> Result<Vec<Task>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {TASK_COLUMNS} FROM tasks WHERE kind = 'improve' AND (CAST($1 AS TEXT) IS NULL OR agent = \
                     $1) \
                     ORDER BY id DESC"
                ))
                .bind(agent)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(task_from).collect()
            }

            async fn post_task_status(
                &self,
                task: i64,
                status: &str,
                note: &str,
                by: &str,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                insert_status(&mut tx, task, status, note, by, at).await?;
                tx.commit().await.or_backend()
            }

            async fn open_wakeup(
                &self,
                agent: &str,
                task: Option<i64>,
                reason: &str,
                at: DateTime<Utc>,
            ) -> Result<Wakeup, StoreError> {
                // Returned as stored, so it compares equal to the same wakeup read back later.
                let row = sqlx::query(
                    "INSERT INTO wakeups (agent, task_id, reason, state, opened_at) VALUES ($1, $2, $3, 'open', $4) \
                     RETURNING *",
                )
                .bind(agent)
                .bind(task)
                .bind(reason)
                .bind(at)
                .fetch_one(self.pool())
                .await
                .or_backend()?;
                Ok(wakeup_from(&row))
            }

            async fn wakeups(&self, ids: &[i64]) -> Result<Vec<Wakeup>, StoreError> {
                let mut out = Vec::new();
                for id in ids {
                    if let Some(r) = sqlx::query("SELECT * FROM wakeups WHERE id = $1")
                        .bind(id)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?
                    {
                        out.push(wakeup_from(&r));
                    }
                }
                Ok(out)
            }

            async fn finish_wakeups(
                &self,
                ids: &[i64],
                wake: &str,
                fallback: (&str, &str),
                at: DateTime<Utc>,
            ) -> Result<FinishedWake, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_wakeups(&mut tx, ids).await?;
                let mut closed = Vec::new();
                let mut all = Vec::new();
                for id in ids {
                    let r = sqlx::query("SELECT * FROM wakeups WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?
                        .ok_or_else(|| StoreError::NotFound(format!("wakeup {id}")))?;
                    let w = wakeup_from(&r);
                    if w.open {
                        let r = sqlx::query(
                            "UPDATE wakeups SET state = 'closed', run = $1, closed_at = $2 WHERE id = $3 RETURNING *",
                        )
                        .bind(wake)
                        .bind(at)
                        .bind(id)
                        .fetch_one(&mut *tx)
                        .await
                        .or_backend()?;
                        closed.push(wakeup_from(&r));
                    }
                    all.push(w);
                }
                let since = all.iter().map(|w| w.opened_at).min();
                let task = all.iter().find_map(|w| w.task);
                let mut posted = None;
                let mut fallback_posted = false;
                if let (Some(task), Some(since)) = (task, since) {
                    sqlx::query(&format!("SELECT id FROM tasks WHERE id = $1{FOR_UPDATE}"))
                        .bind(task)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                    // The statuses are a fixed list: one placeholder each, so the statement never changes.
                    let marks = (3..3 + WAKE_STATUSES.len()).map(|n| format!("${n}")).collect::<Vec<_>>().join(", ");
                    let sql = format!(
                        "SELECT status FROM task_status_log WHERE task_id = $1 AND at >= $2 AND status IN ({marks}) \
                         ORDER BY id DESC LIMIT 1"
                    );
                    let mut query = sqlx::query_scalar(&sql).bind(task).bind(since);
                    for status in WAKE_STATUSES {
                        query = query.bind(status);
                    }
                    posted = query.fetch_optional(&mut *tx).await.or_backend()?;
                    let terminal = posted.as_deref().is_some_and(|s| s != "in_progress");
                    if !terminal && !closed.is_empty() {
                        insert_status(&mut tx, task, fallback.0, fallback.1, "engram", at).await?;
                        fallback_posted = true;
                    }
                }
                tx.commit().await.or_backend()?;
                Ok(FinishedWake { wakeups: closed, posted, fallback_posted })
            }

            async fn insert_episode(&self, e: &NewEpisode) -> Result<Episode, StoreError> {
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO org_agent_episodes (agent, run, trigger, task_id, outcome, turns, cost_usd, \
                     duration_s, \
                     summary, log_path, transcript_path, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                )
                .bind(&e.agent)
                .bind(&e.wake)
                .bind(&e.trigger)
                .bind(e.task)
                .bind(e.outcome.as_str())
                .bind(e.turns.map(i64::from))
                .bind(e.cost_usd)
                .bind(e.duration_s)
                .bind(&e.summary)
                .bind(&e.log_path)
                .bind(&e.transcript_path)
                .bind(e.at)
                .fetch_one(self.pool())
                .await
                .map_err(|err| {
                    if is_unique_violation(&err) {
                        StoreError::Duplicate(e.wake.clone())
                    } else {
                        backend(err)
                    }
                })?;
                self.episode_by_id(id).await?.ok_or_else(|| StoreError::NotFound(format!("episode {id}")))
            }

            async fn episode_by_wake(&self, agent: &str, wake: &str) -> Result<Option<Episode>, StoreError> {
                let row = sqlx::query(&format!(
                    "SELECT {EPISODE_COLUMNS} FROM org_agent_episodes WHERE agent = $1 AND run = $2"
                ))
                .bind(agent)
                .bind(wake)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                row.as_ref().map(episode_from).transpose()
            }

            async fn episodes(&self, agent: &str, since: Option<DateTime<Utc>>) -> Result<Vec<Episode>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                episodes_on(&mut conn, agent, since).await
            }

            async fn mark_corrected(&self, task: i64, agent: &str) -> Result<Option<Episode>, StoreError> {
                let id: Option<i64> = sqlx::query_scalar(
                    "UPDATE org_agent_episodes SET corrected = TRUE WHERE id = (SELECT id FROM org_agent_episodes \
                     WHERE task_id = $1 AND agent = $2 ORDER BY created_at DESC, id DESC LIMIT 1) RETURNING id",
                )
                .bind(task)
                .bind(agent)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                match id {
                    Some(id) => self.episode_by_id(id).await,
                    None => Ok(None),
                }
            }

            async fn memory_rows(&self, agent: &str, include_closed: bool) -> Result<Vec<MemoryRow>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                memory_rows_on(&mut conn, agent, include_closed).await
            }

            async fn bot_episodes(&self, agent: &str) -> Result<Vec<Episode>, StoreError> {
                let mut tx = begin_as_bot(self, agent).await?;
                let episodes = episodes_on(&mut tx, agent, None).await?;
                tx.commit().await.or_backend()?;
                Ok(episodes)
            }

            async fn bot_memory_rows(&self, agent: &str, include_closed: bool) -> Result<Vec<MemoryRow>, StoreError> {
                let mut tx = begin_as_bot(self, agent).await?;
                let rows = memory_rows_on(&mut tx, agent, include_closed).await?;
                tx.commit().await.or_backend()?;
                Ok(rows)
            }

            async fn memory_row(&self, id: i64) -> Result<Option<MemoryRow>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                let row = sqlx::query(&format!("SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&mut *conn)
                    .await
                    .or_backend()?;
                match row {
                    Some(r) => Ok(with_evidence(&mut conn, vec![memory_from(&r)?]).await?.pop()),
                    None => Ok(None),
                }
            }

            async fn apply_ops(
                &self,
                agent: &str,
                episode: i64,
                ops: &[AudnOp],
                at: DateTime<Utc>,
            ) -> Result<AppliedOps, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_agent_memory(&mut tx, agent).await?;
                let rows = sqlx::query(&format!(
                    "SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE agent = $1 AND state = 'active' \
                     ORDER BY id{FOR_UPDATE}"
                ))
                .bind(agent)
                .fetch_all(&mut *tx)
                .await
                .or_backend()?;
                let active = rows.iter().map(memory_from).collect::<Result<Vec<_>, _>>()?;
                let active = with_evidence(&mut tx, active).await?;
                let changes = plan(&active, ops, episode).map_err(|_| StoreError::Changed { current: 0 })?;
                let mut out = AppliedOps::default();
                let by = format!("reflect:episode:{episode}");
                for change in changes {
                    match change {
                        RowChange::Insert { kind, text, evidence } => {
                            let id = insert_row(&mut tx, agent, kind, &text, 1, at, at, at).await?;
                            add_evidence(&mut tx, id, &evidence).await?;
                            out.added.push(id);
                        }
                        RowChange::Bump { id, episode } => {
                            sqlx::query(
                                "UPDATE org_agent_memory SET times_seen = times_seen + 1, last_seen = $1 WHERE id = $2",
                            )
                            .bind(at)
                            .bind(id)
                            .execute(&mut *tx)
                            .await
                            .or_backend()?;
                            add_evidence(&mut tx, id, &[episode]).await?;
                            out.repeated.push(id);
                        }
                        RowChange::Supersede {
                            old,
                            kind,
                            text,
                            times_seen,
                            first_seen,
                            evidence,
                            proposal,
                            reason,
                        } => {
                            let new = insert_row(&mut tx, agent, kind, &text, times_seen, first_seen, at, at).await?;
                            add_evidence(&mut tx, new, &evidence).await?;
                            if proposal.is_some() {
                                mark_promoted(&mut tx, new, proposal).await?;
                            }
                            close_row(&mut tx, old, &reason, &by, Some(new), at).await?;
                            out.reworded.push((old, new));
                        }
                        RowChange::Close { id, reason } => {
                            close_row(&mut tx, id, &reason, &by, None, at).await?;
                            out.deleted.push(id);
                        }
                    }
                }
                tx.commit().await.or_backend()?;
                Ok(out)
            }

            async fn edit_memory(
                &self,
                id: i64,
                text: &str,
                by: &str,
                at: DateTime<Utc>,
            ) -> Result<MemoryRow, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old = lock_active_row(&mut tx, id).await?;
                let new = supersede(&mut tx, &old, text, &format!("corrected by {by}"), by, at).await?;
                tx.commit().await.or_backend()?;
                self.memory_row(new).await?.ok_or_else(|| StoreError::NotFound(format!("memory {new}")))
            }

            async fn retire_memory(
                &self,
                id: i64,
                reason: &str,
                by: &str,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_active_row(&mut tx, id).await?;
                close_row(&mut tx, id, &format!("retired: {reason}"), by, None, at).await?;
                tx.commit().await.or_backend()
            }

            async fn claim_model_call(
                &self,
                agent: &str,
                purpose: &str,
                day_start: DateTime<Utc>,
                cap: u32,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                claim_call(self.pool(), CallLedger::ModelCall { agent, purpose }, day_start, cap, at).await
            }

            async fn model_calls_since(&self, since: DateTime<Utc>) -> Result<u32, StoreError> {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM reflect_calls WHERE at >= $1")
                    .bind(since)
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                Ok(n as u32)
            }

            async fn file_proposal(&self, task: &NewTask, memory_id: i64) -> Result<Task, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_active_row(&mut tx, memory_id).await?;
                let id = insert_task(&mut tx, task).await?;
                mark_promoted(&mut tx, memory_id, Some(id)).await?;
                tx.commit().await.or_backend()?;
                self.task(id).await?.ok_or_else(|| StoreError::NotFound(format!("task {id}")))
            }

            async fn settle_task(
                &self,
                id: i64,
                status: &str,
                reason: Option<&str>,
                by: PersonId,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // Conditional on the task still being open, so of two settlers exactly one changes it.
                let done = sqlx::query(
                    "UPDATE tasks SET status = $1, closed_reason = $2, closed_by = $3, updated_at = $4 \
                     WHERE id = $5 AND status = $6",
                )
                .bind(status)
                .bind(reason)
                .bind(by.0)
                .bind(at)
                .bind(id)
                .bind(STATUS_OPEN)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if done.rows_affected() != 1 {
                    return Err(StoreError::Changed { current: 0 });
                }
                sqlx::query(
                    "INSERT INTO task_status_log (task_id, status, note, by_who, at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(id)
                .bind(status)
                .bind(reason.unwrap_or(""))
                .bind(format!("person:{}", by.0))
                .bind(at)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let actor = Actor { person: Some(by), at };
                audit(&mut tx, actor, &format!("improve.{status}"), &format!("task:{id}"), reason.unwrap_or(""))
                    .await?;
                tx.commit().await.or_backend()
            }

            async fn create_agent_token(
                &self,
                agent: &str,
                by: PersonId,
                name: &str,
                secret_hash: &str,
                at: DateTime<Utc>,
                expires_at: DateTime<Utc>,
            ) -> Result<i64, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO agent_tokens (agent, created_by, name, secret_hash, created_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                )
                .bind(agent)
                .bind(by.0)
                .bind(name)
                .bind(secret_hash)
                .bind(at)
                .bind(expires_at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let detail = format!("token:{id} {name} until {}", expires_at.to_rfc3339());
                audit(
                    &mut tx,
                    Actor { person: Some(by), at },
                    "agent_token.create",
                    &format!("agent:{agent}"),
                    &detail,
                )
                .await?;
                tx.commit().await.or_backend()?;
                Ok(id)
            }

            async fn agent_token(&self, secret_hash: &str) -> Result<Option<PresentedToken>, StoreError> {
                let row = sqlx::query(
                    "SELECT t.id, t.agent, p.email, t.expires_at, t.revoked_at, t.revoked_why FROM agent_tokens t \
                     JOIN people p ON p.id = t.created_by WHERE t.secret_hash = $1",
                )
                .bind(secret_hash)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|r| PresentedToken {
                    id: r.get("id"),
                    agent: r.get("agent"),
                    made_by_email: r.get("email"),
                    expires_at: r.get("expires_at"),
                    revoked_at: r.get("revoked_at"),
                    revoked_why: r.get("revoked_why"),
                }))
            }

            async fn agent_token_used(&self, id: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
                sqlx::query("UPDATE agent_tokens SET last_used_at = $1 WHERE id = $2")
                    .bind(at)
                    .bind(id)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(())
            }

            async fn agent_tokens(&self, agent: &str) -> Result<Vec<AgentToken>, StoreError> {
                let rows = sqlx::query(
                    "SELECT t.id, t.agent, t.name, p.name AS made_by, t.created_at, t.expires_at, t.last_used_at, \
                     t.revoked_at, t.revoked_why FROM agent_tokens t JOIN people p ON p.id = t.created_by \
                     WHERE t.agent = $1 ORDER BY t.id DESC",
                )
                .bind(agent)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| AgentToken {
                        id: r.get("id"),
                        agent: r.get("agent"),
                        name: r.get("name"),
                        made_by: r.get("made_by"),
                        created_at: r.get("created_at"),
                        expires_at: r.get("expires_at"),
                        last_used_at: r.get("last_used_at"),
                        revoked_at: r.get("revoked_at"),
                        revoked_why: r.get("revoked_why"),
                    })
                    .collect())
            }

            async fn revoke_agent_token(
                &self,
                agent: &str,
                id: i64,
                why: &str,
                actor: Actor,
            ) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let done = sqlx::query(
                    "UPDATE agent_tokens SET revoked_at = $1, revoked_why = $2, revoked_by = $3 \
                     WHERE id = $4 AND agent = $5 AND revoked_at IS NULL",
                )
                .bind(actor.at)
                .bind(why)
                .bind(actor.person.map(|p| p.0))
                .bind(id)
                .bind(agent)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                audit(&mut tx, actor, "agent_token.revoke", &format!("agent:{agent}"), &format!("token:{id} {why}"))
                    .await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }
        }
    };
}
pub(crate) use persona_store;
