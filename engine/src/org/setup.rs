//! The first run: an empty database gets its company and its first admin, once.

use super::{Company, Person};
use crate::error::{ErrorKind, UserSafe};
use crate::kernel::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// The refusal of every setup after the first.
pub const ALREADY_SET_UP: &str = "Engram is already set up; sign in instead";

/// The first admin as the store keeps them: the password already hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstAdmin {
    pub name: String,
    pub email: String,
    pub password_hash: String,
}

/// What a setup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetUp {
    /// The company is made and this is its first admin.
    Done(Person),
    /// A company already exists (perhaps made a moment ago by a racing setup); nothing changed.
    AlreadySetUp,
}

#[async_trait]
pub trait SetupStore: Send + Sync {
    /// In one transaction: the company, its first admin (an admin from the start) and their audit
    /// rows, the admin named as who did it. Only while there is no company: of any number of
    /// setups, racing or not, exactly one is `Done`.
    async fn set_up_company(
        &self,
        company: &Company,
        admin: &FirstAdmin,
        at: DateTime<Utc>,
    ) -> Result<SetUp, StoreError>;
}

/// Every IANA zone name chrono-tz knows, for the setup's list; `TimeZoneName::parse` accepts each.
pub fn time_zone_names() -> impl Iterator<Item = &'static str> {
    chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name())
}

/// Why a setup was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Something typed breaks a rule; the sentence says which.
    #[error("{0}")]
    Invalid(String),
    #[error("{ALREADY_SET_UP}")]
    AlreadySetUp,
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl From<StoreError> for SetupError {
    fn from(e: StoreError) -> Self {
        SetupError::Internal(e.to_string())
    }
}

impl UserSafe for SetupError {
    fn kind(&self) -> ErrorKind {
        match self {
            SetupError::Invalid(_) => ErrorKind::Invalid,
            SetupError::AlreadySetUp => ErrorKind::Conflict,
            SetupError::Internal(_) => ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            SetupError::Invalid(_) => "invalid",
            SetupError::AlreadySetUp => "already_set_up",
            SetupError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            SetupError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::org::TimeZoneName;

    #[test]
    fn every_listed_zone_parses_and_the_list_is_the_iana_one() {
        let names: Vec<_> = time_zone_names().collect();
        assert!(names.len() > 400, "{} zones", names.len());
        assert!(names.contains(&"Asia/Kolkata") && names.contains(&"UTC"));
        for n in names {
            assert_eq!(TimeZoneName::parse(n).unwrap().as_str(), n);
        }
    }

    #[test]
    fn refusals_read_plainly_and_hide_what_went_wrong_inside() {
        assert_eq!(SetupError::AlreadySetUp.user_message(), ALREADY_SET_UP);
        assert_eq!(SetupError::AlreadySetUp.kind(), ErrorKind::Conflict);
        let inside = SetupError::from(StoreError::Backend("disk full".into()));
        assert!(!inside.user_message().contains("disk"));
        assert_eq!(inside.internal_detail().as_deref(), Some("backend: disk full"));
    }
}
