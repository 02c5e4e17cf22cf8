//! Events, for admins: what runs used, by id only.

pub mod events_page;
pub mod load_events;
