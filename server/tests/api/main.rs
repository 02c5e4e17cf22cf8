//! Integration tests: the real server on port 0, a real SQLite file (or PostgreSQL database), driven over HTTP.

mod agent_model;
mod agent_model_server;
mod archive;
mod auth;
mod bots;
mod cards;
mod cards_forgetting;
mod cards_setup;
mod cli;
mod company_key;
mod cores;
mod helpers;
mod http;
mod idempotency;
mod model_server;
mod org;
mod pages;
mod people_import;
mod postgres;
mod racing_reads;
mod runs;
mod runs_block;
mod secrets;
mod setup;
mod tracing;
mod whos_who;
