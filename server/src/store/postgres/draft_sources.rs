//! `store::draft_sources` on PostgreSQL, expanded here.

crate::store::draft_sources::draft_sources_store!();
