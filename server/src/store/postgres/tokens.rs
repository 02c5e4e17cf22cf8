//! `store::tokens` on PostgreSQL, expanded here.

crate::store::tokens::tokens_store!();
