//! What every engine error tells the edges: the sentence a person may read, what kind of refusal it
//! is, and its short code. The app and the API translate through this one trait, so a new error
//! or variant is worded once, here, and nowhere else.

use crate::cards::service::MemoryError;
use crate::cores::CoreError;
use crate::org::OrgError;
use crate::persona::service::PersonaError;
use crate::store::StoreError;

/// The sentence shown for any failure inside; the detail goes to the log, never to the person.
pub const INTERNAL_MESSAGE: &str = "Something went wrong on our side; nothing was changed. Try again.";

/// What kind of refusal an error is; the API answers each kind with its own status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is malformed, before any rule is asked.
    BadRequest,
    /// The input breaks a rule.
    Invalid,
    /// Who asks may not do this.
    NotAllowed,
    /// Who asks is not known, or not who they say.
    Unauthorized,
    NotFound,
    /// Someone else changed it first, or it was already decided.
    Conflict,
    /// Too many attempts; nothing was checked.
    Throttled,
    /// Something outside the database (the vault) did not answer.
    Unavailable,
    /// Ours, not theirs: logged, and answered with [`INTERNAL_MESSAGE`].
    Internal,
}

/// An engine error as the edges show it.
pub trait UserSafe: std::fmt::Display {
    fn kind(&self) -> ErrorKind;
    /// A short code for the API's `error` field.
    fn code(&self) -> &'static str;
    /// What went wrong inside, for the log; `None` for a refusal a person may read.
    fn internal_detail(&self) -> Option<String>;
    /// The sentence a person reads.
    fn user_message(&self) -> String {
        match self.internal_detail() {
            Some(_) => INTERNAL_MESSAGE.to_string(),
            None => self.to_string(),
        }
    }
}

