//! `store::backlog` on SQLite, expanded here.

crate::store::backlog::backlog_store!();
