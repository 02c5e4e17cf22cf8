//! `store::teams` on SQLite, expanded here.

crate::store::teams::teams_store!();
