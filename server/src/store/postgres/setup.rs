//! `store::setup` on PostgreSQL, expanded here.

crate::store::setup::setup_store!();
