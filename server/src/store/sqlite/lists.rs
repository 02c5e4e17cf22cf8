//! `store::lists` on SQLite, expanded here.

crate::store::lists::lists_store!();
