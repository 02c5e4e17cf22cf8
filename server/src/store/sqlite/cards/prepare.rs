//! `store::cards::prepare` on SQLite, expanded here.

crate::store::cards::prepare::prepare_store!();
