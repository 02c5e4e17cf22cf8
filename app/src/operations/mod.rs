//! Company → Operations, for admins: what memory costs, in counts and sizes, never what it says.

pub mod load_operations;
pub mod operations_page;
