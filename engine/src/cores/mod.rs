//! Role cores: what a role always knows. Versioned texts that trusted people write.

pub mod service;
pub mod store;

use crate::org::{Person, Role, RoleSlug, Team, TeamId};
use crate::tokens::{format_count, meter};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::org::COMPANY_CORE_LIMIT;
pub const COMPANY_CORE_LIMIT_MAX: u32 = 6_000;
pub const TEAM_CORE_LIMIT: u32 = 1_000;
/// "What changed" is a short note, not a second core.
pub const NOTE_MAX_CHARS: usize = 500;

/// How a company core's key begins; the role's slug follows. The store finds a role's company
/// core by it in the same read as the role.
pub const COMPANY_KEY_PREFIX: &str = "company:role:";

/// Which core: a role's company core, or a team's core.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CoreScope {
    Company(RoleSlug),
    Team(TeamId),
}

impl CoreScope {
    /// Parses the key used in URLs, the CLI and the API: `company:role:sales` or `team:3`.
    pub fn parse(s: &str) -> Result<Self, CoreError> {
        let bad = || CoreError::NotFound(format!("There is no core called {s:?}"));
        if let Some(slug) = s.strip_prefix(COMPANY_KEY_PREFIX) {
            return RoleSlug::parse(slug).map(CoreScope::Company).map_err(|_| bad());
        }
        if let Some(id) = s.strip_prefix("team:") {
            return id.parse::<i64>().map(|n| CoreScope::Team(TeamId(n))).map_err(|_| bad());
        }
        Err(bad())
    }

    pub fn key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for CoreScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreScope::Company(slug) => write!(f, "{COMPANY_KEY_PREFIX}{}", slug.as_str()),
            CoreScope::Team(id) => write!(f, "team:{id}"),
        }
    }
}

/// What a run's cores are chosen from, read at once: a role with its company core's current
/// version, and a team with its own core's current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCores {
    pub role: Role,
    pub company: Option<CoreVersion>,
    pub team: Option<(Team, Option<CoreVersion>)>,
}

/// One saved version of a core. Versions are never changed or removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreVersion {
    pub scope: CoreScope,
    pub version: u32,
    pub text: String,
    pub tokens: u32,
    pub author: String,
    pub note: String,
    pub restored_from: Option<u32>,
    pub saved_at: DateTime<Utc>,
}

/// A core's current version number and size, without its text: what a list of every role's and
/// team's core shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreHead {
    pub scope: CoreScope,
    pub version: u32,
    pub tokens: u32,
}

/// What the store appends: the engine has already checked permission and limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCoreVersion {
    pub scope: CoreScope,
    /// The version the writer opened; 0 when there was none. The store refuses the append if the
    /// current version is any other.
    pub based_on: u32,
    pub text: String,
    pub tokens: u32,
    pub author: crate::org::PersonId,
    pub note: String,
    pub restored_from: Option<u32>,
    pub at: DateTime<Utc>,
}

/// The core together with what decides who may change it and how large it may be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreSubject {
    pub scope: CoreScope,
    /// The role whose company core this is, or the team's role (if any) for a team core.
    pub role: Option<Role>,
    pub team: Option<Team>,
}

impl CoreSubject {
    pub fn limit(&self) -> u32 {
        match (&self.scope, &self.role) {
            (CoreScope::Company(_), Some(role)) => role.company_core_limit,
            (CoreScope::Company(_), None) => COMPANY_CORE_LIMIT,
            (CoreScope::Team(_), _) => TEAM_CORE_LIMIT,
        }
    }

    /// "Sales company core" or "Sales Bengaluru team core".
    pub fn title(&self) -> String {
        match (&self.scope, &self.role, &self.team) {
            (CoreScope::Team(_), _, Some(team)) => format!("{} team core", team.name),
            (_, Some(role), _) => format!("{} company core", role.name),
            _ => "Core".to_string(),
        }
    }

    /// Admins change company cores; a team's lead or an admin changes a team core.
    pub fn may_edit(&self, actor: &Person) -> Result<(), CoreError> {
        if actor.is_admin {
            return Ok(());
        }
        match (&self.scope, &self.role, &self.team) {
            (CoreScope::Team(_), _, Some(team)) if team.lead == Some(actor.id) => Ok(()),
            (CoreScope::Team(_), _, Some(team)) => {
                Err(CoreError::NotAllowed(format!("Only {}'s lead or an admin can change this core", team.name)))
            }
            (_, Some(role), _) => {
                Err(CoreError::NotAllowed(format!("Only an admin can change the company core for {}", role.name)))
            }
            _ => Err(CoreError::NotAllowed("Only an admin can change this core".to_string())),
        }
    }

    /// A text fits when its count is within the limit.
    pub fn check_fits(&self, tokens: u32) -> Result<(), CoreError> {
        let limit = self.limit();
        if tokens > limit {
            Err(CoreError::OverLimit { tokens, limit })
        } else {
            Ok(())
        }
    }

