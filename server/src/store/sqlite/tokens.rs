//! `store::tokens` on SQLite, expanded here.

crate::store::tokens::tokens_store!();
