//! The web side: the routers and their handlers, and the layers every request passes through.

pub mod agent_tokens_api;
pub mod agents_api;
pub mod api;
pub mod auth;
pub mod bots_api;
pub mod erasure_api;
pub mod guard;
pub mod idempotency;
pub mod inbox_api;
pub mod knowledge_api;
pub mod mcp;
pub mod mcp_external;
pub mod openapi;
pub mod ops_api;
pub mod people_api;
pub mod people_import_api;
pub mod request_id;
pub mod runs_api;
pub mod schedules_api;
pub mod security;
pub mod setup;
pub mod state;
pub mod statics;
pub mod teams_api;
pub mod trigger_api;
