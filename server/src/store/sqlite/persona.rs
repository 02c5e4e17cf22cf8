//! `store::persona` on SQLite, expanded here.

crate::store::persona::persona_store!();

/// A plain transaction: SQLite has no roles, so the service alone keeps a bot to its own rows.
async fn begin_as_bot<'a>(
    store: &'a ThisStore,
    _agent: &str,
) -> Result<sqlx::Transaction<'a, sqlx::Sqlite>, StoreError> {
    store.pool().begin().await.or_backend()
}

/// Locks nothing: finishing wakeups runs in a transaction begun IMMEDIATE, which already excludes
/// every other writer.
async fn lock_wakeups(_conn: &mut Conn, _ids: &[i64]) -> Result<(), StoreError> {
    Ok(())
}