    /// A team with no role has a core that loads in no run.
    pub fn loads_in_no_run(&self) -> bool {
        matches!(self.scope, CoreScope::Team(_)) && self.role.is_none()
    }
}

/// History shows this many versions at a time, newest first.
pub const HISTORY_PAGE: u32 = 20;

/// Reads `?before=N`, which asks for the versions older than N. Versions start at 1.
pub fn parse_before(s: &str) -> Result<u32, CoreError> {
    s.trim().parse::<u32>().ok().filter(|n| *n >= 1).ok_or(CoreError::BadBefore)
}

pub const NO_ROLE_NOTICE: &str = "This team has no role yet, so its core loads in no run; ask an admin to set one";

/// How a core reads in a list: "company core version 1, 11 of 2,000 tokens", or
/// "no company core yet (limit 2,000 tokens)".
pub fn core_status(kind: &str, version: Option<u32>, tokens: u32, limit: u32) -> String {
    match version {
        Some(v) => format!("{kind} version {v}, {}", meter(tokens, limit)),
        None => format!("no {kind} yet (limit {} tokens)", format_count(limit)),
    }
}

/// Checks the optional "What changed" note.
pub fn parse_note(note: &str) -> Result<String, CoreError> {
    let note = note.trim();
    if note.chars().count() > NOTE_MAX_CHARS {
        return Err(CoreError::Invalid(format!("\"What changed\" can be at most {NOTE_MAX_CHARS} characters")));
    }
    Ok(note.to_string())
}

/// Checks a requested company core limit: from the default up to the ceiling, never below what
/// the current core already holds.
pub fn check_company_limit(role: &Role, requested: u32, current_tokens: u32) -> Result<(), CoreError> {
    if requested > COMPANY_CORE_LIMIT_MAX {
        return Err(CoreError::Invalid(format!(
            "A company core limit can be at most {} tokens",
            format_count(COMPANY_CORE_LIMIT_MAX)
        )));
    }
    if requested < COMPANY_CORE_LIMIT {
        return Err(CoreError::Invalid(format!(
            "A company core limit can be no less than {} tokens",
            format_count(COMPANY_CORE_LIMIT)
        )));
    }
    if requested < current_tokens {
        return Err(CoreError::Invalid(format!(
            "The company core for {} already holds {} tokens, so its limit cannot be lower",
            role.name,
            format_count(current_tokens)
        )));
    }
    Ok(())
}

/// A line suggested for a core by a job. Only a person's Accept changes the core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    pub id: i64,
    pub scope: CoreScope,
    pub line: String,
    pub why: String,
    pub rests_on: String,
    /// What made it: "nightly job", "weekly job", "Distiller".
    pub source: String,
    /// The core version the line was suggested against; 0 when there was no core yet.
    pub based_on: u32,
    pub state: SuggestionState,
    pub created_at: DateTime<Utc>,
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SuggestionState {
    Open,
    Accepted,
    Dismissed,
}

crate::string_enum!(SuggestionState {
    Open => "open",
    Accepted => "accepted",
    Dismissed => "dismissed",
});

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSuggestion {
    pub scope: CoreScope,
    pub line: String,
    pub why: String,
    pub rests_on: String,
    pub source: String,
    pub based_on: u32,
    pub at: DateTime<Utc>,
}

/// A suggested line appended to the current text.
pub fn text_with_line(current: &str, line: &str) -> String {
    if current.trim().is_empty() {
        line.to_string()
    } else if current.ends_with('\n') {
        format!("{current}{line}")
    } else {
        format!("{current}\n{line}")
    }
}

