//! `store::agents` on SQLite, expanded here.

crate::store::agents::agents_store!();
