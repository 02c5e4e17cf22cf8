//! The lessons' rules, tried against the in-memory directory and a list of lessons: what waits
//! for review, who reviews it, a second decision, and a proposal nobody reviewed in 90 days. No
//! database.

use super::*;
use crate::clock::ManualClock;
use crate::kernel::{RunId, TeamId, ThreadId};
use crate::lessons::{EvidenceRuns, LessonStore};
use crate::org::fake::{person, WithOrg};
use crate::org::Team;
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// The lessons written, by id (their index plus one).
#[derive(Default)]
struct LessonRows(Mutex<Vec<Lesson>>);

type Fake = WithOrg<LessonRows>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

impl Fake {
    fn rows(&self) -> std::sync::MutexGuard<'_, Vec<Lesson>> {
        self.rows.0.lock().expect("the rows")
    }
}

#[async_trait::async_trait]
impl LessonStore for Fake {
    async fn add_lesson(&self, new: &NewLesson, _: Actor) -> Result<Lesson, StoreError> {
        let mut rows = self.rows();
        let lesson = Lesson {
            id: rows.len() as i64 + 1,
            person: new.person,
            scope: new.scope,
            text: new.text.clone(),
            evidence: new.evidence.clone(),
            label: new.label,
            checked_at: new.checked_at,
            source_version: new.source_version.clone(),
            valid_from: new.at,
            valid_to: None,
            claim: new.claim.clone(),
            state: new.state,
            state_at: new.at,
            state_reason: None,
            confirmed: new.confirmed,
            supersedes: None,
            written_by: new.written_by,
            created_at: new.at,
            terms: None,
        };
        rows.push(lesson.clone());
        Ok(lesson)
    }
    async fn lesson(&self, id: i64) -> Result<Option<Lesson>, StoreError> {
        Ok(self.rows().iter().find(|l| l.id == id).cloned())
    }
    async fn lessons_of(&self, person: PersonId) -> Result<Vec<Lesson>, StoreError> {
        Ok(self.rows().iter().rev().filter(|l| l.person == person).cloned().collect())
    }
    async fn lessons_for_run(&self, _: PersonId, _: &[TeamId]) -> Result<Vec<Lesson>, StoreError> {
        Err(unsupported("load lessons for a run"))
    }
    async fn supersede_lesson(&self, _: &Lesson, _: &NewLesson, _: &str, _: Actor) -> Result<Lesson, StoreError> {
        Err(unsupported("supersede lessons"))
    }
    async fn waiting_lessons(&self) -> Result<Vec<Lesson>, StoreError> {
        Ok(self.rows().iter().filter(|l| l.state == LessonState::Waiting).cloned().collect())
    }
    /// As the real stores: decided only while it still waits.
    async fn decide_lesson(&self, id: i64, accept: bool, actor: Actor) -> Result<Lesson, StoreError> {
        let mut rows = self.rows();
        let l = rows.iter_mut().find(|l| l.id == id).ok_or_else(|| StoreError::NotFound(format!("lesson {id}")))?;
        if l.state != LessonState::Waiting {
            return Err(StoreError::Changed { current: 0 });
        }
        l.state = if accept { LessonState::Accepted } else { LessonState::Declined };
        l.confirmed = accept;
        l.state_at = actor.at;
        Ok(l.clone())
    }
    async fn forget_lesson(&self, _: i64, _: Actor) -> Result<u32, StoreError> {
        Err(unsupported("forget lessons"))
    }
    async fn lessons_claiming(&self, _: &str) -> Result<Vec<Lesson>, StoreError> {
        Err(unsupported("read claims"))
    }
    async fn mark_lesson(&self, _: i64, _: LessonState, _: LessonState, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("mark lessons"))
    }
    async fn expire_lessons(&self, _: PersonId, _: DateTime<Utc>, _: DateTime<Utc>) -> Result<u32, StoreError> {
        Err(unsupported("expire lessons"))
    }
}

#[async_trait::async_trait]
impl EvidenceRuns for Fake {
    async fn evidence_run(&self, _: RunId) -> Result<Option<(Option<PersonId>, ThreadId)>, StoreError> {
        Ok(None)
    }
}

const ADMIN: PersonId = PersonId(1);
const LEAD: PersonId = PersonId(2);
const MEMBER: PersonId = PersonId(3);
const OTHER_LEAD: PersonId = PersonId(4);

/// Support led by Lena with Max in it, Sales led by Sam; Ada is the admin.
fn lessons() -> (Lessons, Arc<Fake>, Arc<ManualClock>) {
    let org = crate::org::fake::FakeOrg::with(
        vec![
            person(1, "Ada", true, None),
            person(2, "Lena", false, Some(1)),
            person(3, "Max", false, Some(1)),
            person(4, "Sam", false, Some(2)),
        ],
        vec![
            Team { id: TeamId(1), name: "Support".into(), lead: Some(LEAD), role: None },
            Team { id: TeamId(2), name: "Sales".into(), lead: Some(OTHER_LEAD), role: None },
        ],
        vec![],
    );
    let fake = Arc::new(WithOrg { org, rows: LessonRows::default() });
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    (Lessons::new(fake.clone(), clock.clone()), fake, clock)
}

