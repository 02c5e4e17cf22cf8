//! `store::operations` on PostgreSQL, expanded here, with what only PostgreSQL says: the bytes each
//! table takes (`pg_total_relation_size`) and the block's percentiles (`percentile_disc`).

/// What only this backend says, apart from the names the shared statements import.
mod own {
    use super::super::Pool;
    use crate::store::OrBackend;
    use chrono::{DateTime, Utc};
    use engine::store::StoreError;
    use sqlx::Row;
    use std::collections::HashMap;

    /// How the page says the bytes were measured.
    pub(super) const BYTES_MEASURE: &str =
        "PostgreSQL's pg_total_relation_size: each table with its indexes and TOAST (free space \
         inside them included); the improve cards take the tasks table's bytes in proportion to their rows";

    /// The bytes of each named table with its indexes and TOAST, sizes PostgreSQL keeps, read
    /// without reading a row; and what does not grow with the rows: the metapage of each b-tree
    /// index (the TOAST table's included; an empty table's heap takes nothing), and the free space
    /// and visibility maps of the table and its indexes, a few pages each however many rows.
    pub(super) async fn table_bytes(pool: &Pool, tables: &[&str]) -> Result<HashMap<String, (u64, u64)>, StoreError> {
        let rows = sqlx::query(
            "WITH rels AS ( \
                 SELECT t, to_regclass(t) AS rel FROM unnest($1::text[]) AS t \
                 UNION ALL SELECT t, i.indexrelid::regclass FROM unnest($1::text[]) AS t \
                     JOIN pg_index i ON i.indrelid = to_regclass(t) \
                 UNION ALL SELECT t, c.reltoastrelid::regclass FROM unnest($1::text[]) AS t \
                     JOIN pg_class c ON c.oid = to_regclass(t) WHERE c.reltoastrelid <> 0 \
                 UNION ALL SELECT t, i.indexrelid::regclass FROM unnest($1::text[]) AS t \
                     JOIN pg_class c ON c.oid = to_regclass(t) JOIN pg_index i ON i.indrelid = c.reltoastrelid) \
             SELECT t AS name, COALESCE(pg_total_relation_size(to_regclass(t)), 0) AS bytes, \
                    (SELECT COALESCE(SUM(pg_relation_size(r.rel, 'fsm') + pg_relation_size(r.rel, 'vm')), 0) \
                     FROM rels r WHERE r.t = n.t)::bigint \
                    + (SELECT COUNT(*) FROM rels r JOIN pg_index i ON i.indexrelid = r.rel WHERE r.t = n.t) \
                      * current_setting('block_size')::bigint AS fixed \
             FROM unnest($1::text[]) AS n (t)",
        )
        .bind(tables)
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

    /// The whole database.
    pub(super) async fn database_bytes(pool: &Pool) -> Result<u64, StoreError> {
        let n: i64 =
            sqlx::query_scalar("SELECT pg_database_size(current_database())").fetch_one(pool).await.or_backend()?;
        Ok(n.max(0) as u64)
    }

    /// The block's tokens at the 50th and 95th percentile of each span, ranked by PostgreSQL in one
    /// statement: `percentile_disc` takes the first value at or past the fraction, the nearest rank,
    /// as SQLite's reads it.
    pub(super) async fn block_percentiles(
        pool: &Pool,
        bounds: &[DateTime<Utc>],
        with_block: &[u64],
    ) -> Result<Vec<(Option<u32>, Option<u32>)>, StoreError> {
        let spans = with_block.len();
        let mut out = vec![(None, None); spans];
        if with_block.iter().all(|n| *n == 0) {
            return Ok(out);
        }
        let sql = format!(
            "SELECT {} AS i, percentile_disc(0.5) WITHIN GROUP (ORDER BY block_tokens) AS p50, \
                    percentile_disc(0.95) WITHIN GROUP (ORDER BY block_tokens) AS p95 \
             FROM run_costs WHERE at >= $1 AND at < ${} AND block_tokens > 0 GROUP BY 1",
            crate::store::operations::span_of("at", 1, spans),
            spans + 1
        );
        let mut q = sqlx::query(&sql);
        for b in bounds {
            q = q.bind(*b);
        }
        for r in q.fetch_all(pool).await.or_backend()? {
            let i: i32 = r.get("i");
            if let Some(slot) = out.get_mut(i as usize) {
                *slot = (
                    r.get::<Option<i64>, _>("p50").map(|t| t as u32),
                    r.get::<Option<i64>, _>("p95").map(|t| t as u32),
                );
            }
        }
        Ok(out)
    }
}
use own::{block_percentiles, database_bytes, table_bytes, BYTES_MEASURE};

crate::store::operations::operations_store!();
