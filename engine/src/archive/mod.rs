//! The archive that moves a whole organisation from one database to another (SQLite to PostgreSQL,
//! or back): JSON Lines, versioned, and the same text whichever backend wrote it.
//!
//! The first line is the header: `{"format":"engram-archive","version":1,"exported_at":…,
//! "source":"sqlite"|"postgres","rows":{table: count}}`. Every other line is one row,
//! `{"table":…,"row":{column: value}}`, tables in load order (`schema::TABLES`) and rows by primary
//! key. Only the header says when and from where; the rows are what a move carries, so an export,
//! an import into the other backend and a second export give the same lines after the header.

pub mod schema;

use crate::kernel::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, SubsecRound, Utc};
use schema::{Kind, Table, TABLES};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const FORMAT: &str = "engram-archive";
pub const VERSION: u32 = 1;

/// One value of one column, as both backends read and write it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
    Bool(bool),
    Real(f64),
    Time(DateTime<Utc>),
}

impl Cell {
    pub fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(v) => Some(v),
            _ => None,
        }
    }

    pub fn bool(&self) -> Option<bool> {
        match self {
            Cell::Bool(v) => Some(*v),
            _ => None,
        }
    }

    pub fn real(&self) -> Option<f64> {
        match self {
            Cell::Real(v) => Some(*v),
            _ => None,
        }
    }

    pub fn time(&self) -> Option<DateTime<Utc>> {
        match self {
            Cell::Time(v) => Some(*v),
            _ => None,
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Int(v) => Value::from(*v),
            Cell::Text(v) => Value::from(v.as_str()),
            Cell::Bool(v) => Value::from(*v),
            Cell::Real(v) => Value::from(*v),
            Cell::Time(v) => Value::from(time_text(*v)),
        }
    }

    fn from_json(kind: Kind, value: &Value) -> Option<Cell> {
        Some(match (kind, value) {
            (_, Value::Null) => Cell::Null,
            (Kind::Int, v) => Cell::Int(v.as_i64()?),
            (Kind::Text, Value::String(s)) => Cell::Text(s.clone()),
            (Kind::Bool, Value::Bool(b)) => Cell::Bool(*b),
            (Kind::Real, Value::Number(v)) => Cell::Real(v.as_f64()?),
            (Kind::Time, Value::String(s)) => Cell::Time(DateTime::parse_from_rfc3339(s).ok()?.with_timezone(&Utc)),
            _ => return None,
        })
    }
}

/// The one text of an instant in an archive: UTC, microseconds.
pub fn time_text(at: DateTime<Utc>) -> String {
    at.trunc_subsecs(6).format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// One table's rows, each in the order of the table's columns.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRows {
    pub table: &'static Table,
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub version: u32,
    pub exported_at: String,
    /// The backend it was exported from: `sqlite` or `postgres`.
    pub source: String,
    /// Rows per table, so that a cut-off file is refused rather than loaded in part.
    pub rows: BTreeMap<String, usize>,
}

