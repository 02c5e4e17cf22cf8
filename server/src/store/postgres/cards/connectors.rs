//! `store::cards::connectors` on PostgreSQL, expanded here.

crate::store::cards::connectors::connectors_store!();
