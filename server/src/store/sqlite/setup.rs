//! `store::setup` on SQLite, expanded here.

crate::store::setup::setup_store!();
