//! Storage adapters. Each backend implements the engine's store traits: SQLite, the embedded
//! default, and PostgreSQL, for several servers on one database.

mod cards;
mod persona;
pub mod postgres;
pub mod sqlite;

pub use postgres::PgStore;
pub use sqlite::SqliteStore;
