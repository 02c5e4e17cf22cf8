//! Lessons: what the organisation's agents learned from earlier work, and what a person told
//! their own asks to keep. A lesson is a knowledge entry with evidence, a scope and a data label,
//! when its fact was checked, valid from and to, and an optional claim (a record, a field and the
//! value it holds).
//!
//! No job ever deletes one: superseded, expired, contested and waiting lessons are states with
//! dates. Forget is the one removal, and it is the person's own.

pub mod contradictions;
pub mod scopes;
pub mod select;
pub mod service;
pub mod states;
pub mod vectors;

use crate::kernel::DataLabel;
use crate::kernel::RunId;
use crate::kernel::{Actor, StoreError};
use crate::org::{AgentId, PersonId, TeamId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
pub use states::LessonState;

/// The longest lesson a person may write.
pub const LESSON_MAX_CHARS: usize = 1_000;

/// Whose runs a lesson loads into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LessonScope {
    /// The person's own asks.
    Personal,
    /// Everyone on the team, once a reviewer accepted it.
    Team(TeamId),
    /// Everyone in the company, once a human admin accepted it.
    Company,
    /// One private agent's runs for its owner.
    Agent(AgentId),
    /// Knowledge about work with partners: company-wide once a human admin accepted it, and
    /// loaded only into agents whose memory scopes list it.
    Partner,
}

impl LessonScope {
    pub fn kind(&self) -> &'static str {
        match self {
            LessonScope::Personal => "personal",
            LessonScope::Team(_) => "team",
            LessonScope::Company => "company",
            LessonScope::Agent(_) => "agent",
            LessonScope::Partner => "partner",
        }
    }

    /// The scope as the store's scope column keeps it: partner knowledge is a company lesson
    /// with the partner mark.
    pub fn stored_kind(&self) -> &'static str {
        match self {
            LessonScope::Partner => "company",
            other => other.kind(),
        }
    }

    /// As the store keeps it: the scope column, a team or agent id, and the partner mark.
    pub fn from_stored(kind: &str, team: Option<i64>, agent: Option<i64>, partner: bool) -> Option<Self> {
        match (kind, partner) {
            ("company", true) if team.is_none() && agent.is_none() => Some(LessonScope::Partner),
            (_, true) => None,
            _ => Self::from_parts(kind, team, agent),
        }
    }

    /// Stored as its kind with a team or agent id beside it.
    pub fn from_parts(kind: &str, team: Option<i64>, agent: Option<i64>) -> Option<Self> {
        match (kind, team, agent) {
            ("personal", None, None) => Some(LessonScope::Personal),
            ("team", Some(t), None) => Some(LessonScope::Team(TeamId(t))),
            ("company", None, None) => Some(LessonScope::Company),
            ("agent", None, Some(a)) => Some(LessonScope::Agent(AgentId(a))),
            _ => None,
        }
    }

    pub fn team(&self) -> Option<TeamId> {
        match self {
            LessonScope::Team(t) => Some(*t),
            _ => None,
        }
    }

    pub fn agent(&self) -> Option<AgentId> {
        match self {
            LessonScope::Agent(a) => Some(*a),
            _ => None,
        }
    }
}

/// A run and one of its steps that showed the lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub run: RunId,
    pub step: i64,
}

/// What a lesson says a record holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub record: String,
    pub field: String,
    pub value: String,
}

/// Who wrote a lesson: a person in their own words (which counts as accepting it), or the
/// nightly job from runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrittenBy {
    Person,
    Job,
}

crate::string_enum!(WrittenBy { Person => "person", Job => "job" });

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub id: i64,
    /// Whose work it came from; for a personal lesson, whose it is.
    pub person: PersonId,
    pub scope: LessonScope,
    pub text: String,
    pub evidence: Vec<Evidence>,
    pub label: DataLabel,
    /// When its fact was last read from the source, and the version read.
    pub checked_at: Option<DateTime<Utc>>,
    pub source_version: Option<String>,
    pub valid_from: DateTime<Utc>,
    pub valid_to: Option<DateTime<Utc>>,
    pub claim: Option<Claim>,
    pub state: LessonState,
    /// When it moved to its state, and why, in words for its owner ("corrected").
    pub state_at: DateTime<Utc>,
    pub state_reason: Option<String>,
    /// A second piece of evidence, or a person accepting it: it no longer expires.
    pub confirmed: bool,
    /// The lesson this one replaced.
    pub supersedes: Option<i64>,
    pub written_by: WrittenBy,
    pub created_at: DateTime<Utc>,
    /// What a question finds it by, kept when it was written; `None` for a lesson kept before
    /// they were, whose terms a run makes when it reads it.
    #[serde(skip)]
    pub terms: Option<select::LessonTerms>,
}

impl Lesson {
    /// Its id as refs, quotes and provenance name it: `lesson:<id>`.
    pub fn ref_id(&self) -> String {
        format!("lesson:{}", self.id)
    }

    /// Accepted and valid at `now`; an unconfirmed one is past its expiry even before a job
    /// records it expired.
    pub fn in_use(&self, now: DateTime<Utc>) -> bool {
        self.state == LessonState::Accepted && self.valid_to.is_none_or(|t| t > now) && !states::expired_by(self, now)
    }
}