/// Every refusal a core operation can give, each with the sentence a person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum CoreError {
    #[error("{0}")]
    NotAllowed(String),
    #[error("This core is over its limit: {}", meter(*tokens, *limit))]
    OverLimit { tokens: u32, limit: u32 },
    #[error("This core changed since you opened it: reload and try again")]
    Changed { current: u32 },
    #[error("This core changed since the line was suggested, so it stays open: review it against the current text")]
    SuggestionStale { current: u32 },
    #[error("This line would take the core over its limit: {}", meter(*tokens, *limit))]
    SuggestionOverLimit { tokens: u32, limit: u32 },
    #[error("This suggestion was already {0}")]
    SuggestionDecided(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    /// The text holds a secret; nothing was saved.
    #[error("{0}")]
    Secret(crate::secrets::SecretRefusal),
    /// `?before=` that is not a version number.
    #[error("Older versions are asked for with a version number from 1, such as ?before=21")]
    BadBefore,
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl crate::error::UserSafe for CoreError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            CoreError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            CoreError::OverLimit { .. }
            | CoreError::SuggestionOverLimit { .. }
            | CoreError::Invalid(_)
            | CoreError::Secret(_) => crate::error::ErrorKind::Invalid,
            CoreError::Changed { .. } | CoreError::SuggestionStale { .. } | CoreError::SuggestionDecided(_) => {
                crate::error::ErrorKind::Conflict
            }
            CoreError::NotFound(_) => crate::error::ErrorKind::NotFound,
            CoreError::BadBefore => crate::error::ErrorKind::BadRequest,
            CoreError::Internal(_) => crate::error::ErrorKind::Internal,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::org::{PersonId, RoleId};

    fn sales() -> Role {
        Role {
            id: RoleId(1),
            slug: RoleSlug::parse("sales").unwrap(),
            name: "Sales".into(),
            company_core_limit: COMPANY_CORE_LIMIT,
        }
    }
    fn person(id: i64, admin: bool) -> Person {
        Person {
            id: PersonId(id),
            name: format!("p{id}"),
            email: format!("p{id}@example.com"),
            is_admin: admin,
            main_team: None,
            role_override: None,
            manager: None,
            left_at: None,
        }
    }
    fn team_subject(lead: Option<i64>, role: Option<Role>) -> CoreSubject {
        CoreSubject {
            scope: CoreScope::Team(TeamId(4)),
            role,
            team: Some(Team { id: TeamId(4), name: "Sales Bengaluru".into(), lead: lead.map(PersonId), role: None }),
        }
    }

    #[test]
    fn scope_keys_round_trip() {
        for key in ["company:role:sales", "team:12"] {
            assert_eq!(CoreScope::parse(key).unwrap().key(), key);
        }
        assert!(CoreScope::parse("company:sales").is_err());
        assert!(CoreScope::parse("team:x").is_err());
    }

    #[test]
    fn only_admins_change_company_cores() {
        let s = CoreSubject { scope: CoreScope::Company(sales().slug), role: Some(sales()), team: None };
        assert!(s.may_edit(&person(1, true)).is_ok());
        assert_eq!(
            s.may_edit(&person(2, false)).unwrap_err().to_string(),
            "Only an admin can change the company core for Sales"
        );
    }

    #[test]
    fn team_leads_and_admins_change_team_cores() {
        let s = team_subject(Some(5), Some(sales()));
        assert!(s.may_edit(&person(5, false)).is_ok());
        assert!(s.may_edit(&person(1, true)).is_ok());
        assert_eq!(
            s.may_edit(&person(6, false)).unwrap_err().to_string(),
            "Only Sales Bengaluru's lead or an admin can change this core"
        );
        assert!(team_subject(None, None).may_edit(&person(6, false)).is_err());
    }

    #[test]
    fn limits_by_kind() {
        let mut role = sales();
        let company =
            CoreSubject { scope: CoreScope::Company(role.slug.clone()), role: Some(role.clone()), team: None };
        assert_eq!(company.limit(), 2_000);
        assert_eq!(
            company.check_fits(2_410).unwrap_err().to_string(),
            "This core is over its limit: 2,410 of 2,000 tokens"
        );
        assert!(company.check_fits(2_000).is_ok());
        role.company_core_limit = 6_000;
        let raised = CoreSubject { role: Some(role), ..company };
        assert!(raised.check_fits(2_410).is_ok());
        let team = team_subject(None, Some(sales()));
        assert_eq!(team.limit(), 1_000);
        assert!(team.check_fits(1_001).is_err());
    }

    #[test]
    fn company_limit_bounds() {
        let role = sales();
        assert!(check_company_limit(&role, 6_000, 0).is_ok());
        assert_eq!(
            check_company_limit(&role, 6_001, 0).unwrap_err().to_string(),
            "A company core limit can be at most 6,000 tokens"
        );
        assert!(check_company_limit(&role, 1_999, 0).is_err());
        assert!(check_company_limit(&role, 3_000, 3_100).is_err());
    }

    #[test]
    fn no_role_team_core_loads_nowhere() {
        assert!(team_subject(None, None).loads_in_no_run());
        assert!(!team_subject(None, Some(sales())).loads_in_no_run());
    }

    #[test]
    fn suggested_lines_append() {
        assert_eq!(text_with_line("", "x"), "x");
        assert_eq!(text_with_line("a", "x"), "a\nx");
        assert_eq!(text_with_line("a\n", "x"), "a\nx");
    }

    #[test]
    fn status_lines_read_like_the_seed() {
        assert_eq!(core_status("company core", Some(1), 11, 2_000), "company core version 1, 11 of 2,000 tokens");
        assert_eq!(core_status("company core", None, 0, 2_000), "no company core yet (limit 2,000 tokens)");
    }

    #[test]
    fn notes_are_bounded() {
        assert_eq!(parse_note("  fixed stages ").unwrap(), "fixed stages");
        assert!(parse_note(&"x".repeat(501)).is_err());
    }

    #[test]
    fn before_is_a_version_number_from_1() {
        assert_eq!(parse_before("21"), Ok(21));
        assert_eq!(parse_before("1"), Ok(1));
        for bad in ["0", "-3", "", "abc", "2.5", "99999999999"] {
            assert_eq!(parse_before(bad), Err(CoreError::BadBefore), "{bad}");
        }
        assert_eq!(
            CoreError::BadBefore.to_string(),
            "Older versions are asked for with a version number from 1, such as ?before=21"
        );
    }
}
