//! The `engram` server: router, sessions, storage, the API and the CLI.
//!
//! - `http/`: the routers, their handlers and the layers around them;
//! - `cli/`: the `engram` command line;
//! - `adapters/`: what the engine's ports reach the world through (models, connectors, the vault,
//!   the outbox and the outbound policy they share);
//! - `jobs/`: the timed jobs a server runs;
//! - `store/`: the SQLite and PostgreSQL stores; `secrets/`: the key that seals connector keys;
//! - `telemetry`: the OpenTelemetry traces, sent only when an operator names a collector.

pub mod adapters;
pub mod cli;
pub mod http;
pub mod jobs;
pub mod secrets;
pub mod settings;
pub mod startup;
pub mod store;
pub mod telemetry;

pub use adapters::{agent_model, connector, embed, live_checks, llm, outbound, outbox, vault};
pub use cli::{archive, bots_cli, init, jobs_cli, memory_audit_cli, password, people_cli, runs_cli};
pub use http::{idempotency, state};
pub use settings::Settings;
pub use startup::Application;
pub use state::AppState;