fn who(fake: &Fake, id: PersonId) -> Person {
    fake.org.person_now(id).expect("in the directory")
}

#[tokio::test]
async fn a_private_lesson_is_kept_at_once_and_a_team_one_waits_for_its_lead() {
    let (lessons, fake, _) = lessons();
    let max = who(&fake, MEMBER);
    let own = lessons.keep(&max, "private", "Acme prefers calls after 3pm").await.expect("kept");
    assert_eq!((own.scope, own.state), (LessonScope::Personal, LessonState::Accepted));
    let team = lessons.keep(&max, "team", "Refunds over 10k need the lead's approval").await.expect("proposed");
    assert_eq!((team.scope, team.state, team.confirmed), (LessonScope::Team(TeamId(1)), LessonState::Waiting, false));

    let queue = |p| {
        let lessons = lessons.clone();
        let reviewer = who(&fake, p);
        async move { lessons.review_queue(&reviewer).await.expect("the queue").len() }
    };
    assert_eq!(queue(LEAD).await, 1, "Support's lead reviews it");
    assert_eq!(queue(ADMIN).await, 1, "so does an admin");
    assert_eq!(queue(OTHER_LEAD).await, 0, "another team's lead does not");
    assert_eq!(queue(MEMBER).await, 0, "nor does the one who proposed it");
}

#[tokio::test]
async fn only_a_reviewer_decides_and_a_second_decision_changes_nothing() {
    let (lessons, fake, _) = lessons();
    let team = lessons.keep(&who(&fake, MEMBER), "team", "Escalate outages in the first hour").await.expect("proposed");
    let company = lessons.keep(&who(&fake, LEAD), "company", "Invoices go out on the 1st").await.expect("proposed");

    let by_other = lessons.decide(&who(&fake, OTHER_LEAD), team.id, true).await.unwrap_err();
    assert_eq!(by_other, LessonError::NotAllowed("Only the team's lead or an admin reviews a team lesson".into()));
    let by_lead = lessons.decide(&who(&fake, LEAD), company.id, true).await.unwrap_err();
    assert_eq!(by_lead, LessonError::NotAllowed("Only an admin reviews a company lesson".into()));

    let accepted = lessons.decide(&who(&fake, LEAD), team.id, true).await.expect("the lead accepts");
    assert_eq!((accepted.state, accepted.confirmed), (LessonState::Accepted, true));
    let again = lessons.decide(&who(&fake, ADMIN), team.id, false).await.unwrap_err();
    assert_eq!(again, LessonError::Invalid(ALREADY_DECIDED.into()));
    assert_eq!(fake.rows()[0].state, LessonState::Accepted, "the second decision wrote nothing");
}

#[tokio::test]
async fn a_proposal_nobody_reviewed_in_90_days_is_expired_and_cannot_be_accepted() {
    let (lessons, fake, clock) = lessons();
    let team = lessons.keep(&who(&fake, MEMBER), "team", "Close tickets with a summary").await.expect("proposed");
    clock.advance(chrono::Duration::days(super::super::states::EXPIRES_AFTER_DAYS));
    assert!(lessons.review_queue(&who(&fake, LEAD)).await.expect("the queue").is_empty(), "it left the queue");
    let late = lessons.decide(&who(&fake, LEAD), team.id, true).await.unwrap_err();
    assert_eq!(late, LessonError::Invalid("This proposal expired: nobody reviewed it in 90 days".into()));
    assert_eq!(fake.rows()[0].state, LessonState::Waiting, "the store was not asked to decide it");
}

#[tokio::test]
async fn a_bad_scope_a_teamless_team_lesson_and_a_secret_are_refused_and_nothing_is_kept() {
    let (lessons, fake, _) = lessons();
    let ada = who(&fake, ADMIN);
    let scope = lessons.keep(&ada, "everyone", "Be kind").await.unwrap_err();
    assert!(matches!(scope, LessonError::Invalid(ref s) if s.ends_with("not \u{201c}everyone\u{201d}")), "{scope:?}");
    let teamless = lessons.keep(&ada, "team", "Be kind").await.unwrap_err();
    assert_eq!(teamless, LessonError::Invalid("You are on no team, so there is no team to keep this for".into()));
    let secret = lessons.keep(&ada, "private", "The API key is sk-live-4f9aZ7qL2xW8eR1tY6uI0oP3").await.unwrap_err();
    assert!(matches!(secret, LessonError::Secret(_)), "{secret:?}");
    assert!(fake.rows().is_empty());
}
