//! `store::cards::forgetting` on PostgreSQL, expanded here.

crate::store::cards::forgetting::forgetting_store!();

/// Deletes the cards nobody keeps; how many. Two statements, so that a use saved meanwhile is
/// handled (below); the second binds the candidates as one array (`ANY`).
async fn delete_unused_cards(conn: &mut Conn) -> Result<u64, StoreError> {
    // Locking the candidates first, then deleting under a fresh snapshot, means a use saved
    // meanwhile is either seen (its card stays) or waits and finds its card gone; it is never
    // taken away with the card by the cascade.
    let candidates: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM cards WHERE NOT EXISTS (SELECT 1 FROM card_uses u WHERE u.card_id = cards.id) \
         ORDER BY id FOR UPDATE",
    )
    .fetch_all(&mut *conn)
    .await
    .or_backend()?;
    let done = sqlx::query(
        "DELETE FROM cards WHERE id = ANY($1) AND NOT EXISTS (SELECT 1 FROM card_uses u WHERE u.card_id = cards.id)",
    )
    .bind(&candidates)
    .execute(&mut *conn)
    .await
    .or_backend()?;
    Ok(done.rows_affected())
}
