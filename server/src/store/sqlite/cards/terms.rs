//! Cards' terms (the engine's `stored_terms`: its match terms, and open work), written with the
//! card, so a run's question finds the cards it may name, or pad with, without reading every card.

use crate::store::OrBackend;
use engine::cards::select::stored_terms;
use engine::cards::source::CardField;
use engine::store::StoreError;
use sqlx::{QueryBuilder, Sqlite, SqliteConnection, SqlitePool};

/// Writes a card's terms in place of those it had.
pub(crate) async fn write_terms(
    conn: &mut SqliteConnection,
    card: i64,
    record_id: &str,
    fields: &[CardField],
    open_work: bool,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM card_terms WHERE card_id = ?").bind(card).execute(&mut *conn).await.or_backend()?;
    let terms = stored_terms(record_id, fields, open_work);
    if terms.is_empty() {
        return Ok(());
    }
    let mut q = QueryBuilder::<Sqlite>::new("INSERT INTO card_terms (card_id, term) ");
    q.push_values(&terms, |mut b, t| {
        b.push_bind(card).push_bind(t);
    });
    q.build().execute(conn).await.or_backend()?;
    Ok(())
}

/// Writes the terms of every card that has none: cards kept before terms were, or loaded from an
/// archive. Returns how many cards it indexed.
pub(crate) async fn index_unindexed(conn: &mut SqliteConnection) -> Result<u64, StoreError> {
    let (mut after, mut done) = (0i64, 0u64);
    loop {
        let batch: Vec<(i64, String, String, bool)> = sqlx::query_as(
            "SELECT id, record_id, fields, open_work FROM cards c WHERE id > ? \
             AND NOT EXISTS (SELECT 1 FROM card_terms t WHERE t.card_id = c.id) ORDER BY id LIMIT 1000",
        )
        .bind(after)
        .fetch_all(&mut *conn)
        .await
        .or_backend()?;
        let Some(last) = batch.last() else { return Ok(done) };
        after = last.0;
        for (id, record_id, fields, open_work) in &batch {
            let fields: Vec<CardField> = serde_json::from_str(fields).unwrap_or_default();
            write_terms(conn, *id, record_id, &fields, *open_work).await?;
        }
        done += batch.len() as u64;
    }
}

/// At start-up, once: the terms of the cards kept before the store wrote them.
pub(crate) async fn index_once(pool: &SqlitePool) -> Result<(), StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await.or_backend()?;
    let due = sqlx::query("DELETE FROM store_tasks WHERE name = 'card_terms'")
        .execute(&mut *tx)
        .await
        .or_backend()?
        .rows_affected();
    if due > 0 {
        let n = index_unindexed(&mut tx).await?;
        tracing::info!(cards = n, "wrote the match terms of the cards kept before them");
    }
    tx.commit().await.or_backend()
}
