//! `store::memory_rows` on SQLite, expanded here.

crate::store::memory_rows::memory_rows_store!();
