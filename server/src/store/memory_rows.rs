//! A bot's memory rows, as every writer of them shares them (the bots' side and their self-edits):
//! reading a row with its evidence, and inserting, closing and superseding a row inside the caller's
//! transaction. Each backend gives `lock_agent_memory`, which serialises the writes to one bot's rows.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! memory_rows_store {
    () => {
        use super::{lock_agent_memory, Conn, DbRow, FOR_UPDATE};
        use crate::store::OrBackend;
        use chrono::{DateTime, Utc};
        use engine::persona::backlog::MemoryRow;
        use engine::persona::render::MemoryKind;
        use engine::store::StoreError;
        use sqlx::Row;

        fn bad(what: &str) -> StoreError {
            StoreError::Backend(format!("unreadable {what}"))
        }

        pub(crate) const MEMORY_COLUMNS: &str =
            "id, agent, kind, text, times_seen, worth, first_seen, last_seen, state, closed_at, \
             closed_reason, closed_by, superseded_by, promoted_to_proposal, proposal_task_id";

        pub(crate) fn memory_from(row: &DbRow) -> Result<MemoryRow, StoreError> {
            Ok(MemoryRow {
                id: row.get("id"),
                agent: row.get("agent"),
                kind: MemoryKind::parse(row.get("kind")).ok_or_else(|| bad("memory kind"))?,
                text: row.get("text"),
                times_seen: row.get::<i64, _>("times_seen") as u32,
                worth: row.get::<i64, _>("worth") as i32,
                first_seen: row.get("first_seen"),
                last_seen: row.get("last_seen"),
                active: row.get::<String, _>("state") == "active",
                closed_at: row.get("closed_at"),
                closed_reason: row.get("closed_reason"),
                closed_by: row.get("closed_by"),
                superseded_by: row.get("superseded_by"),
                promoted_to_proposal: row.get("promoted_to_proposal"),
                proposal_task_id: row.get("proposal_task_id"),
                evidence: Vec::new(),
            })
        }

        pub(crate) async fn with_evidence(
            conn: &mut Conn,
            mut rows: Vec<MemoryRow>,
        ) -> Result<Vec<MemoryRow>, StoreError> {
            for r in rows.iter_mut() {
                r.evidence = sqlx::query_scalar(
                    "SELECT episode_id FROM org_agent_memory_evidence WHERE memory_id = $1 ORDER BY episode_id",
                )
                .bind(r.id)
                .fetch_all(&mut *conn)
                .await
                .or_backend()?;
            }
            Ok(rows)
        }

        pub(crate) async fn memory_rows_on(
            conn: &mut Conn,
            agent: &str,
            include_closed: bool,
        ) -> Result<Vec<MemoryRow>, StoreError> {
            let rows = sqlx::query(&format!(
                "SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE agent = $1 AND ($2 OR state = 'active') ORDER BY \
                 id"
            ))
            .bind(agent)
            .bind(include_closed)
            .fetch_all(&mut *conn)
            .await
            .or_backend()?;
            let rows = rows.iter().map(memory_from).collect::<Result<Vec<_>, _>>()?;
            with_evidence(conn, rows).await
        }

        /// Locks a row's bot for the rest of the transaction, then the row itself, and reads it; `NotFound`
        /// when there is no such row, `Changed` when it is no longer active.
        pub(crate) async fn lock_active_row(conn: &mut Conn, id: i64) -> Result<MemoryRow, StoreError> {
            // A row's bot never changes, so reading it before the lock is safe.
            let agent: String = sqlx::query_scalar("SELECT agent FROM org_agent_memory WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
                .ok_or_else(|| StoreError::NotFound(format!("memory {id}")))?;
            lock_agent_memory(conn, &agent).await?;
            let sql = format!("SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE id = $1{FOR_UPDATE}");
            let row = sqlx::query(&sql)
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
                .ok_or_else(|| StoreError::NotFound(format!("memory {id}")))?;
            let row = memory_from(&row)?;
            if !row.active {
                return Err(StoreError::Changed { current: 0 });
            }
            Ok(row)
        }

        pub(crate) async fn add_evidence(conn: &mut Conn, memory: i64, episodes: &[i64]) -> Result<(), StoreError> {
            for e in episodes {
                sqlx::query(
                    "INSERT INTO org_agent_memory_evidence (memory_id, episode_id) VALUES ($1, $2) \
                     ON CONFLICT DO NOTHING",
                )
                .bind(memory)
                .bind(e)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            }
            Ok(())
        }

        async fn evidence_of(conn: &mut Conn, memory: i64) -> Result<Vec<i64>, StoreError> {
            sqlx::query_scalar(
                "SELECT episode_id FROM org_agent_memory_evidence WHERE memory_id = $1 ORDER BY episode_id",
            )
            .bind(memory)
            .fetch_all(&mut *conn)
            .await
            .or_backend()
        }

        #[allow(clippy::too_many_arguments)]
        pub(crate) async fn insert_row(
            conn: &mut Conn,
            agent: &str,
            kind: MemoryKind,
            text: &str,
            times_seen: u32,
            first_seen: DateTime<Utc>,
            last_seen: DateTime<Utc>,
            at: DateTime<Utc>,
        ) -> Result<i64, StoreError> {
            sqlx::query_scalar(
                "INSERT INTO org_agent_memory (agent, kind, text, times_seen, first_seen, last_seen, state, \
                 created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, 'active', $7) RETURNING id",
            )
            .bind(agent)
            .bind(kind.as_str())
            .bind(text)
            .bind(i64::from(times_seen))
            .bind(first_seen)
            .bind(last_seen)
            .bind(at)
            .fetch_one(&mut *conn)
            .await
            .or_backend()
        }

        pub(crate) async fn close_row(
            conn: &mut Conn,
            id: i64,
            reason: &str,
            by: &str,
            superseded_by: Option<i64>,
            at: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            let done = sqlx::query(
                "UPDATE org_agent_memory SET state = 'closed', closed_at = $1, closed_reason = $2, closed_by = $3, \
                 superseded_by = $4 WHERE id = $5 AND state = 'active'",
            )
            .bind(at)
            .bind(reason)
            .bind(by)
            .bind(superseded_by)
            .bind(id)
            .execute(&mut *conn)
            .await
            .or_backend()?;
            if done.rows_affected() != 1 {
                return Err(StoreError::Changed { current: 0 });
            }
            if let Some(new) = superseded_by {
                // New wording keeps what the bot made of the claim.
                sqlx::query(
                    "UPDATE org_agent_memory SET worth = (SELECT worth FROM org_agent_memory WHERE id = $1) WHERE id \
                     = $2",
                )
                .bind(id)
                .bind(new)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            }
            Ok(())
        }

        pub(crate) async fn mark_promoted(conn: &mut Conn, memory: i64, task: Option<i64>) -> Result<(), StoreError> {
            sqlx::query("UPDATE org_agent_memory SET promoted_to_proposal = TRUE, proposal_task_id = $1 WHERE id = $2")
                .bind(task)
                .bind(memory)
                .execute(&mut *conn)
                .await
                .or_backend()?;
            Ok(())
        }

        /// Replaces a row with new wording: the new row carries its count, first and last sighting,
        /// evidence and proposal, and the old row is closed as superseded by it.
        pub(crate) async fn supersede(
            conn: &mut Conn,
            old: &MemoryRow,
            text: &str,
            reason: &str,
            by: &str,
            at: DateTime<Utc>,
        ) -> Result<i64, StoreError> {
            let new =
                insert_row(conn, &old.agent, old.kind, text, old.times_seen, old.first_seen, old.last_seen, at).await?;
            let evidence = evidence_of(conn, old.id).await?;
            add_evidence(conn, new, &evidence).await?;
            if old.promoted_to_proposal {
                mark_promoted(conn, new, old.proposal_task_id).await?;
            }
            close_row(conn, old.id, reason, by, Some(new), at).await?;
            Ok(new)
        }
    };
}
pub(crate) use memory_rows_store;
