//! `store::cards::forgetting` on SQLite, expanded here.

crate::store::cards::forgetting::forgetting_store!();

/// Deletes the cards nobody keeps; how many. One statement: the transaction began IMMEDIATE, so no
/// use can be saved meanwhile.
async fn delete_unused_cards(conn: &mut Conn) -> Result<u64, StoreError> {
    let done = sqlx::query("DELETE FROM cards WHERE id NOT IN (SELECT card_id FROM card_uses)")
        .execute(&mut *conn)
        .await
        .or_backend()?;
    Ok(done.rows_affected())
}
