//! What a check's read does to the lessons that claim a field of the record it read. The read is
//! the source's word: the person's own lesson is superseded by the value read; anyone else's, and
//! a team's or the company's, is marked contested, without the value, and no job edits a shared
//! lesson. A record gone at the source takes the lessons that claim it out of use.

use super::{Lesson, LessonScope, LessonState};
use crate::cards::source::CardField;
use crate::org::PersonId;

/// Why a lesson was contested, as its owner reads it: no value, whose it may not be.
pub const CONTESTED: &str = "a check read another value";
/// Why the person's own lesson was superseded by a check.
pub const SUPERSEDED_BY_CHECK: &str = "a check read another value";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contradiction {
    /// The person's own lesson: replaced by what was read.
    Supersede { field: String, value: String },
    /// Someone else's lesson, or a shared one: contested. `tell_reviewers` for a team's or the
    /// company's.
    Contest { tell_reviewers: bool },
    /// The record is gone at the source.
    SourceRemoved,
}

/// Whether a claim names the record: by its id ("L-1004") or its kind and id ("lead L-1004").
pub fn names_record(claimed: &str, record_id: &str) -> bool {
    // Compared as the gate compares values: "L1004" and "l-1004" name L-1004 too.
    let claimed = claimed.trim();
    crate::canon::same_value(claimed, record_id)
        || claimed.rsplit_once(' ').is_some_and(|(_, id)| crate::canon::same_value(id, record_id))
}

/// What a read of `record_id` (its fields, or `None` when it is gone) does to one lesson, for a
/// check run for `person`. Only a lesson in use or waiting, whose claim names the record, moves.
pub fn decide(person: PersonId, record_id: &str, read: Option<&[CardField]>, lesson: &Lesson) -> Option<Contradiction> {
    let claim = lesson.claim.as_ref()?;
    if !matches!(lesson.state, LessonState::Accepted | LessonState::Waiting) || !names_record(&claim.record, record_id)
    {
        return None;
    }
    let Some(fields) = read else { return Some(Contradiction::SourceRemoved) };
    let field = fields.iter().find(|f| f.name.eq_ignore_ascii_case(claim.field.trim()))?;
    if crate::canon::same_value(&field.value, &claim.value) {
        return None;
    }
    Some(match lesson.scope {
        LessonScope::Personal if lesson.person == person && lesson.state == LessonState::Accepted => {
            Contradiction::Supersede { field: field.name.clone(), value: field.value.clone() }
        }
        LessonScope::Personal | LessonScope::Agent(_) => Contradiction::Contest { tell_reviewers: false },
        LessonScope::Team(_) | LessonScope::Company | LessonScope::Partner => {
            Contradiction::Contest { tell_reviewers: true }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::DataLabel;
    use crate::lessons::{Claim, WrittenBy};
    use crate::org::{AgentId, TeamId};
    use chrono::{TimeZone, Utc};

    fn lesson(person: i64, scope: LessonScope, state: LessonState, record: &str, value: &str) -> Lesson {
        let at = Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
        Lesson {
            id: 1,
            person: PersonId(person),
            scope,
            text: "t".into(),
            evidence: vec![],
            label: DataLabel::Internal,
            checked_at: None,
            source_version: None,
            valid_from: at,
            valid_to: None,
            claim: Some(Claim { record: record.into(), field: "stage".into(), value: value.into() }),
            state,
            state_at: at,
            state_reason: None,
            confirmed: false,
            supersedes: None,
            written_by: WrittenBy::Job,
            created_at: at,
            terms: None,
        }
    }

    #[test]
    fn a_read_supersedes_your_own_and_contests_everyone_elses() {
        use LessonScope::*;
        use LessonState::*;
        let read = [
            CardField { name: "stage".into(), value: "Won".into(), free_text: false },
            CardField { name: "owner".into(), value: "Dana".into(), free_text: false },
        ];
        let alice = PersonId(1);
        let supersede = Some(Contradiction::Supersede { field: "stage".into(), value: "Won".into() });
        let table = [
            (lesson(1, Personal, Accepted, "L-1004", "Qualified"), supersede.clone()),
            (lesson(1, Personal, Accepted, "lead L-1004", "Qualified"), supersede),
            (lesson(1, Personal, Accepted, "L-1004", "won"), None),
            (lesson(1, Personal, Accepted, "L-1005", "Qualified"), None),
            (lesson(1, Personal, Superseded, "L-1004", "Qualified"), None),
            (lesson(1, Personal, Contested, "L-1004", "Qualified"), None),
            (
                lesson(2, Personal, Accepted, "L-1004", "Qualified"),
                Some(Contradiction::Contest { tell_reviewers: false }),
            ),
            (
                lesson(2, Agent(AgentId(3)), Accepted, "L-1004", "Qualified"),
                Some(Contradiction::Contest { tell_reviewers: false }),
            ),
            (
                lesson(1, Team(TeamId(4)), Accepted, "L-1004", "Qualified"),
                Some(Contradiction::Contest { tell_reviewers: true }),
            ),
            (
                lesson(2, Company, Accepted, "L-1004", "Qualified"),
                Some(Contradiction::Contest { tell_reviewers: true }),
            ),
            (
                lesson(2, Team(TeamId(4)), Waiting, "L-1004", "Qualified"),
                Some(Contradiction::Contest { tell_reviewers: true }),
            ),
        ];
        for (l, want) in table {
            assert_eq!(
                decide(alice, "L-1004", Some(&read), &l),
                want,
                "{:?} of {:?} claiming {:?}",
                l.scope,
                l.person,
                l.claim
            );
        }
        // A field the read did not return decides nothing.
        let mut owner = lesson(1, Personal, Accepted, "L-1004", "Sam");
        owner.claim.as_mut().unwrap().field = "region".into();
        assert_eq!(decide(alice, "L-1004", Some(&read), &owner), None);
        // Gone at the source: every lesson that claims it, whoever's.
        for l in [lesson(1, Personal, Accepted, "L-1004", "Won"), lesson(2, Company, Accepted, "L-1004", "Won")] {
            assert_eq!(decide(alice, "L-1004", None, &l), Some(Contradiction::SourceRemoved));
        }
        let mut unclaimed = lesson(1, Personal, Accepted, "L-1004", "Won");
        unclaimed.claim = None;
        assert_eq!(decide(alice, "L-1004", None, &unclaimed), None);
    }
}