#[derive(Serialize, Deserialize)]
struct Line {
    table: String,
    row: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArchiveError {
    #[error("this is not an Engram archive: its first line must be the header with \"format\": \"{FORMAT}\"")]
    NotAnArchive,
    #[error("this archive is version {0}; this Engram reads version {VERSION} only")]
    Version(u32),
    #[error("line {line} of the archive: {reason}")]
    Line { line: usize, reason: String },
    #[error("the archive's header promises {promised} {table} rows but it holds {found}; the file is incomplete")]
    Incomplete { table: String, promised: usize, found: usize },
    /// The store's refusal to load into a database that holds an organisation already.
    #[error("the database is not empty ({table} has rows); import loads only into an empty database")]
    NotEmpty { table: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Reads and loads whole archives. Implemented by each backend.
#[async_trait]
pub trait ArchiveStore: Send + Sync {
    /// `sqlite` or `postgres`, for the header.
    fn source(&self) -> &'static str;
    /// Every carried table in load order, rows by primary key, hidden columns left out.
    async fn export_tables(&self) -> Result<Vec<TableRows>, StoreError>;
    /// Loads the tables into an empty database in one transaction, keeping ids; refuses
    /// (`ArchiveError::NotEmpty`) and changes nothing if any carried table has a row. Every person's
    /// password hash becomes `unusable_password_hash`.
    async fn import_tables(&self, tables: &[TableRows], unusable_password_hash: &str) -> Result<(), ArchiveError>;
}

/// The archive's text: the header line, then one line per row.
pub fn write(tables: &[TableRows], source: &str, exported_at: DateTime<Utc>) -> String {
    let header = Header {
        format: FORMAT.to_string(),
        version: VERSION,
        exported_at: time_text(exported_at),
        source: source.to_string(),
        rows: tables.iter().map(|t| (t.table.name.to_string(), t.rows.len())).collect(),
    };
    let mut out = serde_json::to_string(&header).expect("a header always serialises");
    out.push('\n');
    for t in tables {
        for row in &t.rows {
            let row = t.table.columns.iter().zip(row).map(|(c, v)| (c.name.to_string(), v.to_json())).collect();
            let line = Line { table: t.table.name.to_string(), row };
            out.push_str(&serde_json::to_string(&line).expect("a row always serialises"));
            out.push('\n');
        }
    }
    out
}

/// Reads and checks a whole archive: the header's format and version, every line's table and
/// columns and each value's kind, and that every table the header counts is complete. Tables come
/// back in load order, whatever order the lines were in.
pub fn read(text: &str) -> Result<(Header, Vec<TableRows>), ArchiveError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let header = lines
        .next()
        .and_then(|(_, l)| serde_json::from_str::<Value>(l).ok())
        .filter(|h| h.get("format").and_then(Value::as_str) == Some(FORMAT))
        .ok_or(ArchiveError::NotAnArchive)?;
    let version = header.get("version").and_then(Value::as_u64).ok_or(ArchiveError::NotAnArchive)?;
    if version != u64::from(VERSION) {
        return Err(ArchiveError::Version(u32::try_from(version).unwrap_or(u32::MAX)));
    }
    let header: Header = serde_json::from_value(header)
        .map_err(|e| ArchiveError::Line { line: 1, reason: format!("the header is not valid: {e}") })?;
    let mut tables: Vec<TableRows> = TABLES.iter().map(|table| TableRows { table, rows: Vec::new() }).collect();
    let mut keys = std::collections::HashSet::new();
    for (i, text) in lines {
        let line = i + 1;
        let bad = |reason: String| ArchiveError::Line { line, reason };
        let Line { table, mut row } = serde_json::from_str(text)
            .map_err(|e| bad(format!("not a row of the form {{\"table\":…,\"row\":{{…}}}}: {e}")))?;
        let Some(rows) = tables.iter_mut().find(|t| t.table.name == table) else {
            return Err(bad(format!("{table:?} is not a table an archive carries")));
        };
        let t = rows.table;
        let mut cells = Vec::with_capacity(t.columns.len());
        for column in t.columns {
            let value = match (row.remove(column.name), column.missing) {
                (Some(value), _) => value,
                (None, Some(default)) => serde_json::from_str(default).expect("a column's default is JSON"),
                (None, None) => return Err(bad(format!("{table}.{} is missing", column.name))),
            };
            let cell = Cell::from_json(column.kind, &value).ok_or_else(|| {
                bad(format!("{table}.{} must be {}, not {value}", column.name, kind_name(column.kind)))
            })?;
            if cell == Cell::Null && !column.nullable {
                return Err(bad(format!("{table}.{} may not be empty", column.name)));
            }
            cells.push(cell);
        }
        if let Some(extra) = row.keys().next() {
            return Err(bad(if t.is_hidden(extra) {
                format!("{table}.{extra} is never carried in an archive")
            } else {
                format!("{table} has no column {extra:?}")
            }));
        }
        let key: Vec<String> = t
            .key
            .iter()
            .filter_map(|k| t.columns.iter().position(|c| c.name == *k))
            .map(|i| format!("{:?}", cells[i]))
            .collect();
        if !keys.insert((t.name, key)) {
            return Err(bad(format!("a second {table} row with the same {}", t.key.join(" and "))));
        }
        rows.rows.push(cells);
    }
    for t in &tables {
        let promised = header.rows.get(t.table.name).copied().unwrap_or(0);
        if promised != t.rows.len() {
            return Err(ArchiveError::Incomplete { table: t.table.name.to_string(), promised, found: t.rows.len() });
        }
    }
    if let Some(unknown) = header.rows.keys().find(|name| schema::table(name).is_none()) {
        return Err(ArchiveError::Line {
            line: 1,
            reason: format!("the header counts {unknown:?}, which is not a table an archive carries"),
        });
    }
    Ok((header, tables))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "an integer",
        Kind::Text => "a string",
        Kind::Bool => "true or false",
        Kind::Real => "a number",
        Kind::Time => "an RFC 3339 time",
    }
}

/// "people 7, teams 4, …": the rows of each table that has any.
pub fn summary(tables: &[TableRows]) -> String {
    let parts: Vec<String> =
        tables.iter().filter(|t| !t.rows.is_empty()).map(|t| format!("{} {}", t.table.name, t.rows.len())).collect();
    if parts.is_empty() {
        "no rows".to_string()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests;
