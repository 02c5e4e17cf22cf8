//! List snapshots on SQLite.

use super::SqliteStore;
use crate::store::OrBackend;
use async_trait::async_trait;
use engine::cards::snapshots::{ListSnapshot, NewSnapshot, SnapshotStore};
use engine::org::PersonId;
use engine::store::StoreError;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

const COLUMNS: &str = "id, person_id, connector_id, tool, arguments, asked, records, taken_at";

fn snapshot_from(row: &SqliteRow) -> Result<ListSnapshot, StoreError> {
    let bad = |col: &str, e: serde_json::Error| StoreError::Backend(format!("list_snapshots.{col}: {e}"));
    Ok(ListSnapshot {
        id: row.get("id"),
        person: PersonId(row.get("person_id")),
        connector: row.get("connector_id"),
        tool: row.get("tool"),
        arguments: serde_json::from_str(&row.get::<String, _>("arguments")).map_err(|e| bad("arguments", e))?,
        asked: row.get("asked"),
        records: serde_json::from_str(&row.get::<String, _>("records")).map_err(|e| bad("records", e))?,
        taken_at: row.get("taken_at"),
    })
}

#[async_trait]
impl SnapshotStore for SqliteStore {
    async fn keep_snapshot(&self, s: &NewSnapshot) -> Result<ListSnapshot, StoreError> {
        let arguments = s.arguments.to_string();
        let records = serde_json::to_string(&s.records).or_backend()?;
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        sqlx::query(
            "UPDATE list_snapshots SET closed_at = ?, closed_reason = 'superseded' \
             WHERE person_id = ? AND connector_id = ? AND tool = ? AND (arguments = ? OR asked = ?) AND closed_at IS NULL",
        )
        .bind(s.taken_at)
        .bind(s.person.0)
        .bind(s.connector)
        .bind(&s.tool)
        .bind(&arguments)
        .bind(&s.asked)
        .execute(&mut *tx)
        .await
        .or_backend()?;
        let row = sqlx::query(&format!(
            "INSERT INTO list_snapshots (person_id, connector_id, tool, arguments, asked, records, taken_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        ))
        .bind(s.person.0)
        .bind(s.connector)
        .bind(&s.tool)
        .bind(&arguments)
        .bind(&s.asked)
        .bind(&records)
        .bind(s.taken_at)
        .fetch_one(&mut *tx)
        .await
        .or_backend()?;
        tx.commit().await.or_backend()?;
        snapshot_from(&row)
    }

    async fn snapshots_of(&self, person: PersonId) -> Result<Vec<ListSnapshot>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM list_snapshots WHERE person_id = ? AND closed_at IS NULL ORDER BY id DESC"
        ))
        .bind(person.0)
        .fetch_all(self.pool())
        .await
        .or_backend()?;
        rows.iter().map(snapshot_from).collect()
    }
}
