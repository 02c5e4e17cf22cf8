//! `store::inbox` on PostgreSQL, expanded here.

crate::store::inbox::inbox_store!();
