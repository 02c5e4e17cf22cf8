//! Person memory: cards, short copies of records from connected systems (seed 001).
//!
//! This part holds the ranking rules: ACT-R base-level activation over a person's uses of a card,
//! the compact summary that approximates it without reading a card's whole history, and the cap on
//! how many cards a person keeps.

pub mod activation;
pub mod select;
