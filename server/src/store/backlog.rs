//! The bots' backlog as rows: tasks with their status log, wakeups and episodes, read and written
//! inside the caller's transaction (see `store::persona`).
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! backlog_store {
    () => {
        use super::{Conn, DbRow, ThisStore};
        use crate::store::OrBackend;
        use chrono::{DateTime, Utc};
        use engine::org::PersonId;
        use engine::persona::backlog::{Episode, Improvement, NewTask, Outcome, Task, TaskKind, Wakeup, STATUS_OPEN};
        use engine::store::StoreError;
        use sqlx::Row;

        pub(crate) const TASK_COLUMNS: &str =
            "id, kind, title, body, status, author, assignee, owner_id, agent, target_path, diff, \
             rationale, evidence, base_text, memory_id, closed_reason, created_at, updated_at";
        pub(crate) const EPISODE_COLUMNS: &str =
            "id, agent, run, trigger, task_id, outcome, corrected, turns, cost_usd, duration_s, \
             summary, log_path, transcript_path, created_at";

        fn bad(what: &str) -> StoreError {
            StoreError::Backend(format!("unreadable {what}"))
        }

        pub(crate) fn task_from(row: &DbRow) -> Result<Task, StoreError> {
            let kind = TaskKind::parse(row.get("kind")).ok_or_else(|| bad("task kind"))?;
            let improve = match kind {
                TaskKind::Improve => {
                    let evidence: String = row.get::<Option<String>, _>("evidence").unwrap_or_default();
                    Some(Improvement {
                        agent: row.get::<Option<String>, _>("agent").unwrap_or_default(),
                        target_path: row.get::<Option<String>, _>("target_path").unwrap_or_default(),
                        diff: row.get::<Option<String>, _>("diff").unwrap_or_default(),
                        rationale: row.get::<Option<String>, _>("rationale").unwrap_or_default(),
                        evidence: serde_json::from_str(&evidence).unwrap_or_default(),
                        base_text: row.get::<Option<String>, _>("base_text").unwrap_or_default(),
                        memory_id: row.get("memory_id"),
                    })
                }
                TaskKind::Work => None,
            };
            Ok(Task {
                id: row.get("id"),
                kind,
                title: row.get("title"),
                body: row.get("body"),
                status: row.get("status"),
                author: row.get("author"),
                assignee: row.get("assignee"),
                owner: row.get::<Option<i64>, _>("owner_id").map(PersonId),
                improve,
                closed_reason: row.get("closed_reason"),
                created_at: row.get("created_at"),
                updated_at: row.get("updated_at"),
            })
        }

        pub(crate) fn wakeup_from(row: &DbRow) -> Wakeup {
            Wakeup {
                id: row.get("id"),
                agent: row.get("agent"),
                task: row.get("task_id"),
                reason: row.get("reason"),
                open: row.get::<String, _>("state") == "open",
                wake: row.get("run"),
                opened_at: row.get("opened_at"),
                closed_at: row.get("closed_at"),
            }
        }

        pub(crate) fn episode_from(row: &DbRow) -> Result<Episode, StoreError> {
            Ok(Episode {
                id: row.get("id"),
                agent: row.get("agent"),
                wake: row.get("run"),
                trigger: row.get("trigger"),
                task: row.get("task_id"),
                outcome: Outcome::parse(row.get("outcome")).ok_or_else(|| bad("episode outcome"))?,
                corrected: row.get("corrected"),
                turns: row.get::<Option<i64>, _>("turns").map(|t| t as u32),
                cost_usd: row.get("cost_usd"),
                duration_s: row.get("duration_s"),
                summary: row.get("summary"),
                log_path: row.get("log_path"),
                transcript_path: row.get("transcript_path"),
                created_at: row.get("created_at"),
            })
        }

        pub(crate) async fn episodes_on(
            conn: &mut Conn,
            agent: &str,
            since: Option<DateTime<Utc>>,
        ) -> Result<Vec<Episode>, StoreError> {
            let since_is = if since.is_some() { " AND created_at >= $2" } else { "" };
            let sql = format!(
                "SELECT {EPISODE_COLUMNS} FROM org_agent_episodes WHERE agent = $1{since_is} \
                 ORDER BY created_at DESC, id DESC"
            );
            let mut query = sqlx::query(&sql).bind(agent);
            if let Some(since) = since {
                query = query.bind(since);
            }
            let rows = query.fetch_all(conn).await.or_backend()?;
            rows.iter().map(episode_from).collect()
        }

        /// Posts a status on a task. The task row is updated first, so its row lock orders this post
        /// against `finish_wakeups`, which locks the task before it reads the log.
        pub(crate) async fn insert_status(
            conn: &mut Conn,
            task: i64,
            status: &str,
            note: &str,
            by: &str,
            at: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query("UPDATE tasks SET status = $1, updated_at = $2 WHERE id = $3")
                .bind(status)
                .bind(at)
                .bind(task)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            sqlx::query("INSERT INTO task_status_log (task_id, status, note, by_who, at) VALUES ($1, $2, $3, $4, $5)")
                .bind(task)
                .bind(status)
                .bind(note)
                .bind(by)
                .bind(at)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            Ok(())
        }

        pub(crate) async fn insert_task(conn: &mut Conn, t: &NewTask) -> Result<i64, StoreError> {
            let imp = t.improve.as_ref();
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO tasks (kind, title, body, status, author, assignee, owner_id, agent, target_path, diff, \
                 rationale, evidence, base_text, memory_id, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id",
            )
            .bind(t.kind.as_str())
            .bind(&t.title)
            .bind(&t.body)
            .bind(STATUS_OPEN)
            .bind(&t.author)
            .bind(&t.assignee)
            .bind(t.owner.map(|p| p.0))
            .bind(imp.map(|i| i.agent.clone()).or_else(|| t.assignee.clone()))
            .bind(imp.map(|i| i.target_path.clone()))
            .bind(imp.map(|i| i.diff.clone()))
            .bind(imp.map(|i| i.rationale.clone()))
            .bind(imp.map(|i| serde_json::to_string(&i.evidence).unwrap_or_else(|_| "[]".into())))
            .bind(imp.map(|i| i.base_text.clone()))
            .bind(imp.and_then(|i| i.memory_id))
            .bind(t.at)
            .bind(t.at)
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            insert_status(conn, id, STATUS_OPEN, "", &t.author, t.at).await?;
            Ok(id)
        }

        impl ThisStore {
            pub(crate) async fn episode_by_id(&self, id: i64) -> Result<Option<Episode>, StoreError> {
                let row = sqlx::query(&format!("SELECT {EPISODE_COLUMNS} FROM org_agent_episodes WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(episode_from).transpose()
            }
        }
    };
}
pub(crate) use backlog_store;
