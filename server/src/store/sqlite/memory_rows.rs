//! A bot's memory rows on SQLite, as every writer of them shares them: reading a row with its
//! evidence, and inserting, closing and superseding one inside the caller's transaction.

use crate::store::OrBackend;
use chrono::{DateTime, Utc};
use engine::persona::backlog::MemoryRow;
use engine::persona::render::MemoryKind;
use engine::store::StoreError;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

fn bad(what: &str) -> StoreError {
    StoreError::Backend(format!("unreadable {what}"))
}

pub(crate) const MEMORY_COLUMNS: &str =
    "id, agent, kind, text, times_seen, worth, first_seen, last_seen, state, closed_at, \
     closed_reason, closed_by, superseded_by, promoted_to_proposal, proposal_task_id";

pub(crate) fn memory_from(row: &SqliteRow) -> Result<MemoryRow, StoreError> {
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
        promoted_to_proposal: row.get::<i64, _>("promoted_to_proposal") != 0,
        proposal_task_id: row.get("proposal_task_id"),
        evidence: Vec::new(),
    })
}

pub(crate) async fn with_evidence(
    conn: &mut SqliteConnection,
    mut rows: Vec<MemoryRow>,
) -> Result<Vec<MemoryRow>, StoreError> {
    for r in rows.iter_mut() {
        r.evidence = sqlx::query_scalar(
            "SELECT episode_id FROM org_agent_memory_evidence WHERE memory_id = ? ORDER BY episode_id",
        )
        .bind(r.id)
        .fetch_all(&mut *conn)
        .await
        .or_backend()?;
    }
    Ok(rows)
}

pub(crate) async fn active_row(
    conn: &mut SqliteConnection,
    id: i64,
    agent: Option<&str>,
) -> Result<MemoryRow, StoreError> {
    let row = sqlx::query(&format!("SELECT {MEMORY_COLUMNS} FROM org_agent_memory WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .or_backend()?
        .ok_or_else(|| StoreError::NotFound(format!("memory {id}")))?;
    let row = memory_from(&row)?;
    if !row.active || agent.is_some_and(|a| a != row.agent) {
        return Err(StoreError::Changed { current: 0 });
    }
    Ok(row)
}

pub(crate) async fn add_evidence(conn: &mut SqliteConnection, memory: i64, episodes: &[i64]) -> Result<(), StoreError> {
    for e in episodes {
        sqlx::query("INSERT OR IGNORE INTO org_agent_memory_evidence (memory_id, episode_id) VALUES (?, ?)")
            .bind(memory)
            .bind(e)
            .execute(&mut *conn)
            .await
            .or_backend()?;
    }
    Ok(())
}

async fn evidence_of(conn: &mut SqliteConnection, memory: i64) -> Result<Vec<i64>, StoreError> {
    sqlx::query_scalar("SELECT episode_id FROM org_agent_memory_evidence WHERE memory_id = ?")
        .bind(memory)
        .fetch_all(&mut *conn)
        .await
        .or_backend()
}

#[allow(clippy::too_many_arguments)]
pub(crate) async fn insert_row(
    conn: &mut SqliteConnection,
    agent: &str,
    kind: MemoryKind,
    text: &str,
    times_seen: u32,
    first_seen: DateTime<Utc>,
    last_seen: DateTime<Utc>,
    at: DateTime<Utc>,
) -> Result<i64, StoreError> {
    sqlx::query_scalar(
        "INSERT INTO org_agent_memory (agent, kind, text, times_seen, first_seen, last_seen, state, created_at) \
         VALUES (?, ?, ?, ?, ?, ?, 'active', ?) RETURNING id",
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
    conn: &mut SqliteConnection,
    id: i64,
    reason: &str,
    by: &str,
    superseded_by: Option<i64>,
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    let done = sqlx::query(
        "UPDATE org_agent_memory SET state = 'closed', closed_at = ?, closed_reason = ?, closed_by = ?, \
         superseded_by = ? WHERE id = ? AND state = 'active'",
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
            "UPDATE org_agent_memory SET worth = (SELECT worth FROM org_agent_memory WHERE id = ?) WHERE id = ?",
        )
        .bind(id)
        .bind(new)
        .execute(&mut *conn)
        .await
        .or_backend()?;
    }
    Ok(())
}

/// Replaces a row with new wording: the new row carries its count (plus `bump`), first sighting
/// and evidence, and the old row is closed as superseded by it.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn supersede(
    conn: &mut SqliteConnection,
    old: &MemoryRow,
    text: &str,
    bump: u32,
    extra_evidence: &[i64],
    reason: &str,
    by: &str,
    at: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let last_seen = if bump > 0 { at } else { old.last_seen };
    let new =
        insert_row(conn, &old.agent, old.kind, text, old.times_seen + bump, old.first_seen, last_seen, at).await?;
    let mut evidence = evidence_of(conn, old.id).await?;
    evidence.extend_from_slice(extra_evidence);
    add_evidence(conn, new, &evidence).await?;
    if old.promoted_to_proposal {
        sqlx::query("UPDATE org_agent_memory SET promoted_to_proposal = 1, proposal_task_id = ? WHERE id = ?")
            .bind(old.proposal_task_id)
            .bind(new)
            .execute(&mut *conn)
            .await
            .or_backend()?;
    }
    close_row(conn, old.id, reason, by, Some(new), at).await?;
    Ok(new)
}
