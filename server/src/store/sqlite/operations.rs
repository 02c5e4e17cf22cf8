//! `store::operations` on SQLite, expanded here, with what only SQLite says: the bytes each table
//! takes in the file (the `dbstat` table, which the bundled SQLite is built with) and the block's
//! percentiles.

/// What only this backend says, apart from the names the shared statements import.
mod own {
    use super::super::Pool;
    use crate::store::operations::rank;
    use crate::store::OrBackend;
    use chrono::{DateTime, Utc};
    use engine::store::StoreError;
    use sqlx::Row;
    use std::collections::HashMap;

    /// How the page says the bytes were measured.
    pub(super) const BYTES_MEASURE: &str = "the pages each table and its indexes take in the SQLite file, as SQLite's dbstat counts \
         them (free space inside those pages included); the improve cards take the tasks table's bytes in proportion to \
         their rows";

    /// The bytes of each named table with its indexes, as the pages they take, and what they take
    /// with no rows (the first page of each b-tree). `dbstat` walks each table's pages to count them
    /// (in its aggregate form, one row per table or index comes back), so this costs in proportion
    /// to the pages of memory's own tables, never to rows read into Rust.
    pub(super) async fn table_bytes(pool: &Pool, tables: &[&str]) -> Result<HashMap<String, (u64, u64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT s.tbl_name AS name, SUM(d.pgsize) AS bytes, COUNT(*) * (SELECT page_size FROM pragma_page_size()) AS fixed \
             FROM sqlite_schema s JOIN dbstat('main', 1) d ON d.name = s.name \
             WHERE s.type IN ('table', 'index') AND s.rootpage > 0 AND s.tbl_name IN (SELECT value FROM json_each($1)) \
             GROUP BY s.tbl_name",
        )
        .bind(super::super::list(tables))
        .fetch_all(pool)
        .await
        .or_backend()?;
        Ok(rows
            .iter()
            .map(|r| {
                let (bytes, fixed) = (r.get::<i64, _>("bytes").max(0) as u64, r.get::<i64, _>("fixed").max(0) as u64);
                (r.get::<String, _>("name"), (bytes, fixed))
            })
            .collect())
    }

    /// The whole file's pages.
    pub(super) async fn database_bytes(pool: &Pool) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query_scalar("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
            .fetch_one(pool)
            .await
            .or_backend()?;
        Ok(n.max(0) as u64)
    }

    /// The block's tokens at the 50th and 95th percentile of each span, by nearest rank. SQLite has
    /// no percentile function, so each is the one row at its rank among the span's runs given a block,
    /// read in the order of their tokens (`LIMIT 1 OFFSET rank - 1`): the database sorts one day's
    /// entries of `run_costs_at`, and one row comes back. Spans with no block read nothing.
    pub(super) async fn block_percentiles(
        pool: &Pool,
        bounds: &[DateTime<Utc>],
        with_block: &[u64],
    ) -> Result<Vec<(Option<u32>, Option<u32>)>, StoreError> {
        let mut out = Vec::with_capacity(with_block.len());
        for (i, &n) in with_block.iter().enumerate() {
            if n == 0 {
                out.push((None, None));
                continue;
            }
            let at = |percent: u64| {
                sqlx::query_scalar::<_, i64>(
                    "SELECT block_tokens FROM run_costs WHERE at >= $1 AND at < $2 AND block_tokens > 0 \
                     ORDER BY block_tokens LIMIT 1 OFFSET $3",
                )
                .bind(bounds[i])
                .bind(bounds[i + 1])
                .bind((rank(percent, n) - 1) as i64)
                .fetch_optional(pool)
            };
            let p50 = at(50).await.or_backend()?;
            let p95 = at(95).await.or_backend()?;
            out.push((p50.map(|t| t as u32), p95.map(|t| t as u32)));
        }
        Ok(out)
    }
}
use own::{block_percentiles, database_bytes, table_bytes, BYTES_MEASURE};

crate::store::operations::operations_store!();
