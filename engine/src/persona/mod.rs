//! Agent persona memory: each bot's own, bounded memory (seed 000).
//!
//! This part holds the pure rules: the `memory:` block and what no block may set, and the rendering
//! of a bot's active lines into its bounded core block.

pub mod config;
pub mod render;
