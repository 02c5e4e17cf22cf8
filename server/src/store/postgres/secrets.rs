//! `store::secrets` on PostgreSQL, expanded here.

crate::store::secrets::secrets_store!();

/// Locks the key check and the key tables against writes until the transaction ends. EXCLUSIVE
/// mode lets plain reads go on, and conflicts with the `FOR SHARE` a key's writer takes on the check.
async fn lock_keys(conn: &mut Conn) -> Result<(), StoreError> {
    sqlx::query("LOCK TABLE secret_key_check, connectors, person_keys, erasure_key IN EXCLUSIVE MODE")
        .execute(conn)
        .await
        .or_backend()?;
    Ok(())
}
