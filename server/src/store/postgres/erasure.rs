//! `store::erasure` on PostgreSQL, expanded here.

/// A kept answer's bytes read as text. `encode(…, 'escape')` reads any bytes, where
/// `convert_from` would fail the whole erasure on one that is not UTF-8; bytes outside ASCII come
/// out escaped, and the engine decides on the bytes themselves.
const BODY_TEXT: &str = "encode(body, 'escape')";

crate::store::erasure::erasure_store!();
