//! A person's own lessons: keeping one in their words, What I've learned, Correct and Forget,
//! and the counts an admin may see. Only the person reads what theirs say.

use super::states::{expired_by, next, Move, NOBODY_CONFIRMED};
use super::LessonPorts;
use super::{Lesson, LessonScope, LessonState, NewLesson, WrittenBy, LESSON_MAX_CHARS};
use crate::clock::Clock;
use crate::kernel::age_words;
use crate::kernel::{Actor, StoreError};
use crate::lessons::LessonError;
use crate::org::{Person, PersonId};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What Correct says once the new words are kept.
pub const CORRECTED: &str = "Corrected. The earlier lesson stays in your history.";
const ALREADY_DECIDED: &str = "This proposal was already decided";

/// One piece of a lesson's evidence as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceView {
    /// "Run 12, step 3", or "restricted source" where the person may not open the run.
    pub words: String,
    /// The thread the run answered in, when the person may open it.
    pub thread: Option<i64>,
}

/// A lesson as What I've learned shows it to its owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonView {
    pub id: i64,
    pub text: String,
    /// "personal", "team", "company" or "agent".
    pub scope: String,
    /// "in use", "superseded", "expired", "contested", "waiting for review", …
    pub state: String,
    /// "kept 2 h ago", "superseded 3 days ago (corrected)".
    pub line: String,
    /// "written by you", or the runs it came from.
    pub evidence: Vec<EvidenceView>,
    /// Whether its owner may Correct or Forget it: not once a team or the company holds it.
    pub yours_to_change: bool,
}

/// A proposal as its reviewers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalView {
    pub lesson: LessonView,
    /// Whom it came from.
    pub from: String,
    /// "Sales Bengaluru", or "the company".
    pub to: String,
}

/// Profile → Memory → What I've learned.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MyLessons {
    pub in_use: Vec<LessonView>,
    /// Superseded, expired, contested and waiting lessons, newest first.
    pub no_longer_current: Vec<LessonView>,
}

#[derive(Clone)]
pub struct Lessons {
    store: Arc<dyn LessonPorts>,
    clock: Arc<dyn Clock>,
    /// Where an embedder is configured: a kept or corrected lesson is embedded in the background.
    vectors: Option<(super::vectors::LessonVectors, super::vectors::Spawn)>,
}

/// Why the person a team or company lesson came from may no longer change it alone: once
/// accepted (or contested) it is the team's or the company's, looked after by its reviewers. A
/// proposal still waiting, or one declined, stays theirs to forget.
fn shared_by(l: &Lesson) -> Option<&'static str> {
    let held = matches!(l.state, LessonState::Accepted | LessonState::Contested);
    match l.scope {
        LessonScope::Team(_) if held => Some("This lesson is your team's now; its lead or an admin looks after it"),
        LessonScope::Company | LessonScope::Partner if held => {
            Some("This lesson is the company's now; an admin looks after it")
        }
        _ => None,
    }
}

/// A lesson's words as kept: trimmed, not empty, not too long; `Err` is the sentence for the person.
pub fn lesson_text(text: &str) -> Result<String, LessonError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(LessonError::Invalid("Write the lesson first".into()));
    }
    let n = t.chars().count();
    if n > LESSON_MAX_CHARS {
        return Err(LessonError::Invalid(format!(
            "A lesson holds at most {LESSON_MAX_CHARS} characters; this one has {n}"
        )));
    }
    Ok(t.to_string())
}

