//! After a check: the lessons that claim a field of a record it read with another value, or of a
//! record gone at the source. Each move stands alone; one that fails is logged, never the check's
//! failure.

use super::*;
use crate::cards::service::RefreshOutcome;
use crate::kernel::Actor;
use crate::lessons::contradictions::{decide, Contradiction, CONTESTED, SUPERSEDED_BY_CHECK};
use crate::lessons::{Claim, Evidence, Lesson, LessonState, NewLesson, WrittenBy};
use crate::runs::check::CardChecked;
use crate::runs::{NewEvent, Run};

impl Answering {
    pub(super) async fn contradict(&self, run: &Run, person: &Person, checked: &[CardChecked]) {
        for c in checked {
            let read = match &c.outcome {
                RefreshOutcome::Gone(_) => None,
                RefreshOutcome::Changed(_) | RefreshOutcome::NoChange => match self.store.card(c.card).await {
                    Ok(Some(card)) => Some(card.fields),
                    Ok(None) => continue,
                    Err(e) => {
                        tracing::warn!(error = %e, card = c.card, "a checked card was not read back for its lessons");
                        continue;
                    }
                },
                RefreshOutcome::NotChecked(_) => continue,
            };
            let lessons = match self.store.lessons_claiming(&c.record_id).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(error = %e, "the lessons claiming a checked record were not read");
                    continue;
                }
            };
            for l in lessons {
                let Some(m) = decide(person.id, &c.record_id, read.as_deref(), &l) else { continue };
                if let Err(e) = self.apply_contradiction(run, c, &l, m).await {
                    tracing::warn!(error = %e, lesson = l.id, "a lesson a check contradicted was left as it was");
                }
            }
        }
    }

    async fn apply_contradiction(
        &self,
        run: &Run,
        c: &CardChecked,
        l: &Lesson,
        m: Contradiction,
    ) -> Result<(), crate::kernel::StoreError> {
        let now = self.now();
        let actor = Actor { person: None, at: now };
        match m {
            Contradiction::Supersede { field, value } => {
                let mut evidence = l.evidence.clone();
                evidence.push(Evidence { run: run.id, step: run.steps.last().map(|s| i64::from(s.n)).unwrap_or(0) });
                let record = l.claim.as_ref().map(|c| c.record.clone()).unwrap_or_else(|| c.record_id.clone());
                let new = NewLesson {
                    person: l.person,
                    scope: l.scope,
                    text: format!("{} {}'s {field} is {value}, as {} said at a check.", c.kind, c.record_id, c.source),
                    evidence,
                    label: l.label,
                    checked_at: Some(now),
                    source_version: None,
                    claim: Some(Claim { record, field, value }),
                    state: LessonState::Accepted,
                    confirmed: true,
                    written_by: WrittenBy::Job,
                    at: now,
                };
                self.store.supersede_lesson(l, &new, SUPERSEDED_BY_CHECK, actor).await.map(|_| ())
            }
            Contradiction::Contest { tell_reviewers } => {
                self.store.mark_lesson(l.id, l.state, LessonState::Contested, CONTESTED, actor).await?;
                if tell_reviewers {
                    // The reviewers are told by id; what was read stays with the person who read it.
                    let event = NewEvent {
                        name: "lesson_contested".into(),
                        refs: vec![MemoryRef::Lesson(l.ref_id())],
                        ..Default::default()
                    };
                    self.store.record_event(&event, now).await?;
                }
                Ok(())
            }
            Contradiction::SourceRemoved => {
                let why = format!("the record is gone at {}", c.source);
                self.store.mark_lesson(l.id, l.state, LessonState::SourceRemoved, &why, actor).await
            }
        }
    }
}
