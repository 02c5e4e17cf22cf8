//! `store::backlog` on PostgreSQL, expanded here.

crate::store::backlog::backlog_store!();
