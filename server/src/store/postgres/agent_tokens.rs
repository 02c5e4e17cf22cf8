//! `store::agent_tokens` on PostgreSQL, expanded here.

crate::store::agent_tokens::agent_tokens_store!();
