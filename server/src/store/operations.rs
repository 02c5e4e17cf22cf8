//! Operations' aggregates (what memory costs) and what each run cost.
//!
//! Written once for both backends (see "Written once" in `store`), except what only one can say:
//! the bytes a table takes on disk, and the block's percentiles, which PostgreSQL ranks in one
//! statement (`percentile_disc`) and SQLite, which has no percentile function, by reading the one
//! row at each rank (see each backend's `operations`).
//!
//! Every statement here answers counts, sums or one row: a day's figures are grouped in the
//! database over an indexed time (`runs_created`, `run_costs_at`, `connector_calls_purpose`,
//! `memory_spend_day`), a connector's oldest card is the first row of `cards_read_at`, and nothing
//! reads the rows themselves into Rust.

use engine::operations::Layer;

/// A table of a memory layer, or one kind of row in a table.
pub(crate) struct MemoryTable {
    pub layer: Layer,
    /// As the page names it.
    pub name: &'static str,
    pub table: &'static str,
    /// Which of the table's rows are the layer's, when not all: its bytes are then the table's in
    /// proportion to those rows.
    pub rows: Option<&'static str>,
    /// The column holding when a row was written; `None` for rows that carry no time of their own
    /// (a card's match terms, an entry's keys), which are counted but add nothing to the growth.
    pub written: Option<&'static str>,
}

const fn t(layer: Layer, table: &'static str, written: Option<&'static str>) -> MemoryTable {
    MemoryTable { layer, name: table, table, rows: None, written }
}

/// The tables each layer is made of. The bots' core blocks are files in the vault, measured by the
/// engine's roof; everything else of memory is here.
pub(crate) const MEMORY_TABLES: &[MemoryTable] = &[
    t(Layer::Cores, "core_versions", Some("saved_at")),
    t(Layer::Cores, "core_suggestions", Some("created_at")),
    t(Layer::WhosWho, "list_entries", Some("fetched_at")),
    t(Layer::WhosWho, "list_entry_keys", None),
    // A card's time is when it was last read: a card read again counts as written then.
    t(Layer::Cards, "cards", Some("read_at")),
    t(Layer::Cards, "card_uses", None),
    t(Layer::Cards, "card_terms", None),
    t(Layer::Cards, "use_terms", None),
    t(Layer::Cards, "forgotten_records", Some("forgotten_at")),
    t(Layer::Cards, "fact_checks", Some("at")),
    t(Layer::Lists, "list_snapshots", Some("taken_at")),
    // A lesson's evidence is a column of its row.
    t(Layer::Lessons, "lessons", Some("created_at")),
    // Each lesson's vector, where an embedding model is configured: often larger than its text.
    t(Layer::Lessons, "lesson_embeddings", Some("claimed_at")),
    t(Layer::Bots, "org_agent_episodes", Some("created_at")),
    t(Layer::Bots, "org_agent_memory", Some("created_at")),
    t(Layer::Bots, "org_agent_memory_evidence", None),
    t(Layer::Bots, "org_agent_knowledge_gaps", Some("created_at")),
    MemoryTable {
        layer: Layer::Bots,
        name: "tasks (improve cards)",
        table: "tasks",
        rows: Some("kind = 'improve'"),
        written: Some("created_at"),
    },
    t(Layer::Bots, "org_agent_self_edits", Some("created_at")),
    t(Layer::Bots, "org_memory_audits", Some("at")),
    t(Layer::Bots, "org_memory_audit_actions", None),
    t(Layer::Bots, "org_memory_audit_entries", Some("first_seen")),
];

/// What the runs of a day count as checked: their answer was read again after it, whatever it found.
pub(crate) const CHECKED: &str = "check_state IN ('checked', 'changed', 'not_checked')";

