//! Which kind of work a run was, and whether it is clean enough to suggest a core line from.
//!
//! The kinds are read apart and never mixed in one call: a person's own asks are personal work,
//! an agent's scheduled work for its team is shared work, their asks of their private agents are
//! private work, and only shared work may propose a team or company lesson.

use crate::kernel::DataLabel;
use crate::runs::{Run, RunKind, RunState, StepKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WorkKind {
    /// Work done for the team, acting for nobody: it may propose team and company lessons.
    Shared,
    /// What a person asked for themselves: it teaches only personal lessons.
    Personal,
    /// What a person asked their private agents: it teaches only lessons that load into their
    /// private agents' runs.
    Private,
}

impl WorkKind {
    /// As the prompt names it, for the model and the logs.
    pub fn as_str(&self) -> &'static str {
        match self {
            WorkKind::Shared => "shared work",
            WorkKind::Personal => "personal work",
            WorkKind::Private => "private agents' work",
        }
    }
}

/// The kind of work a finished run was, or `None` for a run the job never reads: one not
/// answered, an eval (which carries no memory), a consult (which keeps none of its own) or an
/// external run (its answer is an outside agent's words, never learnt from).
/// `private` says the run's agent is a private agent.
pub fn work_kind(run: &Run, private: bool) -> Option<WorkKind> {
    if run.state != RunState::Answered {
        return None;
    }
    match run.kind {
        RunKind::Ask if run.for_person.is_some() && private => Some(WorkKind::Private),
        RunKind::Ask if run.for_person.is_some() => Some(WorkKind::Personal),
        RunKind::Schedule => Some(WorkKind::Shared),
        RunKind::Ask | RunKind::Eval | RunKind::Consult | RunKind::External => None,
    }
}

/// Whether a core line may rest on the run: work at internal or below with no outside text in
/// it, so no email, ticket or tool result, and nothing read again from a source.
pub fn clean(run: &Run) -> bool {
    run.data_label <= DataLabel::Internal
        && run.sources.is_empty()
        && run.steps.iter().all(|s| matches!(s.kind, StepKind::MemoryUsed | StepKind::Answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::org::{AgentId, PersonId};
    use crate::runs::{MessageId, RunId, Step, ThreadId};
    use chrono::{TimeZone, Utc};

    pub(crate) fn run(kind: RunKind, for_person: Option<i64>, state: RunState) -> Run {
        Run {
            id: RunId(1),
            thread: ThreadId(1),
            message: MessageId(1),
            agent: AgentId(1),
            for_person: for_person.map(PersonId),
            kind,
            state,
            unwatched: false,
            data_label: DataLabel::Internal,
            sources: vec![],
            review_mode: false,
            model: None,
            answer: Some("Stages: lead, qualified, won.".into()),
            failure: None,
            retry_of: None,
            check: None,
            checked_only: false,
            steps: vec![],
            created_at: Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap(),
            finished_at: None,
        }
    }

    #[test]
    fn each_run_is_one_kind_of_work_or_none() {
        use RunKind::*;
        use RunState::*;
        let table = [
            (Ask, Some(7), Answered, false, Some(WorkKind::Personal)),
            (Ask, Some(7), Answered, true, Some(WorkKind::Private)),
            (Ask, Some(7), Failed, true, None),
            (Schedule, None, Answered, false, Some(WorkKind::Shared)),
            (Ask, Some(7), Failed, false, None),
            (Ask, Some(7), Running, false, None),
            (Schedule, None, Retried, false, None),
            (Eval, None, Answered, false, None),
            (Consult, Some(7), Answered, false, None),
            // An ask acting for nobody is no one's personal work.
            (Ask, None, Answered, false, None),
            (Ask, None, Answered, true, None),
        ];
        for (kind, person, state, private, want) in table {
            assert_eq!(
                work_kind(&run(kind, person, state), private),
                want,
                "{kind:?} for {person:?}, {state:?}, private {private}"
            );
        }
    }

    fn step(kind: StepKind) -> Step {
        Step {
            n: 1,
            kind,
            line: String::new(),
            words: vec![],
            refs: vec![],
            detail: None,
            at: Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap(),
        }
    }

    #[test]
    fn only_internal_work_with_no_outside_text_is_clean() {
        let base = run(RunKind::Ask, Some(7), RunState::Answered);
        let with = |f: &dyn Fn(&mut Run)| {
            let mut r = base.clone();
            f(&mut r);
            clean(&r)
        };
        assert!(with(&|_| {}));
        assert!(with(&|r| r.steps = vec![step(StepKind::MemoryUsed), step(StepKind::Answer)]));
        assert!(with(&|r| r.data_label = DataLabel::Public));
        assert!(!with(&|r| r.data_label = DataLabel::Confidential));
        assert!(!with(&|r| r.data_label = DataLabel::Personal));
        assert!(!with(&|r| r.sources = vec!["Acme ATS".into()]));
        for outside in [StepKind::ToolCall, StepKind::Waiting, StepKind::Refused, StepKind::Checked, StepKind::Failed] {
            assert!(!with(&|r| r.steps = vec![step(outside)]), "{outside:?}");
        }
    }
}
