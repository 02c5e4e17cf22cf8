//! The demo company `engram demo` serves: its people and cores, its bots' vault and first runs,
//! its cards, and the stand-in Acme ATS they are read from. None of it is part of the product
//! server; the server only calls in here when asked for the demo.

pub mod acme_ats;
pub mod bots;
pub mod cards;
pub mod company;
