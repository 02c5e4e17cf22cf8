//! `store::nightly` on PostgreSQL, expanded here.

/// The larger of two values: PostgreSQL's GREATEST.
const GREATEST: &str = "GREATEST";

crate::store::nightly::nightly_store!();
