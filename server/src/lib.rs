//! The `engram` server: router, sessions, storage, the API and the CLI.

pub mod acme_ats;
pub mod api;
pub mod archive;
pub mod auth;
pub mod cli;
pub mod connector;
pub mod demo;
pub mod demo_cards;
pub mod demo_org;
pub mod guard;
pub mod idempotency;
pub mod llm;
pub mod org_api;
pub mod org_cli;
pub mod password;
pub mod request_id;
pub mod secrets;
pub mod security;
pub mod settings;
pub mod startup;
pub mod statics;
pub mod store;
pub mod vault;

pub use settings::Settings;
pub use startup::{AppState, Application};
