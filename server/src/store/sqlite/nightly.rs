//! `store::nightly` on SQLite, expanded here.

/// The larger of two values: SQLite's MAX of two arguments.
const GREATEST: &str = "MAX";

crate::store::nightly::nightly_store!();
