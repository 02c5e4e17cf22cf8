//! `store::people` on PostgreSQL, expanded here.

crate::store::people::people_store!();

/// Locks the link's row and its person's while a link is used (see `use_invite`): only PostgreSQL
/// names the tables a lock is for.
const LOCK_INVITE: &str = " FOR UPDATE OF p, i";
