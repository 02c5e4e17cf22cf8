//! The first run: Set up Engram, where an empty database gets its company and first admin.

pub mod load_setup;
pub mod set_up;
pub mod setup_page;

use serde::{Deserialize, Serialize};

/// Where the setup lives: on an empty database every page leads here.
pub const SETUP: &str = "/setup";

/// What a refused setup keeps for the form: everything typed but the password, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SetupDraft {
    pub company: String,
    pub zone: String,
    pub locale: String,
    pub name: String,
    pub email: String,
    pub message: String,
}

pub const SETUP_DRAFT_KEY: &str = "setup";

/// The zone the list starts on before anything was chosen.
pub const DEFAULT_ZONE: &str = "UTC";
