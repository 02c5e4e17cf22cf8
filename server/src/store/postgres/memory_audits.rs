//! `store::memory_audits` on PostgreSQL, expanded here.

crate::store::memory_audits::memory_audits_store!();
