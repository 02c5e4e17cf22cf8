//! `store::memory_scopes` on SQLite, expanded here.

crate::store::memory_scopes::memory_scopes_store!();
