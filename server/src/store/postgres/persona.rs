//! `store::persona` on PostgreSQL, expanded here, with what only PostgreSQL does: a bot's reads with
//! its own token run as the `engram_bot` role, so the database's row policies, not only the service,
//! keep it to its own rows.

crate::store::persona::persona_store!();

/// Begins a transaction that reads as the bot itself: under the `engram_bot` role, which may only
/// SELECT, with `engram.agent` naming the bot for the row policies (migration
/// `20261201000002_bot_row_security`). Both revert when the transaction ends, so the pooled
/// connection goes back as the application's role.
async fn begin_as_bot<'a>(
    store: &'a ThisStore,
    agent: &str,
) -> Result<sqlx::Transaction<'a, sqlx::Postgres>, StoreError> {
    let mut tx = store.pool().begin().await.or_backend()?;
    sqlx::query("SET LOCAL ROLE engram_bot").execute(&mut *tx).await.or_backend()?;
    sqlx::query("SELECT set_config('engram.agent', $1, true)").bind(agent).execute(&mut *tx).await.or_backend()?;
    Ok(tx)
}

/// Locks the wakeups a wake finishes, all at once and in id order, so two wakes finishing
/// overlapping wakeups cannot deadlock. Only PostgreSQL can bind the ids as one array (`ANY`).
async fn lock_wakeups(conn: &mut Conn, ids: &[i64]) -> Result<(), StoreError> {
    sqlx::query("SELECT id FROM wakeups WHERE id = ANY($1) ORDER BY id FOR UPDATE")
        .bind(ids)
        .execute(conn)
        .await
        .or_backend()?;
    Ok(())
}
