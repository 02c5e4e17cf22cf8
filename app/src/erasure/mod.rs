//! Company → Erase a third party, for admins: an email address or phone number of someone outside
//! the company is erased from memory, with a result line that counts what went and says that a
//! later read from a source may keep it again.

pub mod erase_third_party;
pub mod erasure_page;
pub mod load_erasure;
