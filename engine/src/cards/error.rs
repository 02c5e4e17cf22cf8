//! The cards' errors: why a person's memory of records refused or failed, and why a read was not
//! made. They stand low in the area, so its rules (fact limits, what a run loaded) can refuse in
//! the area's own words without reaching up to its services.

crate::refusal_error!(
    /// Why a person's memory of records refused or failed.
    MemoryError
);

/// Why a read was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadRefusal {
    #[error("{0} is switched off")]
    Killed(String),
    #[error("{0}'s hourly limit of {1} reads is spent")]
    Limit(String, u32),
    #[error("{0} reads with your own key, and you have not given one")]
    NeedsOwnKey(String),
    #[error("{0} has no company key")]
    NoCompanyKey(String),
    /// The connector's toolset does not admit the person: they could not fetch it themselves.
    #[error("{0} does not admit your role")]
    NotAdmitted(String),
    /// Whether they are admitted could not be decided; the sentence is already safe to show.
    #[error("{0}")]
    Undecided(String),
}

/// A read refused at the gate is the person's to read, as worded.
impl From<ReadRefusal> for MemoryError {
    fn from(r: ReadRefusal) -> Self {
        MemoryError::NotAllowed(r.to_string())
    }
}
