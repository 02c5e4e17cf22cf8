//! `store::inbox` on SQLite, expanded here.

crate::store::inbox::inbox_store!();
