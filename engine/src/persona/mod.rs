//! Agent persona memory: each bot's own, bounded memory (seed 000).
//!
//! The pure rules: the `memory:` block and what no block may set, the rendering of a bot's active
//! lines into its bounded core block, the strict reading of a reflect reply, and the validator
//! every self-improvement proposal must pass before a person may apply it. Around them: the
//! records (tasks, wakeups, episodes, rows), the store and vault traits, and the operations.

pub mod apply;
pub mod audn;
pub mod backlog;
pub mod bot_tokens;
pub mod config;
pub mod memory_audit;
pub mod memory_audit_apply;
pub mod memory_audit_checks;
pub mod memory_audit_model;
pub mod memory_audit_store;
pub mod model;
pub mod org_yaml;
pub mod proposal;
pub mod recall;
pub mod render;
pub mod self_edit;
pub mod self_edit_store;
pub mod self_reflect;
pub mod service;
pub mod store;
pub mod vault;
