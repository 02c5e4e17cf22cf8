//! The organisation: the company, its people, teams, department roles and agents.
//!
//! Department roles are not access roles: whether someone is an admin is a separate flag.

pub mod agents;
#[cfg(test)]
pub mod fake;
pub mod import;
pub mod listing;
pub mod memory_scopes;
pub mod names;
pub mod people;
pub mod service;
pub mod setup;
#[cfg(feature = "server")]
pub mod sign_in;
pub mod store;
pub mod teams;
pub mod tokens;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::kernel::ids::{AgentId, PersonId, RoleId, TeamId};
pub use crate::kernel::Person;

/// The limit of a new role's company core, in tokens, until an admin changes it (cores keep the
/// rules of limits; a role is made with this one).
pub const COMPANY_CORE_LIMIT: u32 = 2_000;

/// What went when a person left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Departure {
    pub tokens: u32,
    pub uses: u32,
    pub cards: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPerson {
    pub name: String,
    pub email: String,
    pub password_hash: String,
    pub is_admin: bool,
    pub main_team: Option<TeamId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAgent {
    pub name: String,
    pub template: String,
    pub role: Option<RoleId>,
    pub owner: PersonId,
    pub team_copy: Option<TeamId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Company {
    pub name: String,
    pub time_zone: TimeZoneName,
    /// How numbers, amounts and dates read to people; a company made before it was asked for
    /// reads in the default.
    #[serde(default)]
    pub locale: LocaleName,
}

/// A CLDR locale name the company writes numbers and dates in (`en-IN`, `de`), parsed once at
/// the edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocaleName(String);

impl LocaleName {
    pub fn parse(s: &str) -> Result<Self, OrgError> {
        let s = s.trim();
        crate::locale::Locale::parse(s)
            .map(|l| Self(l.name().to_string()))
            .ok_or_else(|| OrgError::Invalid(format!("{s} is not a locale name, such as en-IN or en-US")))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The locale itself; every `LocaleName` was parsed, so it always has one.
    pub fn locale(&self) -> crate::locale::Locale {
        crate::locale::Locale::parse(&self.0).unwrap_or_else(crate::locale::Locale::fallback)
    }
}

impl Default for LocaleName {
    fn default() -> Self {
        Self(crate::locale::Locale::default_name().to_string())
    }
}

/// An IANA zone name that chrono-tz knows, parsed once at the edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeZoneName(String);

impl TimeZoneName {
    pub fn parse(s: &str) -> Result<Self, OrgError> {
        let s = s.trim();
        s.parse::<chrono_tz::Tz>()
            .map(|tz| Self(tz.name().to_string()))
            .map_err(|_| OrgError::Invalid(format!("{s} is not a time zone name, such as Asia/Kolkata")))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The stable key of a department role, as in `role:sales`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoleSlug(String);

impl RoleSlug {
    /// Parses a slug as typed: lower-case letters, digits and dashes.
    pub fn parse(s: &str) -> Result<Self, OrgError> {
        let ok = !s.is_empty()
            && s.len() <= 40
            && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !s.starts_with('-')
            && !s.ends_with('-');
        if ok {
            Ok(Self(s.to_string()))
        } else {
            Err(OrgError::Invalid(format!("{s:?} is not a role key: use lower-case letters, digits and dashes")))
        }
    }

    /// Derives the slug of a new role from its name: "Customer Success" becomes `customer-success`.
    pub fn from_name(name: &str) -> Result<Self, OrgError> {
        let mut slug = String::new();
        for c in name.trim().chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
        }
        while slug.ends_with('-') {
            slug.pop();
        }
        if slug.is_empty() {
            return Err(OrgError::Invalid("A role's name needs at least one letter or digit".to_string()));
        }
        slug.truncate(40);
        Self::parse(slug.trim_end_matches('-'))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RoleSlug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "role:{}", self.0)
    }
}

/// A role's display name, trimmed and bounded.
pub fn parse_role_name(name: &str) -> Result<String, OrgError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(OrgError::Invalid("A role needs a name".to_string()));
    }
    if name.chars().count() > 60 {
        return Err(OrgError::Invalid("A role's name can be at most 60 characters".to_string()));
    }
    Ok(name.to_string())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub id: RoleId,
    pub slug: RoleSlug,
    pub name: String,
    /// Tokens the company core may hold; an admin may raise it from the default.
    pub company_core_limit: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Team {
    pub id: TeamId,
    pub name: String,
    pub lead: Option<PersonId>,
    pub role: Option<RoleId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    pub id: AgentId,
    pub name: String,
    pub template: String,
    pub role: Option<RoleId>,
    pub owner: PersonId,
    pub team_copy: Option<TeamId>,
    /// What the agent is for, as whoever set it up wrote it.
    #[serde(default)]
    pub description: String,
    /// For a team copy: the agent it was copied from.
    #[serde(default)]
    pub copy_of: Option<AgentId>,
    /// One person's own agent: only its owner sees it, asks it and reads what it learned.
    #[serde(default)]
    pub private: bool,
}

/// Where a person's department role comes from, for the People drawer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoleSource {
    Own(RoleId),
    FromTeam(RoleId),
    None,
}

impl Agent {
    /// Whether `person` may see the agent at all: every company agent, and a private agent only
    /// by its owner. To anyone else, admins included, another's private agent is no agent.
    pub fn visible_to(&self, person: PersonId) -> bool {
        !self.private || self.owner == person
    }
}

impl Person {
    /// People take their main team's role unless an admin gave them their own.
    pub fn department_role(&self, teams: &[Team]) -> RoleSource {
        if let Some(r) = self.role_override {
            return RoleSource::Own(r);
        }
        self.main_team
            .and_then(|t| teams.iter().find(|team| team.id == t))
            .and_then(|team| team.role)
            .map(RoleSource::FromTeam)
            .unwrap_or(RoleSource::None)
    }
}

/// The whole organisation as one read, for pages that list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Directory {
    pub people: Vec<Person>,
    pub teams: Vec<Team>,
    pub roles: Vec<Role>,
    pub agents: Vec<Agent>,
}