/// A lesson about to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLesson {
    pub person: PersonId,
    pub scope: LessonScope,
    pub text: String,
    pub evidence: Vec<Evidence>,
    pub label: DataLabel,
    pub checked_at: Option<DateTime<Utc>>,
    pub source_version: Option<String>,
    pub claim: Option<Claim>,
    pub state: LessonState,
    pub confirmed: bool,
    pub written_by: WrittenBy,
    pub at: DateTime<Utc>,
}

impl NewLesson {
    /// A lesson a person wrote in their own words: writing it is accepting it, so it does not
    /// expire. A team or company one still waits for review once the caller says so.
    pub fn in_own_words(person: PersonId, scope: LessonScope, text: String, at: DateTime<Utc>) -> Self {
        NewLesson {
            person,
            scope,
            text,
            evidence: vec![],
            label: DataLabel::Internal,
            checked_at: None,
            source_version: None,
            claim: None,
            state: LessonState::Accepted,
            confirmed: true,
            written_by: WrittenBy::Person,
            at,
        }
    }
}

crate::refusal_error!(
    /// Why a lesson, the nightly job or memory's settings refused or failed; answered as the
    /// cards' refusals are.
    LessonError
);

/// What a lesson's evidence needs from runs (an area above lessons): whom a run acted for and its
/// thread. Lessons name it here; the store's roof answers it from the runs' store.
#[async_trait]
pub trait EvidenceRuns: Send + Sync {
    /// The person a run acted for and its thread; `None` for no such run.
    async fn evidence_run(&self, run: RunId)
        -> Result<Option<(Option<PersonId>, crate::kernel::ThreadId)>, StoreError>;
}

crate::port!(
    /// What the lessons' service reads and writes: the lessons' store, the directory (whose lesson
    /// a lead may review), and the runs its evidence names.
    LessonPorts: LessonStore, EvidenceRuns, crate::org::store::OrgStore
);

#[async_trait]
pub trait LessonStore: Send + Sync {
    async fn add_lesson(&self, lesson: &NewLesson, actor: Actor) -> Result<Lesson, StoreError>;
    async fn lesson(&self, id: i64) -> Result<Option<Lesson>, StoreError>;
    /// Every lesson that came from the person, whatever its state, newest first.
    async fn lessons_of(&self, person: PersonId) -> Result<Vec<Lesson>, StoreError>;
    /// The accepted lessons a run acting for the person may read: their personal ones, their
    /// private agents', their teams' and the company's (`scopes::within` decides which of them the
    /// running agent loads). Validity is decided by the caller, at its own now.
    async fn lessons_for_run(&self, person: PersonId, teams: &[TeamId]) -> Result<Vec<Lesson>, StoreError>;
    /// Closes `old` as superseded by a new lesson written from `new`, in one transaction, if
    /// `old` is still in the state the caller read; `Changed` otherwise.
    async fn supersede_lesson(
        &self,
        old: &Lesson,
        new: &NewLesson,
        reason: &str,
        actor: Actor,
    ) -> Result<Lesson, StoreError>;
    /// Every team and company proposal still waiting for review, oldest first.
    async fn waiting_lessons(&self) -> Result<Vec<Lesson>, StoreError>;
    /// A reviewer's decision on a proposal: accepted (which confirms it) or declined, if it is
    /// still waiting; `Changed` otherwise. Audited by id.
    async fn decide_lesson(&self, id: i64, accept: bool, actor: Actor) -> Result<Lesson, StoreError>;
    /// Removes the lesson and every version it replaced; audited by id. Returns how many went.
    async fn forget_lesson(&self, id: i64, actor: Actor) -> Result<u32, StoreError>;
    /// Every accepted or waiting lesson whose claim names the record, by its id alone ("L-1004")
    /// or after its kind ("lead L-1004"), whoever's it is.
    async fn lessons_claiming(&self, record_id: &str) -> Result<Vec<Lesson>, StoreError>;
    /// Moves a lesson from `from` to `to` (contested, source removed) with why, if it is still in
    /// `from`; `Changed` otherwise. Audited by id, never with the value read.
    async fn mark_lesson(
        &self,
        id: i64,
        from: LessonState,
        to: LessonState,
        reason: &str,
        actor: Actor,
    ) -> Result<(), StoreError>;
    /// Marks the person's accepted and waiting lessons that nobody confirmed and that are valid
    /// from before `cutoff` as expired at `now`. Returns how many.
    async fn expire_lessons(
        &self,
        person: PersonId,
        cutoff: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_is_stored_and_read_back_as_itself() {
        for scope in [
            LessonScope::Personal,
            LessonScope::Team(TeamId(3)),
            LessonScope::Company,
            LessonScope::Agent(AgentId(4)),
            LessonScope::Partner,
        ] {
            let stored = (scope.stored_kind(), scope.team().map(|t| t.0), scope.agent().map(|a| a.0));
            let partner = scope == LessonScope::Partner;
            assert_eq!(LessonScope::from_stored(stored.0, stored.1, stored.2, partner), Some(scope), "{scope:?}");
        }
        // Partner knowledge is a company lesson with the mark; the mark on anything else is corrupt.
        assert_eq!(LessonScope::Partner.stored_kind(), "company");
        assert_eq!(LessonScope::from_stored("team", Some(3), None, true), None);
        assert_eq!(LessonScope::from_stored("company", None, None, false), Some(LessonScope::Company));
    }
}
