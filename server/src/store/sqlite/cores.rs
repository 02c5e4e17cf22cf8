//! `store::cores` on SQLite, expanded here.

crate::store::cores::cores_store!();
