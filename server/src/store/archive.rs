//! Whole-organisation archives: what a table's rows are read and written with (the table and column
//! names come from the engine's fixed list, never from an archive, and are quoted because some, such
//! as `trigger`, are keywords), and the archive store itself.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `SOURCE`, its name in
//! an archive, `lock_for_import` and `after_import`.

use engine::archive::schema::{Hidden, Table};
use engine::archive::{Cell, TableRows};

/// Every column of the table in order, sorted by its primary key.
pub(crate) fn select_sql(table: &Table) -> String {
    let columns: Vec<String> = table.columns.iter().map(|c| format!("\"{}\"", c.name)).collect();
    let key: Vec<String> = table.key.iter().map(|k| format!("\"{k}\"")).collect();
    format!("SELECT {} FROM \"{}\" ORDER BY {}", columns.join(", "), table.name, key.join(", "))
}

/// An insert of every column, then every hidden one.
pub(crate) fn insert_sql(table: &Table) -> String {
    let names: Vec<String> = table
        .columns
        .iter()
        .map(|c| c.name)
        .chain(table.hidden.iter().map(|(h, _)| *h))
        .map(|n| format!("\"{n}\""))
        .collect();
    let values: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
    format!("INSERT INTO \"{}\" ({}) VALUES ({})", table.name, names.join(", "), values.join(", "))
}

/// Sets a late column of one row, once every row is in.
pub(crate) fn late_sql(table: &Table, column: &str) -> String {
    format!("UPDATE \"{}\" SET \"{column}\" = $1 WHERE \"id\" = $2", table.name)
}

static EMPTY: Cell = Cell::Null;

/// The value an insert puts in a column: a late one starts empty.
pub(crate) fn loaded<'a>(table: &Table, column: &str, cell: &'a Cell) -> &'a Cell {
    if table.late.contains(&column) {
        &EMPTY
    } else {
        cell
    }
}

/// Each late column's value per row id: `(column, id, value)`.
pub(crate) fn late_values(rows: &TableRows) -> Vec<(&'static str, i64, i64)> {
    let t = rows.table;
    let id = t.columns.iter().position(|c| c.name == "id");
    let mut out = Vec::new();
    for late in t.late {
        let Some(at) = t.columns.iter().position(|c| c.name == *late) else { continue };
        for row in &rows.rows {
            if let (Some(id), Some(value)) = (id.and_then(|i| row[i].int()), row[at].int()) {
                out.push((*late, id, value));
            }
        }
    }
    out
}

/// The value an import gives a hidden column.
pub(crate) fn hidden_value(hidden: Hidden, unusable_password_hash: &str) -> Option<String> {
    match hidden {
        Hidden::UnusablePassword => Some(unusable_password_hash.to_string()),
        Hidden::Null => None,
    }
}

macro_rules! archive_store {
    () => {
        use super::{begin_read, begin_write, DbRow, ThisStore};
        use crate::store::archive::{hidden_value, insert_sql, late_sql, late_values, loaded, select_sql};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::archive::schema::{Kind, TABLES};
        use engine::archive::{ArchiveError, ArchiveStore, Cell, TableRows};
        use engine::store::StoreError;
        use sqlx::Row;

        type Db = <DbRow as Row>::Database;
        type Query<'q> = sqlx::query::Query<'q, Db, <Db as sqlx::Database>::Arguments<'q>>;

        /// Binds a value with its column's type even when empty: PostgreSQL types every parameter.
        fn bind<'q>(q: Query<'q>, kind: Kind, cell: &Cell) -> Query<'q> {
            match kind {
                Kind::Int => q.bind(cell.int()),
                Kind::Text => q.bind(cell.text().map(str::to_string)),
                Kind::Bool => q.bind(cell.bool()),
                Kind::Real => q.bind(cell.real()),
                Kind::Time => q.bind(cell.time()),
            }
        }

        fn cell(row: &DbRow, i: usize, kind: Kind) -> Result<Cell, sqlx::Error> {
            let cell = match kind {
                Kind::Int => row.try_get::<Option<i64>, _>(i)?.map(Cell::Int),
                Kind::Text => row.try_get::<Option<String>, _>(i)?.map(Cell::Text),
                Kind::Bool => row.try_get::<Option<bool>, _>(i)?.map(Cell::Bool),
                Kind::Real => row.try_get::<Option<f64>, _>(i)?.map(Cell::Real),
                Kind::Time => row.try_get::<Option<DateTime<Utc>>, _>(i)?.map(Cell::Time),
            };
            Ok(cell.unwrap_or(Cell::Null))
        }

        #[async_trait]
        impl ArchiveStore for ThisStore {
            fn source(&self) -> &'static str {
                SOURCE
            }

            async fn export_tables(&self) -> Result<Vec<TableRows>, StoreError> {
                // One snapshot for every table, so servers writing meanwhile cannot tear the archive.
                let mut tx = begin_read(self.pool()).await?;
                let mut out = Vec::with_capacity(TABLES.len());
                for table in TABLES {
                    let rows = sqlx::query(&select_sql(table)).fetch_all(&mut *tx).await.or_backend()?;
                    let rows = rows
                        .iter()
                        .map(|r| table.columns.iter().enumerate().map(|(i, c)| cell(r, i, c.kind)).collect())
                        .collect::<Result<Vec<Vec<Cell>>, _>>()
                        .or_backend()?;
                    out.push(TableRows { table, rows });
                }
                tx.commit().await.or_backend()?;
                Ok(out)
            }

            async fn import_tables(
                &self,
                tables: &[TableRows],
                unusable_password_hash: &str,
            ) -> Result<(), ArchiveError> {
                let mut tx = begin_write(self.pool()).await?;
                // A second import (or a server seeding the demo) waits here, then finds the company.
                lock_for_import(&mut tx).await?;
                for table in TABLES {
                    let any: bool = sqlx::query_scalar(&format!("SELECT EXISTS (SELECT 1 FROM \"{}\")", table.name))
                        .fetch_one(&mut *tx)
                        .await
                        .or_backend()?;
                    if any {
                        return Err(ArchiveError::NotEmpty { table: table.name.to_string() });
                    }
                }
                for rows in tables {
                    let t = rows.table;
                    let sql = insert_sql(t);
                    for row in &rows.rows {
                        let mut q = sqlx::query(&sql);
                        for (c, v) in t.columns.iter().zip(row) {
                            q = bind(q, c.kind, loaded(t, c.name, v));
                        }
                        for (_, hidden) in t.hidden {
                            q = q.bind(hidden_value(*hidden, unusable_password_hash));
                        }
                        q.execute(&mut *tx).await.or_backend()?;
                    }
                }
                for rows in tables {
                    for (column, id, value) in late_values(rows) {
                        sqlx::query(&late_sql(rows.table, column))
                            .bind(value)
                            .bind(id)
                            .execute(&mut *tx)
                            .await
                            .or_backend()?;
                    }
                }
                // An archive carries no match terms: they are made again from the cards.
                super::cards::terms::index_unindexed(&mut tx).await?;
                after_import(&mut tx).await?;
                tx.commit().await.or_backend()?;
                Ok(())
            }
        }
    };
}
pub(crate) use archive_store;
