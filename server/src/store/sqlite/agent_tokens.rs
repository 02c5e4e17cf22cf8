//! `store::agent_tokens` on SQLite, expanded here.

crate::store::agent_tokens::agent_tokens_store!();
