//! Seed 004's memory audits: an applied audit, its action rows and the entries it read are
//! recorded in one write transaction, with an audit-log row.
//!
//! Written once for both backends (see "Written once" in `store`).

use crate::store::OrBackend;
use engine::persona::memory_audit_store::ActionRecord;
use engine::store::StoreError;

pub(crate) const AUDIT_COLUMNS: &str = "id, subject, trigger_name, by_whom, at, memory_before, user_before, \
     memory_after, user_after, memory_percent, user_percent, unresolved, summary, undone_at, undone_by";

/// An action row's JSON, read back; one that no longer reads is a backend fault, never skipped.
pub(crate) fn action_from(action: &str, outcome: String) -> Result<ActionRecord, StoreError> {
    let action =
        serde_json::from_str(action).map_err(|e| StoreError::Backend(format!("unreadable audit action: {e}")))?;
    Ok(ActionRecord { action, outcome })
}

pub(crate) fn unresolved_from(json: &str) -> Result<Vec<engine::persona::memory_audit_store::Unresolved>, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Backend(format!("unreadable unresolved entries: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).or_backend()
}

macro_rules! memory_audits_store {
    () => {
        use super::{audit, begin_write, Conn, DbRow, ThisStore};
        use crate::store::memory_audits::{action_from, to_json, unresolved_from, AUDIT_COLUMNS};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::persona::memory_audit_store::{ActionRecord, Audit, AuditRecord, MemoryAuditStore, NewAudit};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        fn record_from(row: &DbRow, actions: Vec<ActionRecord>) -> Result<AuditRecord, StoreError> {
            Ok(AuditRecord {
                id: row.get("id"),
                audit: Audit {
                    subject: row.get("subject"),
                    trigger: row.get("trigger_name"),
                    by: row.get("by_whom"),
                    at: row.get("at"),
                    memory_before: row.get("memory_before"),
                    user_before: row.get("user_before"),
                    memory_after: row.get("memory_after"),
                    user_after: row.get("user_after"),
                    memory_percent: row.get::<i64, _>("memory_percent") as u32,
                    user_percent: row.get::<i64, _>("user_percent") as u32,
                    actions,
                    unresolved: unresolved_from(row.get("unresolved"))?,
                    summary: row.get("summary"),
                },
                undone_at: row.get("undone_at"),
                undone_by: row.get("undone_by"),
            })
        }

        async fn audit_on(conn: &mut Conn, id: i64) -> Result<Option<AuditRecord>, StoreError> {
            let Some(row) = sqlx::query(&format!("SELECT {AUDIT_COLUMNS} FROM org_memory_audits WHERE id = $1"))
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            else {
                return Ok(None);
            };
            let actions =
                sqlx::query("SELECT action, outcome FROM org_memory_audit_actions WHERE audit_id = $1 ORDER BY seq")
                    .bind(id)
                    .fetch_all(&mut *conn)
                    .await
                    .or_backend()?
                    .iter()
                    .map(|r| action_from(r.get("action"), r.get("outcome")))
                    .collect::<Result<Vec<_>, _>>()?;
            record_from(&row, actions).map(Some)
        }

        #[async_trait]
        impl MemoryAuditStore for ThisStore {
            async fn record_memory_audit(&self, a: &NewAudit) -> Result<AuditRecord, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO org_memory_audits (subject, trigger_name, by_whom, at, memory_before, user_before, \
                     memory_after, user_after, memory_percent, user_percent, unresolved, summary) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                )
                .bind(&a.audit.subject)
                .bind(&a.audit.trigger)
                .bind(&a.audit.by)
                .bind(a.audit.at)
                .bind(&a.audit.memory_before)
                .bind(&a.audit.user_before)
                .bind(&a.audit.memory_after)
                .bind(&a.audit.user_after)
                .bind(i64::from(a.audit.memory_percent))
                .bind(i64::from(a.audit.user_percent))
                .bind(to_json(&a.audit.unresolved)?)
                .bind(&a.audit.summary)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                for (seq, r) in a.audit.actions.iter().enumerate() {
                    sqlx::query(
                        "INSERT INTO org_memory_audit_actions (audit_id, seq, action, outcome) VALUES ($1, $2, $3, $4)",
                    )
                    .bind(id)
                    .bind(seq as i64)
                    .bind(to_json(&r.action)?)
                    .bind(&r.outcome)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                for entry in &a.seen {
                    sqlx::query(
                        "INSERT INTO org_memory_audit_entries (subject, entry, first_seen) VALUES ($1, $2, $3) \
                         ON CONFLICT (subject, entry) DO NOTHING",
                    )
                    .bind(&a.audit.subject)
                    .bind(entry)
                    .bind(a.audit.at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                let actor = Actor { person: None, at: a.audit.at };
                audit(
                    &mut tx,
                    actor,
                    "memory_audit.apply",
                    &a.audit.subject,
                    &format!("audit #{id} by {}: {}", a.audit.by, a.audit.summary),
                )
                .await?;
                let record = audit_on(&mut tx, id).await?.ok_or_else(|| StoreError::NotFound(format!("audit {id}")))?;
                tx.commit().await.or_backend()?;
                Ok(record)
            }

            async fn memory_audits(&self, subject: &str, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                let ids: Vec<i64> =
                    sqlx::query_scalar("SELECT id FROM org_memory_audits WHERE subject = $1 ORDER BY id DESC LIMIT $2")
                        .bind(subject)
                        .bind(i64::from(limit))
                        .fetch_all(&mut *conn)
                        .await
                        .or_backend()?;
                let mut out = Vec::with_capacity(ids.len());
                for id in ids {
                    out.extend(audit_on(&mut conn, id).await?);
                }
                Ok(out)
            }

            async fn memory_audit(&self, id: i64) -> Result<Option<AuditRecord>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                audit_on(&mut conn, id).await
            }

            async fn mark_memory_audit_undone(
                &self,
                id: i64,
                by: &str,
                at: DateTime<Utc>,
            ) -> Result<AuditRecord, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let done = sqlx::query(
                    "UPDATE org_memory_audits SET undone_at = $1, undone_by = $2 WHERE id = $3 AND undone_at IS NULL",
                )
                .bind(at)
                .bind(by)
                .bind(id)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let record = audit_on(&mut tx, id).await?.ok_or_else(|| StoreError::NotFound(format!("audit {id}")))?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::Changed { current: 0 });
                }
                audit(
                    &mut tx,
                    Actor { person: None, at },
                    "memory_audit.undo",
                    &record.audit.subject,
                    &format!("audit #{id} by {by}"),
                )
                .await?;
                tx.commit().await.or_backend()?;
                Ok(record)
            }

            async fn entries_first_seen(
                &self,
                subject: &str,
                entries: &[String],
            ) -> Result<Vec<Option<DateTime<Utc>>>, StoreError> {
                let mut conn = self.pool().acquire().await.or_backend()?;
                let mut out = Vec::with_capacity(entries.len());
                for e in entries {
                    out.push(
                        sqlx::query_scalar(
                            "SELECT first_seen FROM org_memory_audit_entries WHERE subject = $1 AND entry = $2",
                        )
                        .bind(subject)
                        .bind(e)
                        .fetch_optional(&mut *conn)
                        .await
                        .or_backend()?,
                    );
                }
                Ok(out)
            }
        }
    };
}
pub(crate) use memory_audits_store;
