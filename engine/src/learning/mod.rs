//! Learning: what memory learns on its own. The nightly job reads the day's runs and keeps
//! lessons; Draft from what exists drafts a core from cores, lessons and answers. It stands above
//! runs, lessons and cores, which it reads, and nothing below imports it.

pub mod draft;
pub mod nightly;
