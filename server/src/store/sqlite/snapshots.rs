//! `store::snapshots` on SQLite, expanded here.

crate::store::snapshots::snapshots_store!();