impl Directory {
    pub fn role(&self, id: RoleId) -> Option<&Role> {
        self.roles.iter().find(|r| r.id == id)
    }
    pub fn team(&self, id: TeamId) -> Option<&Team> {
        self.teams.iter().find(|t| t.id == id)
    }
    pub fn person(&self, id: PersonId) -> Option<&Person> {
        self.people.iter().find(|p| p.id == id)
    }
}

/// One row of the audit trail: who changed what, when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub at: DateTime<Utc>,
    pub actor: Option<PersonId>,
    pub action: String,
    pub subject: String,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum OrgError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Duplicate(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl crate::error::UserSafe for OrgError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            OrgError::Invalid(_) => crate::error::ErrorKind::Invalid,
            OrgError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            OrgError::NotFound(_) => crate::error::ErrorKind::NotFound,
            OrgError::Duplicate(_) => crate::error::ErrorKind::Conflict,
            OrgError::Internal(_) => crate::error::ErrorKind::Internal,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_agent_is_visible_to_its_owner_alone() {
        let agent = |private| Agent {
            id: AgentId(1),
            name: "Inbox (Alice Chen)".into(),
            template: "hand-made".into(),
            role: None,
            owner: PersonId(7),
            team_copy: None,
            description: String::new(),
            copy_of: None,
            private,
        };
        // (private, viewer, visible)
        for (private, viewer, visible) in [(false, 7, true), (false, 8, true), (true, 7, true), (true, 8, false)] {
            assert_eq!(agent(private).visible_to(PersonId(viewer)), visible, "{private} {viewer}");
        }
    }

    #[test]
    fn slugs_from_names() {
        assert_eq!(RoleSlug::from_name("Customer Success").unwrap().as_str(), "customer-success");
        assert_eq!(RoleSlug::from_name("  R&D  ").unwrap().as_str(), "r-d");
        assert!(RoleSlug::from_name("  ").is_err());
        assert_eq!(RoleSlug::parse("sales").unwrap().to_string(), "role:sales");
        assert!(RoleSlug::parse("Sales").is_err());
        assert!(RoleSlug::parse("-x").is_err());
    }

    #[test]
    fn time_zones_are_validated() {
        assert_eq!(TimeZoneName::parse("Asia/Kolkata").unwrap().as_str(), "Asia/Kolkata");
        assert!(TimeZoneName::parse("Mars/Olympus").is_err());
    }

    #[test]
    fn people_take_their_team_role_unless_given_one() {
        let teams = vec![Team { id: TeamId(1), name: "Sales East".into(), lead: None, role: Some(RoleId(7)) }];
        let mut p = Person {
            id: PersonId(1),
            name: "Alice".into(),
            email: "alice@example.com".into(),
            is_admin: false,
            main_team: Some(TeamId(1)),
            role_override: None,
            manager: None,
            left_at: None,
        };
        assert_eq!(p.department_role(&teams), RoleSource::FromTeam(RoleId(7)));
        p.role_override = Some(RoleId(2));
        assert_eq!(p.department_role(&teams), RoleSource::Own(RoleId(2)));
        p.role_override = None;
        p.main_team = None;
        assert_eq!(p.department_role(&teams), RoleSource::None);
    }
}
