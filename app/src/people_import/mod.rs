//! Importing people from a CSV file: choose or paste the file, read the dry run, then add everyone
//! it accepts and copy their invite links. The file and the outcome travel in the session, so the
//! page works the same with JavaScript on and off; the form posts are plain axum handlers on the
//! server (`people_import_api`), since a file comes as a multipart post.

pub mod load_people_import;
pub mod people_import_page;

use serde::{Deserialize, Serialize};

pub const PEOPLE_IMPORT: &str = "/company/people/import";
/// The multipart form post of a file (or pasted text) to check.
pub const UPLOAD: &str = "/company/people/import/upload";
/// The form post that adds the people of the checked file.
pub const APPLY: &str = "/company/people/import/apply";

/// Session keys: the file being checked, pasted text a refusal keeps for the form, and the
/// people added, shown once.
pub const KEPT_FILE_KEY: &str = "people_import:file";
pub const PASTED_KEY: &str = "people_import:pasted";
pub const DONE_KEY: &str = "people_import:done";

/// The CSV being checked, until it is applied or replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptFile {
    pub text: String,
    /// "people.csv", or "the pasted CSV".
    pub source: String,
}

/// One person an import added, with the full link of their invite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invited {
    pub line: u32,
    pub name: String,
    pub email: String,
    pub link: String,
}

/// What an applied import shows, once: the people added and the rows it left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportResult {
    pub added: Vec<Invited>,
    pub refused: Vec<String>,
    /// How long each link works.
    pub valid_days: i64,
}
