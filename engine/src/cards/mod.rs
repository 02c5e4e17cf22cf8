//! Person memory: cards, short copies of records from connected systems (seed 001).
//!
//! The rules: ACT-R base-level activation over a person's uses of a card, the compact summary that
//! approximates it without reading a card's whole history, the cap on how many cards a person
//! keeps, the selection for a question, and who may see a card, decided each time it is read.
//! Around them: connectors and the shapes of their records, the store, and the operations.

pub mod access;
pub mod activation;
pub mod card;
pub mod draft;
pub mod error;
pub mod facts;
pub mod keep;
pub mod loaded;
pub mod pins;
pub mod select;
pub mod service;
pub mod snapshots;
pub mod source;
pub mod store;
