//! `store::cards::connectors` on SQLite, expanded here.

crate::store::cards::connectors::connectors_store!();
