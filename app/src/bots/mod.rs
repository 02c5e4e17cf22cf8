//! The bots' side: the roster, each bot's page with its memory and self-edits, and the improve
//! cards and self-edits a person applies, approves, closes or undoes.

pub mod agent_tokens_view;
pub mod apply_improvement;
pub mod bot_page;
pub mod close_improvement;
pub mod decide_self_edit;
pub mod edit_memory_line;
pub mod improve_card;
pub mod improve_page;
pub mod load_agent_page;
pub mod load_improve_cards;
pub mod load_roster;
pub mod memory_audit_view;
pub mod retire_memory_line;
pub mod revoke_agent_token;
pub mod roster_page;
pub mod run_memory_audit;
pub mod self_edit_view;
pub mod undo_memory_audit;
pub mod undo_self_edit;
