//! Whole-organisation archives on PostgreSQL. The SQL that both dialects agree on is shared with
//! the SQLite side (`store::archive`).

use super::PgStore;
use crate::store::sqlite::archive::{hidden_value, insert_sql, late_sql, late_values, loaded, select_sql};
use crate::store::OrBackend;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::archive::schema::{Kind, TABLES};
use engine::archive::{ArchiveError, ArchiveStore, Cell, TableRows};
use engine::store::StoreError;
use sqlx::postgres::{PgArguments, PgRow};
use sqlx::{Postgres, Row};

type Query<'q> = sqlx::query::Query<'q, Postgres, PgArguments>;

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

fn cell(row: &PgRow, i: usize, kind: Kind) -> Result<Cell, sqlx::Error> {
    let cell = match kind {
        Kind::Int => row.try_get::<Option<i64>, _>(i)?.map(Cell::Int),
        Kind::Text => row.try_get::<Option<String>, _>(i)?.map(Cell::Text),
        Kind::Bool => row.try_get::<Option<bool>, _>(i)?.map(Cell::Bool),
        Kind::Real => row.try_get::<Option<f64>, _>(i)?.map(Cell::Real),
        Kind::Time => row.try_get::<Option<DateTime<Utc>>, _>(i)?.map(Cell::Time),
    };
    Ok(cell.unwrap_or(Cell::Null))
}

fn dollar(i: usize) -> String {
    format!("${i}")
}

#[async_trait]
impl ArchiveStore for PgStore {
    fn source(&self) -> &'static str {
        "postgres"
    }

    async fn export_tables(&self) -> Result<Vec<TableRows>, StoreError> {
        // One snapshot for every table, so servers writing meanwhile cannot tear the archive.
        let mut tx = self.pool().begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await.or_backend()?;
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

    async fn import_tables(&self, tables: &[TableRows], unusable_password_hash: &str) -> Result<(), ArchiveError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        // A second import (or a server seeding the demo) waits here, then finds the company.
        sqlx::query("LOCK TABLE company IN EXCLUSIVE MODE").execute(&mut *tx).await.or_backend()?;
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
            let sql = insert_sql(t, dollar);
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
                sqlx::query(&late_sql(rows.table, column, dollar))
                    .bind(value)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
            }
        }
        // An archive carries no match terms: they are made again from the cards.
        super::cards::terms::index_unindexed(&mut tx).await?;
        // Explicit ids leave each identity where it was; the next generated id follows the loaded ones.
        for table in TABLES.iter().filter(|t| t.identity) {
            sqlx::query(&format!(
                "SELECT setval(pg_get_serial_sequence('\"{0}\"', 'id'), m) FROM (SELECT max(id) AS m FROM \"{0}\") s \
                 WHERE m IS NOT NULL",
                table.name
            ))
            .execute(&mut *tx)
            .await
            .or_backend()?;
        }
        tx.commit().await.or_backend()?;
        Ok(())
    }
}
