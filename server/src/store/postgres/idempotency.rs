//! `store::idempotency` on PostgreSQL, expanded here.

crate::store::idempotency::idempotency_store!();
