//! `store::memory_scopes` on PostgreSQL, expanded here.

crate::store::memory_scopes::memory_scopes_store!();
