//! `store::idempotency` on SQLite, expanded here.

crate::store::idempotency::idempotency_store!();
