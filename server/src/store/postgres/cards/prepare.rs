//! `store::cards::prepare` on PostgreSQL, expanded here.

crate::store::cards::prepare::prepare_store!();
