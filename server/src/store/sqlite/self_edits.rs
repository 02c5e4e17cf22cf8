//! `store::self_edits` on SQLite, expanded here.

crate::store::self_edits::self_edits_store!();
