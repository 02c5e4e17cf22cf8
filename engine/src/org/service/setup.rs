//! The first run: "Set up Engram" and `engram init`. Anyone may set up an empty database; once a
//! company exists nobody can, and the refusal says to sign in.

use super::OrgService;
use crate::auth::rules::NewPassword;
use crate::kernel::StoreError;
use crate::org::names::{parse_display_name, EmailAddress};
use crate::org::setup::{FirstAdmin, SetUp, SetupError};
use crate::org::{Company, LocaleName, Person, TimeZoneName};

/// What the first admin types to set up Engram, as typed.
#[derive(Debug, Clone, Copy)]
pub struct SetupRequest<'a> {
    pub company: &'a str,
    pub time_zone: &'a str,
    /// How numbers and dates read; empty for the default.
    pub locale: &'a str,
    pub admin_name: &'a str,
    pub admin_email: &'a str,
    pub password: &'a str,
}

impl OrgService {
    /// Whether the company exists, so the first run is over.
    pub async fn is_set_up(&self) -> Result<bool, StoreError> {
        Ok(self.store.company().await?.is_some())
    }

    /// Makes the company and its first admin, in one transaction, only on an empty database.
    /// Returns the admin, for signing them in.
    pub async fn set_up(&self, request: SetupRequest<'_>) -> Result<Person, SetupError> {
        // A second browser that had the form open learns first that it is too late, whatever it typed.
        if self.is_set_up().await? {
            return Err(SetupError::AlreadySetUp);
        }
        let invalid = |e: crate::org::OrgError| SetupError::Invalid(e.to_string());
        let name = parse_display_name(request.company, "The company").map_err(invalid)?;
        let time_zone = TimeZoneName::parse(request.time_zone).map_err(invalid)?;
        let locale = match request.locale.trim() {
            "" => LocaleName::default(),
            typed => LocaleName::parse(typed).map_err(invalid)?,
        };
        let admin_name = parse_display_name(request.admin_name, "The admin").map_err(invalid)?;
        let email = EmailAddress::parse(request.admin_email).map_err(invalid)?;
        let password = NewPassword::parse(request.password).map_err(|e| SetupError::Invalid(e.to_string()))?;
        let password_hash = self.throttle.hashing().hash(password.into_string()).await.map_err(|e| match e {
            busy @ crate::auth::AuthError::Throttled { .. } => SetupError::Invalid(busy.to_string()),
            e => SetupError::Internal(format!("hashing the first admin's password: {e:?}")),
        })?;
        let company = Company { name, time_zone, locale };
        let admin = FirstAdmin { name: admin_name, email: email.as_str().to_string(), password_hash };
        match self.store.set_up_company(&company, &admin, self.clock.now()).await {
            Ok(SetUp::Done(person)) => Ok(person),
            Ok(SetUp::AlreadySetUp) => Err(SetupError::AlreadySetUp),
            Err(e) => Err(e.into()),
        }
    }
}
