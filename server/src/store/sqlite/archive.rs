//! `store::archive` on SQLite, expanded here.

crate::store::archive::archive_store!();

/// The backend an archive says it came from.
const SOURCE: &str = "sqlite";

/// Nothing: the import's transaction begins IMMEDIATE, so a second import waits for it, then finds
/// the company.
async fn lock_for_import(_conn: &mut super::Conn) -> Result<(), StoreError> {
    Ok(())
}

/// Nothing: SQLite gives the next row an id after the largest one, loaded or not.
async fn after_import(_conn: &mut super::Conn) -> Result<(), StoreError> {
    Ok(())
}
