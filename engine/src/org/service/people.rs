//! Adding people, their invite links and passwords, and who is an admin. An admin adds someone and
//! copies the one-time link Engram makes; no email is sent. The person sets their password there.

use super::{actor_of, known_person, known_role, People};
use crate::auth::invite::{hash_invite_secret, new_invite_secret, INVITE_DAYS, INVITE_PREFIX};
use crate::auth::rules::NewPassword;
use crate::auth::throttle::{password_throttled_message, Admission};
use crate::kernel::StoreError;
use crate::org::names::{parse_display_name, EmailAddress};
use crate::org::people::{Invite, InviteState, NewInvite, ResetNotice, LAST_ADMIN};
use crate::org::NewPerson;
use crate::org::{OrgError, Person, PersonId, RoleId, TeamId};
use chrono::{DateTime, Duration, Utc};

/// What an admin types to add someone.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddPerson {
    pub name: String,
    pub email: String,
    pub main_team: Option<TeamId>,
    /// Their own department role; without it they take their main team's.
    pub role: Option<RoleId>,
}

/// A link just made, shown once to the admin who made it: only its hash is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteLink {
    pub person: Person,
    pub secret: String,
    pub expires_at: DateTime<Utc>,
}

const UNKNOWN_LINK: &str =
    "This invite link is not known. Check that it was copied whole, or ask an admin for a new one.";

/// The plain sentence for a link that no longer works.
pub fn closed_link(state: InviteState) -> Option<&'static str> {
    match state {
        InviteState::Open => None,
        InviteState::Used => Some("This invite link was already used. Sign in, or ask an admin for a new link."),
        InviteState::Expired => Some("This invite link has expired. Ask an admin for a new one."),
        InviteState::Replaced => {
            Some("This invite link was replaced by a newer one. Use the newest link, or ask an admin for a new one.")
        }
        InviteState::PersonLeft => Some("This invite link no longer works: the person it was for has left."),
    }
}

fn password_rules(password: &str) -> Result<NewPassword, OrgError> {
    NewPassword::parse(password).map_err(|e| OrgError::Invalid(e.to_string()))
}

/// A full hashing gate is a refusal with its own sentence (nothing was changed); anything else
/// is ours.
fn hashing_failed(e: crate::auth::AuthError) -> OrgError {
    match e {
        busy @ crate::auth::AuthError::Throttled { .. } => OrgError::Invalid(busy.to_string()),
        e => OrgError::Internal(format!("password hashing: {e:?}")),
    }
}

/// A real hash of a secret nobody keeps: sign-in reads it as any other, and no password matches.
async fn unusable_hash(gate: &std::sync::Arc<crate::auth::gate::HashingGate>) -> Result<String, OrgError> {
    gate.hash(new_invite_secret()).await.map_err(hashing_failed)
}

impl People {
    fn new_invite(&self) -> (String, NewInvite) {
        let secret = new_invite_secret();
        let invite = NewInvite {
            secret_hash: hash_invite_secret(&secret),
            expires_at: self.clock.now() + Duration::days(INVITE_DAYS),
        };
        (secret, invite)
    }

