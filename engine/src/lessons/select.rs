//! Which lessons a run loads: of those in use and readable by the person, the ones that share a
//! word that carries meaning with the question, most shared words first, at most ten. The block then keeps them within
//! its 2,000 tokens.

use super::Lesson;
use crate::cards::snapshots::meaning;

/// At most this many lessons load into one run.
pub const LESSONS_PER_RUN: usize = 10;

/// The lessons a question loads, most relevant first: by how many of its words they share, then
/// confirmed before unconfirmed, then newest.
pub fn lessons_for<'a>(question: &str, lessons: &'a [Lesson]) -> Vec<&'a Lesson> {
    let asked = meaning(question);
    let mut scored: Vec<(usize, &Lesson)> = lessons
        .iter()
        .map(|l| (meaning(&l.text).iter().filter(|w| asked.contains(w)).count(), l))
        .filter(|(shared, _)| *shared > 0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.confirmed.cmp(&a.1.confirmed))
            .then(b.1.valid_from.cmp(&a.1.valid_from))
            .then(b.1.id.cmp(&a.1.id))
    });
    scored.into_iter().take(LESSONS_PER_RUN).map(|(_, l)| l).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kernel::DataLabel;
    use crate::lessons::{LessonScope, LessonState, WrittenBy};
    use crate::org::PersonId;
    use chrono::{DateTime, Duration, Utc};

    pub(crate) fn lesson(id: i64, text: &str, state: LessonState, confirmed: bool, at: DateTime<Utc>) -> Lesson {
        Lesson {
            id,
            person: PersonId(1),
            scope: LessonScope::Personal,
            text: text.into(),
            evidence: vec![],
            label: DataLabel::Internal,
            checked_at: None,
            source_version: None,
            valid_from: at,
            valid_to: None,
            claim: None,
            state,
            state_at: at,
            state_reason: None,
            confirmed,
            supersedes: None,
            written_by: WrittenBy::Job,
            created_at: at,
        }
    }

    #[test]
    fn a_lesson_loads_when_the_question_shares_a_word_with_it() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let lessons = [
            lesson(2, "Dana Brooks at Litware reads mail at dana@litware.example", LessonState::Accepted, true, t),
            lesson(1, "Kaveri Foods' CFO prefers calls before 10", LessonState::Accepted, false, t),
        ];
        let ids = |q: &str| lessons_for(q, &lessons).iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids("email Dana that the proposal is ready"), [2]);
        assert_eq!(ids("when should I call Kaveri?"), [1]);
        assert_eq!(ids("what is at stake"), Vec::<i64>::new(), "two-letter words name nothing");
        assert_eq!(ids("what are our sales stages"), Vec::<i64>::new());
        let paid = [lesson(3, "Kaveri invoices are paid in 45 days", LessonState::Accepted, true, t)];
        assert!(
            lessons_for("what are our sales stages", &paid).is_empty(),
            "words like \u{201c}are\u{201d} name nothing"
        );
        assert_eq!(lessons_for("who pays the invoice?", &paid).len(), 1, "a plural is its singular");
    }

    #[test]
    fn more_shared_words_first_then_confirmed_then_newest_and_ten_at_most() {
        let t: DateTime<Utc> = "2026-11-01T09:00:00Z".parse().unwrap();
        let mut lessons = vec![
            lesson(1, "Kaveri Foods pays late", LessonState::Accepted, false, t),
            lesson(2, "Kaveri Foods renewal is in March", LessonState::Accepted, false, t + Duration::days(1)),
            lesson(3, "Kaveri renewal talks go through procurement", LessonState::Accepted, true, t),
        ];
        let ids = |q: &str, l: &[Lesson]| lessons_for(q, l).iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids("Kaveri renewal", &lessons), [3, 2, 1]);
        for i in 10..30 {
            lessons.push(lesson(i, "Kaveri again", LessonState::Accepted, false, t));
        }
        assert_eq!(ids("Kaveri", &lessons).len(), LESSONS_PER_RUN);
    }
}
