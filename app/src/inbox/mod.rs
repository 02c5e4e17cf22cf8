//! The Inbox: what a person's runs would do that acts, to approve or decline.

pub mod decide_action;
pub mod inbox_page;
pub mod load_inbox;
