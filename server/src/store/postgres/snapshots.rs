//! `store::snapshots` on PostgreSQL, expanded here.

crate::store::snapshots::snapshots_store!();
