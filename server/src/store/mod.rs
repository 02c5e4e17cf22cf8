//! Storage adapters. Each backend implements the engine's store traits; SQLite is the first.

mod persona;
pub mod sqlite;

pub use sqlite::SqliteStore;