    /// An admin adds someone; they can sign in once they set a password through the link returned.
    pub async fn add_person(&self, by: &Person, new: &AddPerson) -> Result<InviteLink, OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can add people".to_string()));
        }
        let name = parse_display_name(&new.name, "A person")?;
        let email = EmailAddress::parse(&new.email)?;
        if let Some(team) = new.main_team {
            self.store.team(team).await?.ok_or_else(|| OrgError::NotFound("There is no such team".to_string()))?;
        }
        known_role(&*self.store, new.role).await?;
        let person = NewPerson {
            name,
            email: email.as_str().to_string(),
            password_hash: unusable_hash(self.throttle.hashing()).await?,
            is_admin: false,
            main_team: new.main_team,
        };
        let (secret, invite) = self.new_invite();
        let person = self.store.add_person(&person, new.role, &invite, actor_of(&*self.clock, by)).await.map_err(
            |e| match e {
                StoreError::Duplicate(_) => OrgError::Duplicate(format!("Someone already has the email {email}")),
                other => other.into(),
            },
        )?;
        Ok(InviteLink { person, secret, expires_at: invite.expires_at })
    }

    /// An admin resets someone's password: a new link replaces any older one, their password stops
    /// working and their sessions end at once. The admin types their own password again
    /// (`admin_password`), so a session left open is not enough to take over someone's account;
    /// wrong guesses count against the admin's account as sign-in's do. The person is told at
    /// their next sign-in who reset it and when; admins see it on Events.
    pub async fn reset_password(
        &self,
        by: &Person,
        admin_password: &str,
        person: PersonId,
    ) -> Result<InviteLink, OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can reset a password".to_string()));
        }
        if by.id == person {
            return Err(OrgError::Invalid("Change your own password under Profile → Password".to_string()));
        }
        let p = known_person(&*self.store, person).await?;
        if p.left_at.is_some() {
            return Err(OrgError::Invalid(format!("{} has left, so their password cannot be reset", p.name)));
        }
        self.confirm_admin_password(by, admin_password).await?;
        let (secret, invite) = self.new_invite();
        self.store
            .reset_password(person, &unusable_hash(self.throttle.hashing()).await?, &invite, actor_of(&*self.clock, by))
            .await
            .map_err(|e| match e {
                StoreError::NotFound(_) => OrgError::Invalid(format!("{} has left", p.name)),
                other => other.into(),
            })?;
        Ok(InviteLink { person: p, secret, expires_at: invite.expires_at })
    }

    /// An admin makes someone an admin or takes it away; returns the sentence the admin reads.
    pub async fn set_admin(&self, by: &Person, person: PersonId, admin: bool) -> Result<String, OrgError> {
        if !by.is_admin {
            return Err(OrgError::NotAllowed("Only an admin can make someone an admin or take it away".to_string()));
        }
        let p = known_person(&*self.store, person).await?;
        if p.left_at.is_some() {
            return Err(OrgError::Invalid(format!("{} has left", p.name)));
        }
        if p.is_admin == admin {
            let already = if admin { "is already an admin" } else { "is not an admin" };
            return Err(OrgError::Invalid(format!("{} {already}", p.name)));
        }
        self.store.set_admin(person, admin, actor_of(&*self.clock, by)).await.map_err(|e| match e {
            StoreError::LastAdmin => OrgError::Invalid(LAST_ADMIN.to_string()),
            StoreError::NotFound(_) => OrgError::Invalid(format!("{} has left", p.name)),
            other => other.into(),
        })?;
        Ok(if admin { format!("{} is now an admin", p.name) } else { format!("{} is no longer an admin", p.name) })
    }

    /// The open link with this secret, or the plain sentence why it does not work.
    pub async fn open_invite(&self, secret: &str) -> Result<Invite, OrgError> {
        let secret = secret.trim();
        if !secret.starts_with(INVITE_PREFIX) {
            return Err(OrgError::NotFound(UNKNOWN_LINK.to_string()));
        }
        let invite = self
            .store
            .invite(&hash_invite_secret(secret))
            .await?
            .ok_or_else(|| OrgError::NotFound(UNKNOWN_LINK.to_string()))?;
        match closed_link(invite.state(self.clock.now())) {
            None => Ok(invite),
            Some(why) => Err(OrgError::Invalid(why.to_string())),
        }
    }

    /// The person sets their password through their link; the link is used up. Returns them, to
    /// be signed in.
    pub async fn accept_invite(&self, secret: &str, password: &str) -> Result<Person, OrgError> {
        self.open_invite(secret).await?;
        let password = password_rules(password)?;
        let hash = self.throttle.hashing().hash(password.into_string()).await.map_err(hashing_failed)?;
        match self.store.use_invite(&hash_invite_secret(secret.trim()), &hash, self.clock.now()).await? {
            Some(person) => Ok(person),
            // Closed between the first look and now (a second tab, a reset): say what closed it.
            None => match self.open_invite(secret).await {
                Err(e) => Err(e),
                Ok(_) => Err(OrgError::Internal("an open invite link could not be used".to_string())),
            },
        }
    }

    /// The admin's own current password, typed again for a reset; nothing is changed when it is
    /// wrong or the account is throttled.
    async fn confirm_admin_password(&self, admin: &Person, password: &str) -> Result<(), OrgError> {
        if password.is_empty() {
            return Err(OrgError::Invalid("Type your own password to reset someone else's".to_string()));
        }
        let Some((_, hash)) = self.store.credentials(&admin.email).await? else {
            return Err(OrgError::NotFound("There is no such person".to_string()));
        };
        match self.throttle.begin_for_account(&admin.email, self.clock.now()) {
            Admission::Refuse { retry_after_secs } => {
                return Err(OrgError::Invalid(password_throttled_message(retry_after_secs)))
            }
            Admission::Check { delay_ms: 0 } => {}
            Admission::Check { delay_ms } => tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await,
        }
        if !self.throttle.hashing().verify(password.to_string(), hash).await.map_err(hashing_failed)? {
            return Err(OrgError::Invalid("Your own password is not right, so nothing was changed".to_string()));
        }
        self.throttle.account_succeeded(&admin.email);
        Ok(())
    }

    /// What the person reads once after an admin reset their password: who and when.
    pub async fn take_reset_notice(&self, me: &Person) -> Result<Option<ResetNotice>, OrgError> {
        Ok(self.store.take_reset_notice(me.id, self.clock.now()).await?)
    }

    /// A person changes their own password after giving the current one. Returns the new session
    /// generation: every session started before ends, and the caller keeps its own by taking it.
    pub async fn change_password(&self, me: &Person, current: &str, new: &str) -> Result<i64, OrgError> {
        let Some((_, hash)) = self.store.credentials(&me.email).await? else {
            return Err(OrgError::NotFound("There is no such person".to_string()));
        };
        match self.throttle.begin_for_account(&me.email, self.clock.now()) {
            Admission::Refuse { retry_after_secs } => {
                return Err(OrgError::Invalid(password_throttled_message(retry_after_secs)))
            }
            Admission::Check { delay_ms: 0 } => {}
            Admission::Check { delay_ms } => tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await,
        }
        if !self.throttle.hashing().verify(current.to_string(), hash).await.map_err(hashing_failed)? {
            return Err(OrgError::Invalid("Your current password is not right, so nothing was changed".to_string()));
        }
        self.throttle.account_succeeded(&me.email);
        if current == new {
            return Err(OrgError::Invalid("The new password is the same as the current one".to_string()));
        }
        let new = password_rules(new)?;
        let hash = self.throttle.hashing().hash(new.into_string()).await.map_err(hashing_failed)?;
        self.store.change_password(me.id, &hash, actor_of(&*self.clock, me)).await.map_err(|e| match e {
            StoreError::NotFound(_) => OrgError::NotFound("There is no such person".to_string()),
            other => other.into(),
        })
    }
}
