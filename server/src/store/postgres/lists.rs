//! `store::lists` on PostgreSQL, expanded here.

crate::store::lists::lists_store!();
