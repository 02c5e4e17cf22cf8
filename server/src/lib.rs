//! The `engram` server: router, sessions, storage, the API and the CLI.

pub mod agent_model;
pub mod agents_api;
pub mod api;
pub mod archive;
pub mod auth;
pub mod cli;
pub mod connector;
pub mod guard;
pub mod idempotency;
pub mod inbox_api;
pub mod init;
pub mod llm;
pub mod org_api;
pub mod org_cli;
pub mod outbox;
pub mod password;
pub mod people_api;
pub mod people_cli;
pub mod people_import_api;
pub mod request_id;
pub mod runs_api;
pub mod runs_cli;
pub mod secrets;
pub mod security;
pub mod settings;
pub mod setup;
pub mod startup;
pub mod state;
pub mod statics;
pub mod store;
pub mod teams_api;
pub mod vault;

pub use settings::Settings;
pub use startup::Application;
pub use state::AppState;
