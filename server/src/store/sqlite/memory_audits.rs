//! `store::memory_audits` on SQLite, expanded here.

crate::store::memory_audits::memory_audits_store!();
