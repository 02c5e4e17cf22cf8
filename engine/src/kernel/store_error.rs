//! What every store says when it fails, and who made a change.

use super::ids::PersonId;
use chrono::{DateTime, Utc};

/// Why a store read or write did not happen. Each area's error takes it with `From`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A versioned write was based on a version that is no longer current.
    #[error("changed: current version is {current}")]
    Changed { current: u32 },
    /// A unique name or key is already taken.
    #[error("duplicate: {0}")]
    Duplicate(String),
    #[error("not found: {0}")]
    NotFound(String),
    /// The backend failed; the text is for logs, never for people.
    #[error("backend: {0}")]
    Backend(String),
    /// The change would leave the company without a current admin.
    #[error("the last admin cannot be removed")]
    LastAdmin,
}

/// Who did a change, for the audit trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Actor {
    pub person: Option<PersonId>,
    pub at: DateTime<Utc>,
}

/// A store error reaching an edge is never the person's to read: the services word the refusals.
impl crate::error::UserSafe for StoreError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::Internal
    }

    fn code(&self) -> &'static str {
        "internal"
    }

    fn internal_detail(&self) -> Option<String> {
        Some(self.to_string())
    }
}
