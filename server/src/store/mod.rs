//! Storage adapters. Each backend implements the engine's store traits; SQLite is the first.

mod cards;
mod persona;
pub mod sqlite;

pub use sqlite::SqliteStore;
