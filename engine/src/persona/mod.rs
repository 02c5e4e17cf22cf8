//! Agent persona memory: each bot's own, bounded memory (seed 000).
//!
//! The pure rules live here: the `memory:` block and what no block may set, the rendering of a
//! bot's active lines into its bounded core block, and the validator every self-improvement
//! proposal must pass before a person may apply it.

pub mod audn;
pub mod config;
pub mod proposal;
pub mod render;