impl UserSafe for CoreError {
    fn kind(&self) -> ErrorKind {
        match self {
            CoreError::NotAllowed(_) => ErrorKind::NotAllowed,
            CoreError::OverLimit { .. }
            | CoreError::SuggestionOverLimit { .. }
            | CoreError::Invalid(_)
            | CoreError::Secret(_) => ErrorKind::Invalid,
            CoreError::Changed { .. } | CoreError::SuggestionStale { .. } | CoreError::SuggestionDecided(_) => {
                ErrorKind::Conflict
            }
            CoreError::NotFound(_) => ErrorKind::NotFound,
            CoreError::BadBefore => ErrorKind::BadRequest,
            CoreError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            CoreError::NotAllowed(_) => "not_allowed",
            CoreError::OverLimit { .. } => "over_limit",
            CoreError::Changed { .. } => "changed",
            CoreError::SuggestionStale { .. } => "suggestion_stale",
            CoreError::SuggestionOverLimit { .. } => "over_limit",
            CoreError::SuggestionDecided(_) => "already_decided",
            CoreError::NotFound(_) => "not_found",
            CoreError::Invalid(_) => "invalid",
            CoreError::Secret(_) => "secret",
            CoreError::BadBefore => "invalid_before",
            CoreError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            CoreError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

impl UserSafe for OrgError {
    fn kind(&self) -> ErrorKind {
        match self {
            OrgError::Invalid(_) => ErrorKind::Invalid,
            OrgError::NotAllowed(_) => ErrorKind::NotAllowed,
            OrgError::NotFound(_) => ErrorKind::NotFound,
            OrgError::Duplicate(_) => ErrorKind::Conflict,
            OrgError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            OrgError::Invalid(_) => "invalid",
            OrgError::NotAllowed(_) => "not_allowed",
            OrgError::NotFound(_) => "not_found",
            OrgError::Duplicate(_) => "duplicate",
            OrgError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            OrgError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

/// Every refusal of a person's memory is answered alike: what they may see of their cards is
/// theirs, so the API does not tell "not found" from "not allowed" here.
impl UserSafe for MemoryError {
    fn kind(&self) -> ErrorKind {
        match self {
            MemoryError::Internal(_) => ErrorKind::Internal,
            _ => ErrorKind::Invalid,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            MemoryError::Internal(_) => "internal",
            MemoryError::Secret(_) => "secret",
            _ => "refused",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            MemoryError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

impl UserSafe for PersonaError {
    fn kind(&self) -> ErrorKind {
        match self {
            PersonaError::Vault(_) => ErrorKind::Unavailable,
            PersonaError::NotOnRoster(_) | PersonaError::NotFound(_) => ErrorKind::NotFound,
            PersonaError::NotAllowed(_) => ErrorKind::NotAllowed,
            PersonaError::Invalid(_)
            | PersonaError::Secret(_)
            | PersonaError::Refused(_)
            | PersonaError::TranscriptRefused { .. } => ErrorKind::Invalid,
            PersonaError::Changed(_) => ErrorKind::Conflict,
            PersonaError::Throttled(_) => ErrorKind::Throttled,
            PersonaError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            PersonaError::Vault(_) => "vault",
            PersonaError::NotOnRoster(_) => "not_on_roster",
            PersonaError::NotAllowed(_) => "not_allowed",
            PersonaError::Invalid(_) => "invalid",
            PersonaError::Secret(_) => "secret",
            PersonaError::NotFound(_) => "not_found",
            PersonaError::Changed(_) => "changed",
            PersonaError::Throttled(_) => "throttled",
            PersonaError::Refused(_) => "proposal_refused",
            PersonaError::TranscriptRefused { .. } => "transcript_refused",
            PersonaError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            PersonaError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

impl UserSafe for crate::runs::RunError {
    fn kind(&self) -> ErrorKind {
        use crate::runs::RunError;
        match self {
            RunError::Invalid(_) => ErrorKind::Invalid,
            RunError::NotFound(_) => ErrorKind::NotFound,
            RunError::NotAllowed(_) => ErrorKind::NotAllowed,
            RunError::Changed(_) => ErrorKind::Conflict,
            RunError::SessionRequired => ErrorKind::Unauthorized,
            RunError::Store(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        use crate::runs::RunError;
        match self {
            RunError::Invalid(_) => "invalid",
            RunError::NotFound(_) => "not_found",
            RunError::NotAllowed(_) => "not_allowed",
            RunError::Changed(_) => "changed",
            RunError::SessionRequired => "session_required",
            RunError::Store(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            crate::runs::RunError::Store(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

/// A store error reaching an edge is never the person's to read: the services word the refusals.
impl UserSafe for StoreError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }

    fn code(&self) -> &'static str {
        "internal"
    }

    fn internal_detail(&self) -> Option<String> {
        Some(self.to_string())
    }
}

#[cfg(feature = "server")]
impl UserSafe for crate::auth::AuthError {
    fn kind(&self) -> ErrorKind {
        use crate::auth::AuthError;
        match self {
            AuthError::Refused => ErrorKind::Unauthorized,
            AuthError::Invalid(_) => ErrorKind::Invalid,
            AuthError::Throttled { .. } => ErrorKind::Throttled,
            AuthError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        use crate::auth::AuthError;
        match self {
            AuthError::Refused => "refused",
            AuthError::Invalid(_) => "invalid",
            AuthError::Throttled { .. } => "throttled",
            AuthError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            crate::auth::AuthError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internals_are_never_shown_and_refusals_are_shown_as_worded() {
        let inside = CoreError::Internal("disk I/O error at page 7".into());
        assert_eq!(inside.user_message(), INTERNAL_MESSAGE);
        assert_eq!(inside.internal_detail().as_deref(), Some("disk I/O error at page 7"));
        assert_eq!(inside.kind(), ErrorKind::Internal);
        let refused = OrgError::NotAllowed("Only an admin can add a role".into());
        assert_eq!(refused.user_message(), "Only an admin can add a role");
        assert_eq!(
            (refused.kind(), refused.code(), refused.internal_detail()),
            (ErrorKind::NotAllowed, "not_allowed", None)
        );
        let changed = CoreError::Changed { current: 4 };
        assert_eq!(changed.user_message(), "This core changed since you opened it: reload and try again");
        assert_eq!((changed.kind(), changed.code()), (ErrorKind::Conflict, "changed"));
        let memory = MemoryError::NotFound("There is no card #9".into());
        assert_eq!(
            (memory.kind(), memory.code(), memory.user_message().as_str()),
            (ErrorKind::Invalid, "refused", "There is no card #9")
        );
        assert_eq!(PersonaError::NotOnRoster("x".into()).kind(), ErrorKind::NotFound);
        assert_eq!(PersonaError::Internal("boom".into()).user_message(), INTERNAL_MESSAGE);
        let store = StoreError::Backend("pool timed out".into());
        assert_eq!((store.kind(), store.user_message().as_str()), (ErrorKind::Internal, INTERNAL_MESSAGE));
        assert_eq!(store.internal_detail().as_deref(), Some("backend: pool timed out"));
    }
}
