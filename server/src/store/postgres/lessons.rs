//! `store::lessons` on PostgreSQL, expanded here.

crate::store::lessons::lessons_store!();
