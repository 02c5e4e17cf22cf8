//! `store::lesson_vectors` on PostgreSQL, expanded here.

crate::store::lesson_vectors::lesson_vectors_store!();