impl Lessons {
    pub fn new(store: Arc<dyn LessonPorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock, vectors: None }
    }

    /// With an embedder, each lesson a person keeps or corrects is embedded right after, in the
    /// background on `spawn`; the answer never waits for it.
    pub fn with_vectors(mut self, vectors: super::vectors::LessonVectors, spawn: super::vectors::Spawn) -> Self {
        self.vectors = Some((vectors, spawn));
        self
    }

    fn embed_soon(&self) {
        if let Some((vectors, spawn)) = &self.vectors {
            vectors.catch_up_soon(spawn);
        }
    }

    fn actor(&self, person: PersonId) -> Actor {
        Actor { person: Some(person), at: self.clock.now() }
    }

    fn written(&self, person: &Person, text: String) -> NewLesson {
        NewLesson::in_own_words(person.id, LessonScope::Personal, text, self.clock.now())
    }

    /// Keeps a lesson in the person's own words (`POST /api/knowledge`). `private` is theirs at
    /// once; `team` (their main team's) and `company` are proposals, which wait for review.
    pub async fn keep(&self, person: &Person, scope: &str, text: &str) -> Result<Lesson, LessonError> {
        let scope = match scope {
            "private" => LessonScope::Personal,
            "team" => LessonScope::Team(person.main_team.ok_or_else(|| {
                LessonError::Invalid("You are on no team, so there is no team to keep this for".into())
            })?),
            "company" => LessonScope::Company,
            "partner" => LessonScope::Partner,
            other => {
                return Err(LessonError::Invalid(format!(
                    "The scope is \u{201c}private\u{201d}, \u{201c}team\u{201d}, \u{201c}company\u{201d} or \u{201c}partner\u{201d}, not \u{201c}{other}\u{201d}"
                )))
            }
        };
        let text = lesson_text(text)?;
        crate::secrets::refuse("The lesson", &text).map_err(LessonError::Secret)?;
        let mut lesson = self.written(person, text);
        lesson.scope = scope;
        if scope != LessonScope::Personal {
            // One person's words for everyone wait for a reviewer, however sure they are.
            lesson.state = LessonState::Waiting;
            lesson.confirmed = false;
        }
        let lesson = self.store.add_lesson(&lesson, self.actor(person.id)).await?;
        tracing::info!(lesson = lesson.id, person = %person.id, scope = scope.kind(), "a lesson was kept");
        self.embed_soon();
        Ok(lesson)
    }

    /// Whether the person reviews proposals of this scope: a team's lead or an admin for a team
    /// lesson, an admin (a person, never a token) for a company one.
    async fn reviews(&self, reviewer: &Person, scope: LessonScope) -> Result<bool, LessonError> {
        Ok(match scope {
            LessonScope::Company | LessonScope::Partner => reviewer.is_admin,
            LessonScope::Team(t) => {
                reviewer.is_admin || self.store.team(t).await?.is_some_and(|team| team.lead == Some(reviewer.id))
            }
            LessonScope::Personal | LessonScope::Agent(_) => false,
        })
    }

    /// The Review queue: the proposals this person reviews, oldest first, with their evidence
    /// and who they came from.
    pub async fn review_queue(&self, reviewer: &Person) -> Result<Vec<ProposalView>, LessonError> {
        let mut out = Vec::new();
        for l in self.store.waiting_lessons().await? {
            if !self.reviews(reviewer, l.scope).await? || expired_by(&l, self.clock.now()) {
                continue;
            }
            let from = self.store.person(l.person).await?.map(|p| p.name).unwrap_or_default();
            let to = match l.scope {
                LessonScope::Team(t) => self.store.team(t).await?.map(|t| t.name).unwrap_or_default(),
                LessonScope::Partner => "partner knowledge".to_string(),
                _ => "the company".to_string(),
            };
            let lesson = self.view(reviewer, &l).await?;
            out.push(ProposalView { lesson, from, to });
        }
        Ok(out)
    }

    /// Accept or Decline a proposal. A second decision is refused; nothing changes.
    pub async fn decide(&self, reviewer: &Person, id: i64, accept: bool) -> Result<Lesson, LessonError> {
        let not_found = || LessonError::NotFound("There is no such proposal".into());
        let l = self.store.lesson(id).await?.ok_or_else(not_found)?;
        if !matches!(l.scope, LessonScope::Team(_) | LessonScope::Company | LessonScope::Partner) {
            return Err(not_found());
        }
        if !self.reviews(reviewer, l.scope).await? {
            return Err(LessonError::NotAllowed(match l.scope {
                LessonScope::Company => "Only an admin reviews a company lesson".into(),
                LessonScope::Partner => "Only an admin reviews partner knowledge".into(),
                _ => "Only the team's lead or an admin reviews a team lesson".into(),
            }));
        }
        // One past its 90 days is expired, even before the nightly job records it so.
        let state = if expired_by(&l, self.clock.now()) { LessonState::Expired } else { l.state };
        if let Err(why) = next(state, if accept { Move::Accept } else { Move::Decline }) {
            return Err(LessonError::Invalid(match state {
                LessonState::Accepted | LessonState::Declined => ALREADY_DECIDED.into(),
                LessonState::Expired => "This proposal expired: nobody reviewed it in 90 days".into(),
                _ => why.into(),
            }));
        }
        match self.store.decide_lesson(id, accept, self.actor(reviewer.id)).await {
            Ok(l) => {
                tracing::info!(lesson = id, reviewer = %reviewer.id, accept, "a proposal was decided");
                Ok(l)
            }
            Err(StoreError::Changed { .. }) => Err(LessonError::Invalid(ALREADY_DECIDED.into())),
            Err(e) => Err(e.into()),
        }
    }

    /// Every lesson that came from the person, whatever its state, newest first. One past its 90
    /// days reads as expired before the nightly job records it so.
    pub async fn own(&self, person: &Person) -> Result<Vec<Lesson>, LessonError> {
        let now = self.clock.now();
        let mut all = self.store.lessons_of(person.id).await?;
        for l in all.iter_mut().filter(|l| expired_by(l, now)) {
            l.state_at = l.valid_from + chrono::Duration::days(super::states::EXPIRES_AFTER_DAYS);
            l.state = LessonState::Expired;
            l.state_reason = Some(NOBODY_CONFIRMED.into());
        }
        Ok(all)
    }

    /// What I've learned: the person's lessons in use, and those no longer current.
    pub async fn mine(&self, person: &Person) -> Result<MyLessons, LessonError> {
        let now = self.clock.now();
        let mut out = MyLessons::default();
        for l in self.own(person).await? {
            let view = self.view(person, &l).await?;
            if l.in_use(now) {
                out.in_use.push(view);
            } else {
                out.no_longer_current.push(view);
            }
        }
        Ok(out)
    }

    async fn view(&self, person: &Person, l: &Lesson) -> Result<LessonView, LessonError> {
        let now = self.clock.now();
        let line = match l.state {
            LessonState::Accepted => format!("kept {}", age_words(l.valid_from, now)),
            s => {
                let why = l.state_reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
                format!("{} {}{why}", s.words(), age_words(l.state_at, now))
            }
        };
        let mut evidence = Vec::new();
        if l.written_by == WrittenBy::Person {
            let words = if l.person == person.id { "written by you" } else { "in its author's own words" };
            evidence.push(EvidenceView { words: words.into(), thread: None });
        }
        for e in &l.evidence {
            // A run is opened by whom it acted for; anything else is a source they may not open.
            match self.store.evidence_run(e.run).await? {
                Some((for_person, thread)) if for_person == Some(person.id) => evidence
                    .push(EvidenceView { words: format!("Run {}, step {}", e.run.0, e.step), thread: Some(thread.0) }),
                _ => evidence.push(EvidenceView { words: "restricted source".into(), thread: None }),
            }
        }
        Ok(LessonView {
            id: l.id,
            text: l.text.clone(),
            scope: l.scope.kind().to_string(),
            state: l.state.words().to_string(),
            line,
            evidence,
            yours_to_change: shared_by(l).is_none(),
        })
    }

    /// The person's own lesson, or the sentence for one that is not theirs.
    async fn owned(&self, person: &Person, id: i64) -> Result<Lesson, LessonError> {
        match self.store.lesson(id).await? {
            Some(l) if l.person == person.id => Ok(l),
            // Someone else's lesson is answered as one that does not exist.
            _ => Err(LessonError::NotFound("There is no such lesson".into())),
        }
    }

    /// Correct: the person's words supersede the lesson, which stays in their history.
    pub async fn correct(&self, person: &Person, id: i64, text: &str) -> Result<Lesson, LessonError> {
        let text = lesson_text(text)?;
        crate::secrets::refuse("The lesson", &text).map_err(LessonError::Secret)?;
        let old = self.owned(person, id).await?;
        if let Some(why) = shared_by(&old) {
            return Err(LessonError::Invalid(why.into()));
        }
        if old.state == LessonState::Accepted && !old.in_use(self.clock.now()) {
            return Err(LessonError::Invalid("This lesson is no longer current".into()));
        }
        next(old.state, Move::Supersede).map_err(|e| LessonError::Invalid(e.into()))?;
        let mut new = self.written(person, text);
        new.scope = old.scope;
        new.label = old.label;
        match self.store.supersede_lesson(&old, &new, "corrected", self.actor(person.id)).await {
            Ok(l) => {
                tracing::info!(lesson = l.id, replaced = old.id, person = %person.id, "a lesson was corrected");
                self.embed_soon();
                Ok(l)
            }
            Err(StoreError::Changed { .. }) => Err(LessonError::Invalid(
                "This lesson changed while you were correcting it; nothing was saved. Open it again.".into(),
            )),
            Err(e) => Err(e.into()),
        }
    }

    /// Forget: the lesson goes, with every version it replaced. Audited by id.
    pub async fn forget(&self, person: &Person, id: i64) -> Result<u32, LessonError> {
        let lesson = self.owned(person, id).await?;
        if let Some(why) = shared_by(&lesson) {
            return Err(LessonError::Invalid(why.into()));
        }
        let gone = self.store.forget_lesson(lesson.id, self.actor(person.id)).await?;
        tracing::info!(lesson = id, versions = gone, person = %person.id, "a lesson was forgotten");
        Ok(gone)
    }

    /// How many lessons came from the person: in use now, and kept with their history.
    pub async fn counts(&self, person: PersonId) -> Result<(u32, u32), LessonError> {
        let now = self.clock.now();
        let all = self.store.lessons_of(person).await?;
        let in_use = all.iter().filter(|l| l.in_use(now)).count() as u32;
        Ok((in_use, all.len() as u32))
    }

    /// For the CLI: "Alice Chen has 2 lessons in use (2 kept, with history). What they say is
    /// theirs alone." An admin sees counts, never text.
    pub async fn counts_sentence(&self, admin: &Person, person: &Person) -> Result<String, LessonError> {
        if !admin.is_admin && admin.id != person.id {
            return Err(LessonError::NotAllowed("Only an admin sees another person's counts".to_string()));
        }
        let (in_use, kept) = self.counts(person.id).await?;
        Ok(format!(
            "{} has {in_use} lesson{} in use ({kept} kept, with history). What they say is theirs alone.",
            person.name,
            if in_use == 1 { "" } else { "s" }
        ))
    }
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod tests;
