//! The memory kernel: domain types and rules, and the traits storage and clocks implement.
//!
//! Nothing here knows about HTTP, Leptos or SQL. The pure parts (token counting, limits, diffs)
//! compile to wasm so the browser's meter counts exactly as the server does.

pub mod archive;
#[cfg(feature = "server")]
pub mod auth;
pub mod canon;
pub mod cards;
pub mod clock;
pub mod cores;
pub mod diff;
pub mod erasure;
pub mod error;
pub mod kernel;
pub mod learning;
pub mod lessons;
pub mod locale;
pub mod operations;
pub mod org;
pub mod persona;
pub mod quoting;
pub mod runs;
pub mod secrets;
#[cfg(feature = "server")]
pub mod services;
pub mod store;
pub mod terms;
pub mod tokens;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{ErrorKind, UserSafe};
