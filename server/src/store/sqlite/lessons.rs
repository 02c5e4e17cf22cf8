//! `store::lessons` on SQLite, expanded here.

crate::store::lessons::lessons_store!();
