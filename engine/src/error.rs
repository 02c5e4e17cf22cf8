//! What every engine error tells the edges: the sentence a person may read, what kind of refusal it
//! is, and its short code. The app and the API translate through this one trait; each area words
//! its own errors by implementing it beside them, so a variant is worded once, and nowhere else.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::service::MemoryError;
    use crate::cores::CoreError;
    use crate::kernel::StoreError;
    use crate::org::OrgError;
    use crate::persona::service::PersonaError;

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
