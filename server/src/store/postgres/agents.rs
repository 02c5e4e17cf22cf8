//! `store::agents` on PostgreSQL, expanded here.

crate::store::agents::agents_store!();
