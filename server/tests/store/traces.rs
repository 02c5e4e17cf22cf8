//! Every trace of a value in a whole database: each column of each table (any schema, sessions and
//! migrations' bookkeeping included), its bytes read as text, searched for the value's spellings.
//! Shared by the store contract suite and the API tests (which include this file by its path), so
//! "no trace" means the same in both.

use engine::erasure::{Naming, PHONE_JOINERS};
use server::store::AnyStore;
use sqlx::Row;

/// One column's text in one row.
#[derive(Debug, Clone)]
pub struct Text {
    pub table: String,
    pub column: String,
    pub text: String,
}

fn unhex(hex: &str) -> String {
    let bytes: Vec<u8> =
        (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Every non-null value of every column of every table, as text (a blob's bytes as UTF-8).
pub async fn every_text(store: &AnyStore) -> Vec<Text> {
    let mut out = Vec::new();
    match store {
        AnyStore::Sqlite(s) => {
            let tables: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
                .fetch_all(s.pool())
                .await
                .expect("the tables");
            for table in tables {
                let columns: Vec<String> = sqlx::query(&format!("PRAGMA table_info(\"{table}\")"))
                    .fetch_all(s.pool())
                    .await
                    .expect("the columns")
                    .iter()
                    .map(|r| r.get("name"))
                    .collect();
                for column in columns {
                    // hex() reads any value's bytes, a blob's as they are.
                    let sql = format!("SELECT hex(\"{column}\") FROM \"{table}\" WHERE \"{column}\" IS NOT NULL");
                    let values: Vec<String> = sqlx::query_scalar(&sql).fetch_all(s.pool()).await.expect(&sql);
                    out.extend(values.iter().map(|v| Text {
                        table: table.clone(),
                        column: column.clone(),
                        text: unhex(v),
                    }));
                }
            }
        }
        AnyStore::Postgres(s) => {
            let columns = sqlx::query(
                "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns \
                 WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3",
            )
            .fetch_all(s.pool())
            .await
            .expect("the columns");
            for c in columns {
                let (schema, table, column, kind): (String, String, String, String) =
                    (c.get(0), c.get(1), c.get(2), c.get(3));
                let value = if kind == "bytea" {
                    format!("encode(\"{column}\", 'hex')")
                } else {
                    format!("\"{column}\"::text")
                };
                let sql = format!("SELECT {value} FROM \"{schema}\".\"{table}\" WHERE \"{column}\" IS NOT NULL");
                let values: Vec<String> = sqlx::query_scalar(&sql).fetch_all(s.pool()).await.expect(&sql);
                out.extend(values.into_iter().map(|v| Text {
                    table: format!("{schema}.{table}"),
                    column: column.clone(),
                    text: if kind == "bytea" { unhex(&v) } else { v },
                }));
            }
        }
    }
    out
}

/// A value to look for: how it was seeded, and what every spelling of it holds.
pub struct Value {
    naming: Naming,
    /// Folded forms any spelling's text holds: a local part, the digits once joiners are out.
    needles: Vec<String>,
}

impl Value {
    /// An email or phone number given in any spelling, with the other forms it was seeded in.
    pub fn new(given: &str, needles: &[&str]) -> Self {
        let naming = Naming::parse(given).expect("a value");
        let mut all: Vec<String> = needles.iter().map(|n| n.to_lowercase()).collect();
        all.push(naming.canonical().to_string());
        Self { naming, needles: all }
    }

    /// Whether a text holds the value: in a spelling the canonicaliser reads as it, or any of the
    /// needles, in any case, with or without a phone number's joiners.
    pub fn in_text(&self, text: &str) -> bool {
        let lower = text.to_lowercase();
        let mut bare = lower.clone();
        for j in PHONE_JOINERS {
            bare = bare.replace(j, "");
        }
        self.naming.names(text) || self.needles.iter().any(|n| lower.contains(n.as_str()) || bare.contains(n.as_str()))
    }
}

/// Where any of the values stands in the database: "table.column: text".
pub async fn traces(store: &AnyStore, values: &[&Value]) -> Vec<String> {
    every_text(store)
        .await
        .into_iter()
        .filter(|t| values.iter().any(|v| v.in_text(&t.text)))
        .map(|t| format!("{}.{}: {}", t.table, t.column, t.text.chars().take(200).collect::<String>()))
        .collect()
}
