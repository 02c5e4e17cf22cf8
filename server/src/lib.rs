//! The `engram` server: router, sessions, storage, the API and the CLI.

pub mod api;
pub mod auth;
pub mod cli;
pub mod demo;
pub mod guard;
pub mod settings;
pub mod startup;
pub mod store;

pub use settings::Settings;
pub use startup::{AppState, Application};
