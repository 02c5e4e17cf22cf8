//! A lesson's states and the moves between them, decided here and carried out by the store.

use super::Lesson;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// A lesson nobody confirmed expires this long after it became valid; so does an unreviewed
/// proposal.
pub const EXPIRES_AFTER_DAYS: i64 = 90;
/// Why a lesson expired, as its owner reads it.
pub const NOBODY_CONFIRMED: &str = "nobody confirmed it in 90 days";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LessonState {
    /// Loads into runs while valid.
    Accepted,
    /// A team or company proposal waiting for review.
    Waiting,
    /// Replaced: by a correction, or by what a later day or check showed.
    Superseded,
    /// Nobody confirmed it in time.
    Expired,
    /// A check read another value for what it claims; for someone else's or a shared lesson.
    Contested,
    /// The record its evidence was is gone at the source.
    SourceRemoved,
    /// A reviewer declined the proposal.
    Declined,
    /// Its person left: a private lesson is closed with them, never deleted, and read by nobody.
    Retired,
}

crate::string_enum!(LessonState {
    Accepted => "accepted",
    Waiting => "waiting",
    Superseded => "superseded",
    Expired => "expired",
    Contested => "contested",
    SourceRemoved => "source_removed",
    Declined => "declined",
    Retired => "retired",
});

impl LessonState {
    /// How the owner's page names it under No longer current.
    pub fn words(&self) -> &'static str {
        match self {
            LessonState::Accepted => "in use",
            LessonState::Waiting => "waiting for review",
            LessonState::Superseded => "superseded",
            LessonState::Expired => "expired",
            LessonState::Contested => "contested",
            LessonState::SourceRemoved => "source removed",
            LessonState::Declined => "declined",
            LessonState::Retired => "retired",
        }
    }
}

/// What can happen to a lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// A reviewer accepts a proposal.
    Accept,
    /// A reviewer declines a proposal.
    Decline,
    /// Its owner corrects it, or the day's evidence or a check showed it wrong.
    Supersede,
    /// The day showed it again.
    Confirm,
    /// Nobody confirmed it within 90 days.
    Expire,
    /// A check read another value for a lesson that is not the reader's own, or is shared.
    Contest,
    /// The record its evidence was is gone at the source.
    SourceRemoved,
}

/// The state a move leads to, or why it cannot be made. Closed states take no move: a lesson is
/// never reopened, only replaced.
pub fn next(state: LessonState, mv: Move) -> Result<LessonState, &'static str> {
    use LessonState as S;
    use Move as M;
    match (state, mv) {
        (S::Waiting, M::Accept) => Ok(S::Accepted),
        (S::Waiting, M::Decline) => Ok(S::Declined),
        (S::Accepted | S::Contested, M::Supersede) => Ok(S::Superseded),
        (S::Accepted, M::Confirm) => Ok(S::Accepted),
        (S::Accepted | S::Waiting, M::Expire) => Ok(S::Expired),
        (S::Accepted | S::Waiting, M::Contest) => Ok(S::Contested),
        (S::Contested, M::Contest) => Ok(S::Contested),
        (S::Accepted | S::Waiting | S::Contested, M::SourceRemoved) => Ok(S::SourceRemoved),
        (S::Accepted | S::Contested, M::Accept | M::Decline) => Err("This lesson is not waiting for review"),
        (S::Waiting, M::Supersede | M::Confirm) => Err("This lesson is waiting for review"),
        (S::Contested, M::Confirm | M::Expire) => Err("This lesson is contested"),
        (S::Superseded | S::Expired | S::SourceRemoved | S::Declined | S::Retired, _) => {
            Err("This lesson is no longer current")
        }
    }
}

/// An unconfirmed lesson, or an unreviewed proposal, past its 90 days at `now`.
pub fn expired_by(lesson: &Lesson, now: DateTime<Utc>) -> bool {
    matches!(lesson.state, LessonState::Accepted | LessonState::Waiting)
        && !lesson.confirmed
        && lesson.valid_from + Duration::days(EXPIRES_AFTER_DAYS) <= now
}

/// The moment before which an unconfirmed lesson valid from then has expired at `now`.
pub fn expiry_cutoff(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::days(EXPIRES_AFTER_DAYS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use LessonState as S;
    use Move as M;

    #[test]
    fn each_state_takes_only_its_moves() {
        let all_moves = [M::Accept, M::Decline, M::Supersede, M::Confirm, M::Expire, M::Contest, M::SourceRemoved];
        #[rustfmt::skip]
        let table: &[(LessonState, [Option<LessonState>; 7])] = &[
            //              Accept            Decline           Supersede            Confirm           Expire             Contest              SourceRemoved
            (S::Accepted,   [None,            None,             Some(S::Superseded), Some(S::Accepted), Some(S::Expired), Some(S::Contested), Some(S::SourceRemoved)]),
            (S::Waiting,    [Some(S::Accepted), Some(S::Declined), None,             None,              Some(S::Expired), Some(S::Contested), Some(S::SourceRemoved)]),
            (S::Contested,  [None,            None,             Some(S::Superseded), None,              None,             Some(S::Contested), Some(S::SourceRemoved)]),
            (S::Superseded, [None; 7]),
            (S::Expired,    [None; 7]),
            (S::SourceRemoved, [None; 7]),
            (S::Declined,   [None; 7]),
            (S::Retired,    [None; 7]),
        ];
        for (from, row) in table {
            for (mv, want) in all_moves.iter().zip(row) {
                assert_eq!(next(*from, *mv).ok(), *want, "{from:?} by {mv:?}");
            }
        }
    }

    #[test]
    fn a_refused_move_says_why() {
        assert_eq!(next(S::Superseded, M::Supersede), Err("This lesson is no longer current"));
        assert_eq!(next(S::Accepted, M::Accept), Err("This lesson is not waiting for review"));
        assert_eq!(next(S::Waiting, M::Supersede), Err("This lesson is waiting for review"));
    }

    #[test]
    fn states_read_back_as_written() {
        for s in [
            S::Accepted,
            S::Waiting,
            S::Superseded,
            S::Expired,
            S::Contested,
            S::SourceRemoved,
            S::Declined,
            S::Retired,
        ] {
            assert_eq!(LessonState::parse(s.as_str()), Some(s));
        }
        assert_eq!(LessonState::parse("gone"), None);
    }

    #[test]
    fn only_an_unconfirmed_lesson_expires_and_only_after_ninety_days() {
        let t0: DateTime<Utc> = "2026-09-01T09:00:00Z".parse().unwrap();
        let lesson = |state, confirmed| super::super::select::tests::lesson(1, "x", state, confirmed, t0);
        let day89 = t0 + Duration::days(89);
        let day90 = t0 + Duration::days(90);
        assert!(!expired_by(&lesson(S::Accepted, false), day89));
        assert!(expired_by(&lesson(S::Accepted, false), day90));
        assert!(expired_by(&lesson(S::Waiting, false), day90), "an unreviewed proposal expires too");
        assert!(!expired_by(&lesson(S::Accepted, true), day90 + Duration::days(400)));
        assert!(!expired_by(&lesson(S::Superseded, false), day90), "a closed lesson keeps its own state");
        assert!(lesson(S::Accepted, false).in_use(day89));
        assert!(!lesson(S::Accepted, false).in_use(day90));
        assert_eq!(expiry_cutoff(day90), t0);
    }
}
