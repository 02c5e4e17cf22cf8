//! Reading threads and runs: only the person a run was for may read it (for a run acting for
//! nobody, the agent's owner; for a scheduled run, also its team's lead and admins). Anyone else is told there is no such thread, which says nothing
//! of whether one exists. Events, ids only, are for admins.

use super::*;
use crate::runs::check::CheckState;
use crate::runs::{Author, Run, RunCheck, RunState, StepKind, Thread};

/// The note under an answer the demo's scripted model gave.
pub const DEMO_MODEL_NOTE: &str = "Answered by the demo model: scripted replies, no language model";

/// How many of a person's latest threads their list shows.
pub const MY_THREADS: u32 = 30;

/// How many events one read returns at most.
pub const EVENTS_PAGE: u32 = 100;

/// Reading threads and runs: a run is read by its person, or, for one acting for nobody, by its
/// agent's owner.
#[derive(Clone)]
pub struct Threads {
    pub(super) store: Arc<dyn crate::runs::store::ThreadPorts>,
}

impl Threads {
    /// Whether `viewer` may read a run for `person` by `agent`: its person; for a run acting for
    /// nobody, the agent's owner; and for a scheduled run (`unasked`), also the lead of the
    /// agent's team (a team copy's team, else its owner's main team) and admins.
    async fn may_read(
        &self,
        viewer: &Person,
        person: Option<crate::org::PersonId>,
        agent: AgentId,
        unasked: bool,
    ) -> Result<bool, RunError> {
        if let Some(p) = person {
            return Ok(p == viewer.id);
        }
        let Some(a) = self.store.agent(agent).await? else { return Ok(false) };
        if a.owner == viewer.id {
            return Ok(true);
        }
        if !unasked || a.private {
            return Ok(false);
        }
        if viewer.is_admin {
            return Ok(true);
        }
        let team = match a.team_copy {
            Some(t) => Some(t),
            None => self.store.person(a.owner).await?.and_then(|o| o.main_team),
        };
        Ok(match team {
            Some(t) => self.store.team(t).await?.is_some_and(|t| t.lead == Some(viewer.id)),
            None => false,
        })
    }

    pub(super) async fn readable_thread(&self, viewer: &Person, id: ThreadId) -> Result<Thread, RunError> {
        let none = || RunError::NotFound("There is no such thread".into());
        let t = self.store.thread(id).await?.ok_or_else(none)?;
        // Only a thread for nobody may be a schedule's or an agent token's; its runs say whether
        // it is.
        let unasked = t.person.is_none() && self.store.runs_of_thread(t.id).await?.iter().any(for_nobody);
        if !self.may_read(viewer, t.person, t.agent, unasked).await? {
            return Err(none());
        }
        Ok(t)
    }

    pub(super) async fn readable_run(&self, viewer: &Person, id: RunId) -> Result<Run, RunError> {
        let none = || RunError::NotFound("There is no such run".into());
        let r = self.store.run(id).await?.ok_or_else(none)?;
        let unasked = for_nobody(&r);
        if !self.may_read(viewer, r.for_person, r.agent, unasked).await? {
            return Err(none());
        }
        Ok(r)
    }

    pub async fn thread(&self, viewer: &Person, id: ThreadId) -> Result<ThreadView, RunError> {
        let t = self.readable_thread(viewer, id).await?;
        self.thread_view(t).await
    }

    pub async fn run(&self, viewer: &Person, id: RunId) -> Result<RunView, RunError> {
        let r = self.readable_run(viewer, id).await?;
        self.view(r).await
    }

    /// A person's own threads, newest first, each in full.
    pub async fn my_threads(&self, person: &Person) -> Result<Vec<ThreadView>, RunError> {
        let mut out = Vec::new();
        for t in self.store.threads_for(person.id, MY_THREADS).await? {
            out.push(self.thread_view(t).await?);
        }
        Ok(out)
    }

    /// A person's own threads, newest first, as their list shows them: one read for the whole
    /// list, where [`Self::my_threads`] reads each thread's agent, runs, person and messages.
    pub async fn my_thread_list(&self, person: &Person) -> Result<Vec<ThreadSummary>, RunError> {
        Ok(self
            .store
            .thread_lines(person.id, MY_THREADS)
            .await?
            .into_iter()
            .map(|t| ThreadSummary {
                id: t.id,
                agent_name: t.agent_name.unwrap_or_else(|| "An agent".into()),
                title: t.title,
                asked_at: t.asked_at,
                working: t.working,
            })
            .collect())
    }

