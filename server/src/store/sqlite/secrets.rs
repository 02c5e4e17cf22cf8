//! `store::secrets` on SQLite, expanded here.

crate::store::secrets::secrets_store!();

/// Nothing: each of these transactions begins IMMEDIATE, which already keeps every other writer out.
async fn lock_keys(_conn: &mut Conn) -> Result<(), StoreError> {
    Ok(())
}
