//! `store::teams` on PostgreSQL, expanded here.

crate::store::teams::teams_store!();
