//! `store::lesson_vectors` on SQLite, expanded here.

crate::store::lesson_vectors::lesson_vectors_store!();