/// Which of the spans side by side `column` falls in, as a `CASE` over the edges bound as
/// parameters `$first` to `$first + spans` (the first and last edges bound the `WHERE`).
pub(crate) fn span_of(column: &str, first: usize, spans: usize) -> String {
    if spans <= 1 {
        return "0".into();
    }
    let mut case = String::from("CASE");
    for i in 0..spans.saturating_sub(1) {
        case.push_str(&format!(" WHEN {column} < ${} THEN {i}", first + i + 1));
    }
    case.push_str(&format!(" ELSE {} END", spans.saturating_sub(1)));
    case
}

/// The nearest rank of the `percent`th percentile of `n` sorted values, from 1: ⌈percent × n / 100⌉,
/// in whole numbers so it is exactly the rank PostgreSQL's `percentile_disc` takes.
pub(crate) fn rank(percent: u64, n: u64) -> u64 {
    (percent * n).div_ceil(100).max(1)
}

macro_rules! operations_store {
    () => {
        use super::ThisStore;
        use crate::store::operations::{span_of, CHECKED, MEMORY_TABLES};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::operations::{CostDay, DaySpend, OldestCard, OperationsStore, RunDay, Sizes, TableFigures};
        use engine::runs::cost::{RunCost, RunCostStore};
        use engine::runs::RunId;
        use engine::store::StoreError;
        use sqlx::Row;

        /// The spans' figures in order, from rows keyed by span (`i`); a span with no row is empty.
        fn by_span<T: Default + Clone>(spans: usize, rows: Vec<(usize, T)>) -> Vec<T> {
            let mut out = vec![T::default(); spans];
            for (i, v) in rows {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            }
            out
        }

        fn count(row: &super::DbRow, column: &str) -> u64 {
            row.try_get::<Option<i64>, _>(column).ok().flatten().unwrap_or(0).max(0) as u64
        }

        #[async_trait]
        impl OperationsStore for ThisStore {
            async fn memory_sizes(&self, since: DateTime<Utc>) -> Result<Sizes, StoreError> {
                let names: Vec<&str> = MEMORY_TABLES.iter().map(|t| t.table).collect();
                let bytes = table_bytes(self.pool(), &names).await?;
                let mut tables = Vec::with_capacity(MEMORY_TABLES.len());
                for t in MEMORY_TABLES {
                    let mine = t.rows.unwrap_or("1 = 1");
                    let added = match t.written {
                        Some(at) => format!("SUM(CASE WHEN {mine} AND {at} >= $1 THEN 1 ELSE 0 END)"),
                        None => "0".to_string(),
                    };
                    let row = sqlx::query(&format!(
                        "SELECT COUNT(*) AS all_rows, SUM(CASE WHEN {mine} THEN 1 ELSE 0 END) AS n, {added} AS added \
                         FROM {}",
                        t.table
                    ))
                    .bind(since)
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                    let (all, n) = (count(&row, "all_rows"), count(&row, "n"));
                    let (on_disk, fixed) = bytes.get(t.table).copied().unwrap_or((0, 0));
                    // A kind of row takes the table's bytes in proportion to its rows.
                    let share = |b: u64| match t.rows {
                        Some(_) if all > 0 => (b as u128 * n as u128 / all as u128) as u64,
                        Some(_) => 0,
                        None => b,
                    };
                    tables.push(TableFigures {
                        layer: t.layer,
                        table: t.name.to_string(),
                        rows: n,
                        bytes: share(on_disk),
                        fixed_bytes: share(fixed),
                        added: t.written.map(|_| count(&row, "added")),
                    });
                }
                Ok(Sizes { tables, database_bytes: database_bytes(self.pool()).await?, measure: BYTES_MEASURE.into() })
            }

            async fn people_count(&self) -> Result<u64, StoreError> {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM people WHERE left_at IS NULL")
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                Ok(n.max(0) as u64)
            }

            async fn run_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<RunDay>, StoreError> {
                let spans = bounds.len().saturating_sub(1);
                if spans == 0 {
                    return Ok(vec![]);
                }
                let sql = format!(
                    "SELECT {} AS i, COUNT(*) AS runs, SUM(CASE WHEN {CHECKED} THEN 1 ELSE 0 END) AS checks \
                     FROM runs WHERE created_at >= $1 AND created_at < ${} GROUP BY 1",
                    span_of("created_at", 1, spans),
                    spans + 1
                );
                let mut q = sqlx::query(&sql);
                for b in bounds {
                    q = q.bind(*b);
                }
                let rows = q.fetch_all(self.pool()).await.or_backend()?;
                let rows = rows
                    .iter()
                    .map(|r| {
                        let i: i32 = r.get("i");
                        (i as usize, RunDay { runs: count(r, "runs"), checks: count(r, "checks") })
                    })
                    .collect();
                Ok(by_span(spans, rows))
            }

            async fn cost_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<CostDay>, StoreError> {
                let spans = bounds.len().saturating_sub(1);
                if spans == 0 {
                    return Ok(vec![]);
                }
                let sql = format!(
                    "SELECT {} AS i, COUNT(*) AS runs, SUM(CASE WHEN block_tokens > 0 THEN 1 ELSE 0 END) AS with_block, \
                            CAST(SUM(block_tokens) AS BIGINT) AS block_tokens, CAST(SUM(model_calls) AS BIGINT) AS calls, \
                            CAST(SUM(model_tokens) AS BIGINT) AS tokens, CAST(SUM(model_millicents) AS BIGINT) AS millicents \
                     FROM run_costs WHERE at >= $1 AND at < ${} GROUP BY 1",
                    span_of("at", 1, spans),
                    spans + 1
                );
                let mut q = sqlx::query(&sql);
                for b in bounds {
                    q = q.bind(*b);
                }
                let rows = q.fetch_all(self.pool()).await.or_backend()?;
                let rows = rows
                    .iter()
                    .map(|r| {
                        let i: i32 = r.get("i");
                        let day = CostDay {
                            runs: count(r, "runs"),
                            with_block: count(r, "with_block"),
                            block_tokens: count(r, "block_tokens"),
                            block_p50: None,
                            block_p95: None,
                            model_calls: count(r, "calls"),
                            model_tokens: count(r, "tokens"),
                            model_millicents: count(r, "millicents"),
                        };
                        (i as usize, day)
                    })
                    .collect();
                let mut days = by_span(spans, rows);
                let with_block: Vec<u64> = days.iter().map(|d| d.with_block).collect();
                for (d, (p50, p95)) in days.iter_mut().zip(block_percentiles(self.pool(), bounds, &with_block).await?) {
                    d.block_p50 = p50;
                    d.block_p95 = p95;
                }
                Ok(days)
            }

            async fn reads_by_day(&self, purpose: &str, bounds: &[DateTime<Utc>]) -> Result<Vec<u64>, StoreError> {
                let spans = bounds.len().saturating_sub(1);
                if spans == 0 {
                    return Ok(vec![]);
                }
                let sql = format!(
                    "SELECT {} AS i, COUNT(*) AS n FROM connector_calls \
                     WHERE purpose = $1 AND at >= $2 AND at < ${} GROUP BY 1",
                    span_of("at", 2, spans),
                    spans + 2
                );
                let mut q = sqlx::query(&sql).bind(purpose);
                for b in bounds {
                    q = q.bind(*b);
                }
                let rows = q.fetch_all(self.pool()).await.or_backend()?;
                let rows = rows
                    .iter()
                    .map(|r| {
                        let i: i32 = r.get("i");
                        (i as usize, count(r, "n"))
                    })
                    .collect();
                Ok(by_span(spans, rows))
            }

            async fn spend_by_day(&self, from: &str, through: &str) -> Result<Vec<DaySpend>, StoreError> {
                let rows = sqlx::query(
                    "SELECT local_date, purpose, COUNT(*) AS calls, CAST(SUM(millicents) AS BIGINT) AS millicents \
                     FROM memory_spend WHERE local_date >= $1 AND local_date <= $2 \
                     GROUP BY local_date, purpose ORDER BY local_date, purpose",
                )
                .bind(from)
                .bind(through)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows
                    .iter()
                    .map(|r| DaySpend {
                        local_date: r.get("local_date"),
                        purpose: r.get("purpose"),
                        calls: count(r, "calls"),
                        millicents: count(r, "millicents"),
                    })
                    .collect())
            }

            async fn oldest_card(&self, connector: i64) -> Result<Option<OldestCard>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, read_at FROM cards WHERE connector_id = $1 ORDER BY read_at, id LIMIT 1",
                )
                .bind(connector)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|r| OldestCard { card: r.get("id"), read_at: r.get("read_at") }))
            }

            async fn cards_read_before(&self, connector: i64, before: DateTime<Utc>) -> Result<u64, StoreError> {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM cards WHERE connector_id = $1 AND read_at < $2")
                    .bind(connector)
                    .bind(before)
                    .fetch_one(self.pool())
                    .await
                    .or_backend()?;
                Ok(n.max(0) as u64)
            }

            async fn keep_measure(&self, at: DateTime<Utc>, sizes: &Sizes) -> Result<(), StoreError> {
                let sizes = serde_json::to_string(sizes).map_err(|e| StoreError::Backend(e.to_string()))?;
                sqlx::query("INSERT INTO memory_measures (measured_at, sizes) VALUES ($1, $2)")
                    .bind(at)
                    .bind(sizes)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(())
            }

            async fn last_measure(&self) -> Result<Option<(DateTime<Utc>, Sizes)>, StoreError> {
                let row: Option<(DateTime<Utc>, String)> =
                    sqlx::query_as("SELECT measured_at, sizes FROM memory_measures ORDER BY id DESC LIMIT 1")
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                // A measure that no longer reads (written by another version) is as none: the
                // report measures again.
                Ok(row.and_then(|(at, sizes)| match serde_json::from_str(&sizes) {
                    Ok(sizes) => Some((at, sizes)),
                    Err(e) => {
                        tracing::warn!(error = %e, "a kept measure of memory did not read; measuring again");
                        None
                    }
                }))
            }
        }

        #[async_trait]
        impl RunCostStore for ThisStore {
            async fn record_run_cost(
                &self,
                run: RunId,
                started: DateTime<Utc>,
                cost: &RunCost,
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO run_costs (run_id, at, block_tokens, model_calls, model_tokens, model_millicents) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id) DO NOTHING",
                )
                .bind(run.0)
                .bind(started)
                .bind(i64::from(cost.block_tokens))
                .bind(i64::from(cost.model_calls))
                .bind(i64::try_from(cost.model_tokens).unwrap_or(i64::MAX))
                .bind(i64::try_from(cost.model_millicents).unwrap_or(i64::MAX))
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(())
            }
        }
    };
}
pub(crate) use operations_store;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_found_by_its_upper_edges_in_order() {
        assert_eq!(span_of("at", 1, 1), "0", "one span needs no CASE");
        assert_eq!(span_of("at", 2, 3), "CASE WHEN at < $3 THEN 0 WHEN at < $4 THEN 1 ELSE 2 END");
    }

    #[test]
    fn the_nearest_rank_is_whole_and_never_below_one() {
        assert_eq!((rank(50, 1), rank(95, 1)), (1, 1));
        assert_eq!((rank(50, 4), rank(95, 4)), (2, 4));
        assert_eq!((rank(50, 20), rank(95, 20)), (10, 19));
        assert_eq!((rank(50, 101), rank(95, 101)), (51, 96));
    }

    #[test]
    fn every_layer_has_tables_and_each_table_is_named_once() {
        for layer in Layer::ALL {
            assert!(MEMORY_TABLES.iter().any(|t| t.layer == layer), "{layer:?} has no table");
        }
        let mut names: Vec<&str> = MEMORY_TABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MEMORY_TABLES.len());
    }
}
