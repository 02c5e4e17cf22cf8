//! How a reflect step's operations change a bot's rows, decided here and executed by the store in
//! one transaction. Rows are never deleted: a repeat bumps a row, new wording inserts a row that
//! supersedes the old one, and a delete closes the row with its reason.

use super::audn::AudnOp;
use super::backlog::MemoryRow;
use super::render::MemoryKind;
use chrono::{DateTime, Utc};
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowChange {
    Insert {
        kind: MemoryKind,
        text: String,
        evidence: Vec<i64>,
    },
    /// Seen again: one more sighting, last seen now, and the episode as evidence.
    Bump {
        id: i64,
        episode: i64,
    },
    /// New wording: a new row carrying the old row's count plus this sighting, its first sighting,
    /// its evidence plus this episode and its proposal; the old row is closed, superseded by it.
    Supersede {
        old: i64,
        kind: MemoryKind,
        text: String,
        times_seen: u32,
        first_seen: DateTime<Utc>,
        evidence: Vec<i64>,
        proposal: Option<i64>,
        reason: String,
    },
    Close {
        id: i64,
        reason: String,
    },
}

/// The operations name a row that is not one of the agent's active rows (closed meanwhile).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line #{0} is not active")]
pub struct NotActive(pub i64);

/// Plans the changes for one episode against the agent's active rows. One reply is one sighting:
/// a second operation on a row the reply already touched is ignored.
pub fn plan(active: &[MemoryRow], ops: &[AudnOp], episode: i64) -> Result<Vec<RowChange>, NotActive> {
    let mut touched = HashSet::new();
    let mut out = Vec::new();
    let find = |id: i64| active.iter().find(|r| r.id == id && r.active).ok_or(NotActive(id));
    for op in ops {
        match op {
            AudnOp::Add { kind, text } => {
                let dup = active.iter().any(|r| r.active && r.kind == *kind && r.text.eq_ignore_ascii_case(text));
                let again =
                    out.iter().any(|c| matches!(c, RowChange::Insert { text: t, .. } if t.eq_ignore_ascii_case(text)));
                if let Some(r) = active.iter().find(|r| dup && r.kind == *kind && r.text.eq_ignore_ascii_case(text)) {
                    // The same claim word for word is a repeat, not a second row.
                    if touched.insert(r.id) {
                        out.push(RowChange::Bump { id: r.id, episode });
                    }
                } else if !again {
                    out.push(RowChange::Insert { kind: *kind, text: text.clone(), evidence: vec![episode] });
                }
            }
            AudnOp::Repeat { id } => {
                let r = find(*id)?;
                if touched.insert(r.id) {
                    out.push(RowChange::Bump { id: r.id, episode });
                }
            }
            AudnOp::Reword { id, text } => {
                let r = find(*id)?;
                if touched.insert(r.id) {
                    let mut evidence = r.evidence.clone();
                    if !evidence.contains(&episode) {
                        evidence.push(episode);
                    }
                    out.push(RowChange::Supersede {
                        old: r.id,
                        kind: r.kind,
                        text: text.clone(),
                        times_seen: r.times_seen + 1,
                        first_seen: r.first_seen,
                        evidence,
                        proposal: r.proposal_task_id,
                        reason: format!("superseded by new wording from episode {episode}"),
                    });
                }
            }
            AudnOp::Delete { id, reason } => {
                let r = find(*id)?;
                if touched.insert(r.id) {
                    out.push(RowChange::Close { id: r.id, reason: format!("retired: {reason}") });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn row(id: i64, kind: MemoryKind, text: &str, seen: u32) -> MemoryRow {
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
        MemoryRow {
            id,
            agent: "scout".into(),
            kind,
            text: text.into(),
            times_seen: seen,
            worth: 0,
            first_seen: at,
            last_seen: at,
            active: true,
            closed_at: None,
            closed_reason: None,
            closed_by: None,
            superseded_by: None,
            promoted_to_proposal: false,
            proposal_task_id: None,
            evidence: vec![1],
        }
    }

    fn rows() -> Vec<MemoryRow> {
        vec![row(7, MemoryKind::Friction, "I wait on exports.", 1), row(9, MemoryKind::Lesson, "I run clippy.", 3)]
    }

    #[test]
    fn each_operation_becomes_its_change() {
        let ops = vec![
            AudnOp::Add { kind: MemoryKind::Preference, text: "I like small cards.".into() },
            AudnOp::Repeat { id: 7 },
            AudnOp::Reword { id: 9, text: "I run clippy before review.".into() },
        ];
        let p = plan(&rows(), &ops, 5).unwrap();
        assert_eq!(
            p[0],
            RowChange::Insert { kind: MemoryKind::Preference, text: "I like small cards.".into(), evidence: vec![5] }
        );
        assert_eq!(p[1], RowChange::Bump { id: 7, episode: 5 });
        match &p[2] {
            RowChange::Supersede { old, times_seen, evidence, reason, .. } => {
                assert_eq!((*old, *times_seen), (9, 4));
                assert_eq!(evidence, &vec![1, 5]);
                assert!(reason.contains("episode 5"));
            }
            other => panic!("{other:?}"),
        }
        let d = plan(&rows(), &[AudnOp::Delete { id: 7, reason: "fixed".into() }], 5).unwrap();
        assert_eq!(d, vec![RowChange::Close { id: 7, reason: "retired: fixed".into() }]);
    }

    #[test]
    fn a_word_for_word_add_is_a_repeat_and_one_reply_is_one_sighting() {
        let ops = vec![
            AudnOp::Add { kind: MemoryKind::Friction, text: "i wait on exports.".into() },
            AudnOp::Repeat { id: 7 },
            AudnOp::Add { kind: MemoryKind::Lesson, text: "New.".into() },
            AudnOp::Add { kind: MemoryKind::Lesson, text: "New.".into() },
        ];
        let p = plan(&rows(), &ops, 5).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], RowChange::Bump { id: 7, episode: 5 });
    }

    #[test]
    fn a_row_closed_meanwhile_refuses_the_whole_plan() {
        let mut r = rows();
        r[0].active = false;
        assert_eq!(plan(&r, &[AudnOp::Repeat { id: 7 }], 5), Err(NotActive(7)));
        assert_eq!(plan(&r, &[AudnOp::Delete { id: 3, reason: "x".into() }], 5), Err(NotActive(3)));
    }

    fn arb_op() -> impl Strategy<Value = AudnOp> {
        prop_oneof![
            "[a-z ]{1,20}".prop_map(|t| AudnOp::Add { kind: MemoryKind::Lesson, text: t }),
            prop::sample::select(vec![7i64, 9]).prop_map(|id| AudnOp::Repeat { id }),
            (prop::sample::select(vec![7i64, 9]), "[a-z]{1,10}").prop_map(|(id, t)| AudnOp::Reword { id, text: t }),
            prop::sample::select(vec![7i64, 9]).prop_map(|id| AudnOp::Delete { id, reason: "x".into() }),
        ]
    }

    proptest! {
        #[test]
        fn a_plan_never_lowers_a_count_and_touches_a_row_at_most_once(ops in prop::collection::vec(arb_op(), 0..12)) {
            let before = rows();
            let p = plan(&before, &ops, 42).unwrap();
            let mut seen = HashSet::new();
            for c in &p {
                match c {
                    RowChange::Bump { id, .. } | RowChange::Close { id, .. } => prop_assert!(seen.insert(*id)),
                    RowChange::Supersede { old, times_seen, .. } => {
                        prop_assert!(seen.insert(*old));
                        let was = before.iter().find(|r| r.id == *old).unwrap().times_seen;
                        prop_assert!(*times_seen > was);
                    }
                    RowChange::Insert { evidence, .. } => prop_assert_eq!(evidence, &vec![42]),
                }
            }
        }
    }
}
