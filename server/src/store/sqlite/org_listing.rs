//! `store::org_listing` on SQLite, expanded here.

crate::store::org_listing::org_listing_store!();