    /// Events after an id, for admins: ids and names only.
    pub async fn events_after(&self, admin: &Person, after: i64) -> Result<Vec<Event>, RunError> {
        if !admin.is_admin {
            return Err(RunError::NotAllowed("Only an admin can see events".into()));
        }
        Ok(self.store.events_after(after.max(0), EVENTS_PAGE).await?)
    }

    async fn thread_view(&self, t: Thread) -> Result<ThreadView, RunError> {
        let agent_name = self.store.agent(t.agent).await?.map(|a| a.name).unwrap_or_else(|| "An agent".into());
        let runs = self.store.runs_of_thread(t.id).await?;
        let person_name = match t.person {
            Some(p) => self.store.person(p).await?.map(|p| p.name),
            None => None,
        };
        let mut messages = Vec::new();
        // An answer that shows only once checked stays out of the thread while it is checked.
        let held = |m: &crate::runs::Message| {
            m.answer_of.and_then(|id| runs.iter().find(|r| r.id == id)).is_some_and(|r| r.held_for_check())
        };
        for m in self.store.messages(t.id).await? {
            if held(&m) {
                continue;
            }
            let latest = runs.iter().rev().find(|r| r.message == m.id && r.state != RunState::Retried);
            let (author, from_agent) = match m.author {
                Author::Agent(_) => (agent_name.clone(), true),
                Author::Person(_) => (person_name.clone().unwrap_or_else(|| "Someone".into()), false),
            };
            // A person's question, or the standing instruction of a run nobody asked (a
            // schedule's, written as the agent), shows its latest run.
            let run = match latest {
                Some(r) => Some(self.view(r.clone()).await?),
                None => None,
            };
            messages.push(MessageView {
                id: m.id.0,
                author,
                from_agent,
                text: m.text,
                at: m.at,
                run,
                answer_of: m.answer_of,
            });
        }
        Ok(ThreadView {
            id: t.id,
            agent: t.agent,
            agent_name,
            title: t.title,
            working: runs.iter().any(|r| r.state == RunState::Running || r.checking()),
            messages,
        })
    }

    pub(super) async fn view(&self, r: Run) -> Result<RunView, RunError> {
        let agent_name = self.store.agent(r.agent).await?.map(|a| a.name).unwrap_or_else(|| "An agent".into());
        let memory_used =
            r.steps.iter().find(|s| s.kind == StepKind::MemoryUsed).map(|s| s.refs.clone()).unwrap_or_default();
        let model_note = r.model.as_deref().filter(|m| m.starts_with("demo/")).map(|_| DEMO_MODEL_NOTE.to_string());
        let check = r.check.as_ref().map(|c| {
            let lines = r.steps.iter().rev().find(|s| s.kind == StepKind::Checked).map(|s| s.words.clone());
            let words = match (&c.state, &c.reason) {
                (CheckState::NotChecked, Some(why)) => format!("Not checked: {why}"),
                (state, _) => state.words().to_string(),
            };
            CheckView {
                state: c.state.as_str().to_string(),
                words,
                reason: c.reason.clone(),
                lines: lines.unwrap_or_default(),
            }
        });
        let answer = match (&r.answer, &r.check) {
            _ if r.held_for_check() => None,
            // Nobody watches it: what could not be checked says so in the answer itself.
            (Some(a), Some(RunCheck { state: CheckState::NotChecked, reason })) if r.unwatched => {
                Some(format!("{a}\n\nNot checked: {}", reason.as_deref().unwrap_or("the check could not run")))
            }
            (a, _) => a.clone(),
        };
        Ok(RunView {
            id: r.id,
            thread: r.thread,
            agent: r.agent,
            agent_name,
            kind: r.kind,
            state: r.state.as_str().to_string(),
            answer,
            failure: r.failure,
            data_label: r.data_label.as_str().to_string(),
            sources: r.sources,
            review_mode: r.review_mode,
            unwatched: r.unwatched,
            model: r.model,
            model_note,
            steps: r
                .steps
                .into_iter()
                .map(|s| StepView {
                    n: s.n,
                    kind: s.kind.as_str().to_string(),
                    line: s.line,
                    words: s.words,
                    refs: s.refs,
                    at: s.at,
                })
                .collect(),
            memory_used,
            check,
            created_at: r.created_at,
            finished_at: r.finished_at,
        })
    }
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;

/// A run that acts for nobody and is read like a scheduled run's, by the agent's owner, its team's
/// lead and admins: a schedule's or a trigger's, or an external run an agent token started.
pub(super) fn for_nobody(r: &crate::runs::Run) -> bool {
    r.for_person.is_none() && matches!(r.kind, crate::runs::RunKind::Schedule | crate::runs::RunKind::External)
}
