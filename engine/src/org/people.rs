//! What the store keeps for people an admin adds: their invite links, their passwords, the admin
//! flag and the generation that ends their sessions. The rules are in `service::people`.

use super::{Person, PersonId, RoleId};
use crate::kernel::{Actor, StoreError};
use crate::org::NewPerson;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The refusal whenever a change would leave no admin.
pub const LAST_ADMIN: &str = "The last admin cannot be removed";

/// A link about to be made: only its secret's hash is kept (`auth::invite::hash_invite_secret`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewInvite {
    pub secret_hash: String,
    pub expires_at: DateTime<Utc>,
}

/// An invite link as the store has it, with whom it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    pub person: PersonId,
    pub name: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    /// When a newer link for the same person closed this one.
    pub replaced_at: Option<DateTime<Utc>>,
    /// The person has left: no link of theirs works.
    pub person_left: bool,
}

/// What a person reads once, at their next sign-in, after an admin reset their password.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetNotice {
    /// The admin's name.
    pub by: String,
    pub at: DateTime<Utc>,
}

impl ResetNotice {
    pub fn sentence(&self) -> String {
        format!("An admin ({}) reset your password on {}.", self.by, self.at.format("%Y-%m-%d %H:%M UTC"))
    }
}

/// The event admins see on Events for each reset.
pub const PASSWORD_RESET_EVENT: &str = "password_reset";

/// Whether a link still works, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteState {
    Open,
    Used,
    Replaced,
    Expired,
    PersonLeft,
}

impl Invite {
    /// Used and replaced come before expired: the sentence then says what really closed it.
    pub fn state(&self, now: DateTime<Utc>) -> InviteState {
        if self.person_left {
            InviteState::PersonLeft
        } else if self.used_at.is_some() {
            InviteState::Used
        } else if self.replaced_at.is_some() {
            InviteState::Replaced
        } else if now >= self.expires_at {
            InviteState::Expired
        } else {
            InviteState::Open
        }
    }
}

/// The person a session names, as a page's guard reads them once a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPerson {
    pub person: Person,
    /// Their session generation: a session signed in under an older one is over.
    pub generation: i64,
    /// Whether a reset of their password waits to be told. Read with the person, so the top bar
    /// of every page reads the notices only when one waits, not on every page.
    pub reset_notice_waiting: bool,
}

#[async_trait]
pub trait PeopleStore: Send + Sync {
    /// Adds someone with a hash no password matches, their own department role if given, and
    /// their first invite link, in one transaction, audited. `Duplicate` when the email is taken.
    async fn add_person(
        &self,
        person: &NewPerson,
        role: Option<RoleId>,
        invite: &NewInvite,
        actor: Actor,
    ) -> Result<Person, StoreError>;
    /// An admin's reset, in one transaction: the person's open links are replaced by this new one,
    /// their hash becomes `unusable_hash`, and their session generation goes up, so every session
    /// of theirs ends. It is audited, recorded as a `password_reset` event for admins' Events, and
    /// kept as a notice for the person naming `actor`, who must be a person. `NotFound` for no such
    /// person or one who has left.
    async fn reset_password(
        &self,
        person: PersonId,
        unusable_hash: &str,
        invite: &NewInvite,
        actor: Actor,
    ) -> Result<(), StoreError>;
    /// The link with this secret hash, open or not.
    async fn invite(&self, secret_hash: &str) -> Result<Option<Invite>, StoreError>;
    /// Uses a link that is still open at `at`: sets the password hash and marks the link used,
    /// together, audited as the person. `None` when it is no longer open (used, replaced, expired,
    /// or the person left), and then nothing changes.
    async fn use_invite(
        &self,
        secret_hash: &str,
        password_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<Person>, StoreError>;
    /// A person's own new password: the hash is set and their session generation goes up,
    /// together, audited. Returns the new generation. `NotFound` for someone who left.
    async fn change_password(&self, person: PersonId, password_hash: &str, actor: Actor) -> Result<i64, StoreError>;
    /// Makes a current person an admin or takes it away, audited. `LastAdmin` when that would
    /// leave no current admin, decided inside the transaction so racing demotions cannot both
    /// pass; `NotFound` for no such person or one who has left.
    async fn set_admin(&self, person: PersonId, admin: bool, actor: Actor) -> Result<(), StoreError>;
    /// The person a session names, with their current session generation and whether a reset
    /// notice waits for them.
    async fn person_with_generation(&self, person: PersonId) -> Result<Option<SessionPerson>, StoreError>;
    /// The newest reset of the person's password they have not yet been told of, marking every
    /// waiting one shown at `at`, so each is told once.
    async fn take_reset_notice(&self, person: PersonId, at: DateTime<Utc>) -> Result<Option<ResetNotice>, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_reset_notice_names_the_admin_and_when() {
        let at = Utc.with_ymd_and_hms(2026, 12, 4, 21, 5, 0).unwrap();
        let notice = ResetNotice { by: "Ada Lovelace".into(), at };
        assert_eq!(notice.sentence(), "An admin (Ada Lovelace) reset your password on 2026-12-04 21:05 UTC.");
    }

    #[test]
    fn a_link_is_closed_by_what_really_closed_it() {
        let t = |h| Utc.with_ymd_and_hms(2026, 12, 1, h, 0, 0).unwrap();
        let open = Invite {
            person: PersonId(1),
            name: "Ada".into(),
            email: "ada@acme.example".into(),
            created_at: t(0),
            expires_at: t(10),
            used_at: None,
            replaced_at: None,
            person_left: false,
        };
        assert_eq!(open.state(t(9)), InviteState::Open);
        assert_eq!(open.state(t(10)), InviteState::Expired);
        let used = Invite { used_at: Some(t(1)), ..open.clone() };
        assert_eq!(used.state(t(11)), InviteState::Used);
        let replaced = Invite { replaced_at: Some(t(1)), ..open.clone() };
        assert_eq!(replaced.state(t(11)), InviteState::Replaced);
        let left = Invite { person_left: true, ..used };
        assert_eq!(left.state(t(1)), InviteState::PersonLeft);
    }
}
