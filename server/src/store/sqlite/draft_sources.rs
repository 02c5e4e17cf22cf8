//! `store::draft_sources` on SQLite, expanded here.

crate::store::draft_sources::draft_sources_store!();
