//! `store::memory_rows` on PostgreSQL, expanded here.

crate::store::memory_rows::memory_rows_store!();
