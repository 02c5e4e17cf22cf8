//! `store::cores` on PostgreSQL, expanded here.

crate::store::cores::cores_store!();
