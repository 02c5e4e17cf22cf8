//! Wakes: a bot is woken, posts its status, and its wake is closed as an episode.

use super::env::{may_dispatch, may_read, one_line, owner_id, BotEnv};
use super::{Caller, MemoryAudits, PersonaError, Reflect, ReflectReport};
use crate::persona::backlog::{Episode, NewTask, Outcome, Task, TaskKind, Wakeup, FALLBACK_STATUS, WAKE_STATUSES};
use crate::persona::store::WakePorts;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A finished wake, as the dispatcher reports it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct WakeReport {
    /// The dispatcher's name for the wake; `run` on the wire, as the dispatcher sends it.
    #[serde(rename = "run")]
    pub wake: String,
    pub exit: i32,
    pub result: String,
    pub turns: Option<u32>,
    pub cost_usd: Option<f64>,
    pub duration_s: Option<f64>,
    pub log_path: Option<String>,
    pub transcript_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WakeDoneReport {
    pub closed: Vec<i64>,
    pub fallback_posted: bool,
    /// True when this wake was already recorded: nothing was done.
    pub duplicate: bool,
    pub episode: Option<Episode>,
    pub reflect: Option<ReflectReport>,
    /// The reflection cycle, when this session was the tenth since the last one.
    #[serde(default)]
    pub self_reflect: Option<super::SelfReflectReport>,
    /// What went wrong after the wakeups were closed; never fatal to wake-done.
    pub notes: Vec<String>,
}

/// The dispatcher's side of a bot's work: its tasks, its wakes and what they closed.
#[derive(Clone)]
pub struct Wakes {
    store: Arc<dyn WakePorts>,
    env: BotEnv,
    /// A finished wake is reflected on at once.
    reflect: Reflect,
    /// A wake may ask for its bot's memory audit, and a finished one may have filled its files.
    audits: MemoryAudits,
}

impl Wakes {
    pub fn new(store: Arc<dyn WakePorts>, env: BotEnv, reflect: Reflect, audits: MemoryAudits) -> Self {
        Self { store, env, reflect, audits }
    }

    pub async fn wake(
        &self,
        caller: &Caller,
        agent: &str,
        task: Option<i64>,
        reason: &str,
    ) -> Result<Wakeup, PersonaError> {
        let (_, a) = self.env.agent(agent).await?;
        may_dispatch(caller, &a)?;
        let reason = one_line(reason, "reason")?;
        let mut words = reason.clone();
        if let Some(t) = task {
            let t =
                self.store.task(t).await?.ok_or_else(|| PersonaError::NotFound(format!("There is no task #{t}")))?;
            words.push_str(&format!("\n{}\n{}", t.title, t.body));
        }
        let wakeup = self.store.open_wakeup(agent, task, &reason, self.env.now()).await?;
        // Seed 004's input-driven trigger: the bot starts on clean memory.
        self.audits.memory_audit_if_asked(caller, agent, &words).await;
        Ok(wakeup)
    }

    pub async fn create_task(
        &self,
        caller: &Caller,
        agent: &str,
        title: &str,
        body: &str,
    ) -> Result<Task, PersonaError> {
        let (_, a) = self.env.agent(agent).await?;
        may_dispatch(caller, &a)?;
        let title = one_line(title, "title")?;
        let owner = owner_id(self.store.as_ref(), &a).await?;
        let t = NewTask {
            kind: TaskKind::Work,
            title,
            body: body.trim().to_string(),
            author: caller.label(),
            assignee: Some(agent.to_string()),
            owner,
            improve: None,
            at: self.env.now(),
        };
        self.store.create_task(&t).await.map_err(Into::into)
    }

    /// A wake posts its status on its task: the operator, the owner, or the bot it is assigned to.
    pub async fn post_status(&self, caller: &Caller, task: i64, status: &str, note: &str) -> Result<(), PersonaError> {
        let t =
            self.store.task(task).await?.ok_or_else(|| PersonaError::NotFound(format!("There is no task #{task}")))?;
        if !WAKE_STATUSES.contains(&status) {
            return Err(PersonaError::Invalid(format!(
                "A run's status is one of {}; not {status:?}",
                WAKE_STATUSES.join(", ")
            )));
        }
        let allowed = match caller {
            Caller::Operator => true,
            Caller::Bot(b) => t.assignee.as_deref() == Some(b.as_str()),
            Caller::Person(p) => t.owner.is_some_and(|o| o == p.id),
        };
        if !allowed {
            return Err(PersonaError::NotAllowed(format!("Only task #{task}'s assignee or owner can post its status")));
        }
        self.store
            .post_task_status(task, status, note.trim(), &caller.label(), self.env.now())
            .await
            .map_err(Into::into)
    }

    /// Closes the wake's wakeups and posts a fallback status if the wake left none; then, never
    /// fatally, records the episode and reflects.
    pub async fn wake_done(
        &self,
        caller: &Caller,
        ids: &[i64],
        report: &WakeReport,
    ) -> Result<WakeDoneReport, PersonaError> {
        if ids.is_empty() {
            return Err(PersonaError::Invalid("Name at least one wakeup".to_string()));
        }
        let wake = one_line(&report.wake, "run id")?;
        self.env.check_transcript(report).await?;
        let wakeups = self.store.wakeups(ids).await?;
        if let Some(missing) = ids.iter().find(|id| !wakeups.iter().any(|w| w.id == **id)) {
            return Err(PersonaError::NotFound(format!("There is no wakeup {missing}")));
        }
        let agent = wakeups[0].agent.clone();
        if wakeups.iter().any(|w| w.agent != agent) {
            return Err(PersonaError::Invalid("One run's wakeups belong to one agent".to_string()));
        }
        if let Caller::Operator = caller {
        } else {
            let (_, a) = self.env.agent(&agent).await?;
            may_dispatch(caller, &a)?;
        }
        if let Some(existing) = self.store.episode_by_wake(&agent, &wake).await? {
            return Ok(WakeDoneReport {
                closed: Vec::new(),
                fallback_posted: false,
                duplicate: true,
                episode: Some(existing),
                reflect: None,
                self_reflect: None,
                notes: Vec::new(),
            });
        }
        let note = format!("fallback: run {wake} exited {} without posting a status", report.exit);
        let finished = self.store.finish_wakeups(ids, &wake, (FALLBACK_STATUS, &note), self.env.now()).await?;
        let mut out = WakeDoneReport {
            closed: finished.wakeups.iter().map(|w| w.id).collect(),
            fallback_posted: finished.fallback_posted,
            duplicate: false,
            episode: None,
            reflect: None,
            self_reflect: None,
            notes: Vec::new(),
        };
        let first = &wakeups[0];
        let outcome = Outcome::of_wake(finished.posted.as_deref(), report.exit);
        match self.reflect.record_episode(&agent, &first.reason, first.task, outcome, report).await {
            Ok((episode, true)) => {
                match self.reflect.reflect_episode(&agent, &episode, "wake_done", false).await {
                    Ok(r) => out.reflect = Some(r),
                    Err(e) => {
                        tracing::warn!(agent, wake, error = %e, "reflect after wake-done was skipped");
                        out.notes.push(format!("reflect was skipped: {e}"));
                    }
                }
                out.episode = Some(episode);
                out.self_reflect = self.reflect.self_reflect_if_due(&agent).await;
                // Seed 004's threshold: a run may have filled the bot's memory files.
                if let Some(audit) = self.audits.memory_audit_if_due(&agent).await {
                    out.notes.push(audit.lines().remove(0));
                }
            }
            Ok((episode, false)) => {
                out.duplicate = true;
                out.episode = Some(episode);
            }
            Err(e) => {
                tracing::warn!(agent, wake, error = %e, "the episode was not recorded");
                out.notes.push(format!("the episode was not recorded: {e}"));
            }
        }
        Ok(out)
    }

    /// `engram org task redo`: the reviewer sent the card back, so the builder's latest episode on
    /// it counts as corrected.
    pub async fn redo(&self, caller: &Caller, task: i64) -> Result<Episode, PersonaError> {
        let t =
            self.store.task(task).await?.ok_or_else(|| PersonaError::NotFound(format!("There is no task #{task}")))?;
        let builder =
            t.assignee.clone().ok_or_else(|| PersonaError::Invalid(format!("Task #{task} has no assignee")))?;
        let (_, a) = self.env.agent(&builder).await?;
        may_dispatch(caller, &a)?;
        self.store
            .mark_corrected(task, &builder)
            .await?
            .ok_or_else(|| PersonaError::NotFound(format!("{builder} has no episode on task #{task}")))
    }

    pub async fn episodes(&self, caller: &Caller, agent: &str) -> Result<Vec<Episode>, PersonaError> {
        self.env.agent(agent).await?;
        may_read(caller, agent)?;
        match caller {
            Caller::Bot(_) => self.store.bot_episodes(agent).await,
            _ => self.store.episodes(agent, None).await,
        }
        .map_err(Into::into)
    }
}
