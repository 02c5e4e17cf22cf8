//! `store::erasure` on SQLite, expanded here.

/// A kept answer's bytes read as text: SQLite reads a blob's bytes as they are.
const BODY_TEXT: &str = "CAST(body AS TEXT)";

crate::store::erasure::erasure_store!();
