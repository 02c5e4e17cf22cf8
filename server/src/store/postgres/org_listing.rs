//! `store::org_listing` on PostgreSQL, expanded here.

crate::store::org_listing::org_listing_store!();
