//! The store contract suite: what every backend must do, written once against the store traits
//! (`Arc<dyn engine::store::Store>`) and run on each backend, as `sqlite_<case>` on a fresh SQLite
//! file and `postgres_<case>` on a fresh PostgreSQL database.
//!
//! Every later change to a store, on either backend, must pass this whole suite on both. A new
//! trait method gets its cases here, refusals included. SQLite is the reference: when a case
//! passes there and fails on PostgreSQL, the PostgreSQL store is wrong.
//!
//! The PostgreSQL cases need `ENGRAM_TEST_POSTGRES_URL`, a server where they may create and drop
//! databases; `scripts/check` starts one and sets it.

mod agent_tokens;
mod agents;
mod archive;
mod backends;
mod bot_tokens;
mod card_terms;
mod cards;
mod checks;
mod connectors;
mod cores;
mod draft_sources;
mod erasure;
mod idempotency;
mod import;
mod inbox;
mod keep;
mod lesson_vectors;
mod lessons;
mod listing;
mod memory_audits;
mod memory_scopes;
mod nightly;
mod operations;
mod org;
mod people;
mod persona;
mod pool;
mod row_security;
mod runs;
mod schedules;
mod secrets;
mod self_edits;
mod setup;
mod snapshots;
mod teams;
mod thread_lines;
mod tokens;
mod tool_pins;
mod traces;
mod whoswho;
