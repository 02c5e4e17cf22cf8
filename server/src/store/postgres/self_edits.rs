//! `store::self_edits` on PostgreSQL, expanded here.

crate::store::self_edits::self_edits_store!();
