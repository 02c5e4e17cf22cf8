//! `store::people` on SQLite, expanded here.

crate::store::people::people_store!();

/// Nothing: using a link runs in a transaction begun IMMEDIATE, which already excludes every other
/// writer.
const LOCK_INVITE: &str = "";
