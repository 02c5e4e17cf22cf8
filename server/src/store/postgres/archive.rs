//! `store::archive` on PostgreSQL, expanded here.

crate::store::archive::archive_store!();

/// The backend an archive says it came from.
const SOURCE: &str = "postgres";

/// Locks the company table against writes until the import ends, so a second import (or a server
/// seeding the demo) waits, then finds the company.
async fn lock_for_import(conn: &mut super::Conn) -> Result<(), StoreError> {
    sqlx::query("LOCK TABLE company IN EXCLUSIVE MODE").execute(conn).await.or_backend()?;
    Ok(())
}

/// Moves each identity past the loaded ids: explicit ids leave a sequence where it was, and the
/// next generated id must follow the loaded ones.
async fn after_import(conn: &mut super::Conn) -> Result<(), StoreError> {
    for table in TABLES.iter().filter(|t| t.identity) {
        sqlx::query(&format!(
            "SELECT setval(pg_get_serial_sequence('\"{0}\"', 'id'), m) FROM (SELECT max(id) AS m FROM \"{0}\") s \
             WHERE m IS NOT NULL",
            table.name
        ))
        .execute(&mut *conn)
        .await
        .or_backend()?;
    }
    Ok(())
}
