//! The operations on the bots' side: wakes, episodes, reflect, the core block, corrections and
//! self-improvement proposals. The CLI, `/api` and the pages all come through here.

use super::audn::{parse_reply, AudnError, AudnOp, MAX_REPLY_BYTES};
use super::backlog::{
    summarise_run, AppliedOps, Episode, Improvement, MemoryRow, NewEpisode, NewTask, Outcome, Task, TaskKind, Wakeup,
    FALLBACK_STATUS, RUN_STATUSES, STATUS_APPLIED, STATUS_CLOSED, STATUS_OPEN,
};
use super::config::{EffectiveConfig, MemoryConfig};
use super::model::{
    propose_prompt, reflect_prompt, ModelChoice, Models, EXCERPT_BYTES, PROPOSE_SYSTEM, REFLECT_SYSTEM,
};
use super::proposal::{check_path, check_vault_path, validate_proposal, OffLimits, ProposalRefusal, Target, ORG_YAML};
use super::render::{render_core, MemoryKind, RenderedCore};
use super::vault::{core_path, hand_written_memory_path, load_roster, Roster, RosterAgent, Vault, VaultError};
use crate::clock::Clock;
use crate::org::Person;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Duration, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

pub const DEFAULT_MAX_PER_DAY: u32 = 200;
const MAX_TEXT_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PersonaError {
    #[error("{0}")]
    Vault(VaultError),
    #[error("There is no agent named {0} on the roster")]
    NotOnRoster(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    /// Someone else changed it first; nothing was written.
    #[error("{0}")]
    Changed(String),
    #[error("{0}")]
    Refused(ProposalRefusal),
    /// A run's transcript the memory steps will not read; nothing was changed.
    #[error("The transcript {path} was refused: {why}")]
    TranscriptRefused { path: String, why: OffLimits },
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

fn internal(e: StoreError) -> PersonaError {
    PersonaError::Internal(e.to_string())
}

/// Who is asking. The operator is the local command line on the host, which the dispatcher runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Operator,
    Person(Person),
    Bot(String),
}

impl Caller {
    fn label(&self) -> String {
        match self {
            Caller::Operator => "operator".to_string(),
            Caller::Person(p) => format!("person:{}", p.email),
            Caller::Bot(a) => format!("agent:{a}"),
        }
    }
}

/// A finished run, as the dispatcher reports it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunReport {
    pub run: String,
    pub exit: i32,
    pub result: String,
    pub turns: Option<u32>,
    pub cost_usd: Option<f64>,
    pub duration_s: Option<f64>,
    pub log_path: Option<String>,
    pub transcript_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ReflectOutcome {
    Applied(AppliedOps),
    /// What a dry run would do, one line per operation.
    DryRun(Vec<String>),
    Skipped(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReflectReport {
    pub episode: i64,
    pub outcome: ReflectOutcome,
    /// Lines dropped because they were about another agent.
    pub dropped: Vec<String>,
    pub proposals: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WakeDoneReport {
    pub closed: Vec<i64>,
    pub fallback_posted: bool,
    /// True when this run was already recorded: nothing was done.
    pub duplicate: bool,
    pub episode: Option<Episode>,
    pub reflect: Option<ReflectReport>,
    /// What went wrong after the wakeups were closed; never fatal to wake-done.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProposalOutcome {
    Filed(Box<Task>),
    DryRun {
        path: String,
        diff: String,
        rationale: String,
        changed_lines: usize,
    },
    /// The rules said no (a cap, an open or closed card, nothing it may change, an unusable
    /// rationale); a dry run is refused exactly as the real run would be.
    Refused(String),
    /// No usable answer to judge: the model step is off, or the model failed or answered out of shape.
    Skipped(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub days: u32,
    pub episodes: u32,
    pub completed: u32,
    pub corrected: u32,
    pub corrections_per_completed: Option<f64>,
    pub cost_usd: f64,
    pub cost_per_completed: Option<f64>,
    pub active: u32,
    pub closed: u32,
    pub active_by_kind: Vec<(String, u32)>,
    pub proposals_filed: u32,
    pub proposals_open: u32,
    pub proposals_applied: u32,
    pub proposals_closed: u32,
}

impl Stats {
    /// The lines `engram org memory stats` prints.
    pub fn lines(&self, agent: &str) -> Vec<String> {
        let ratio = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a (no completed cards)".into());
        let money = |v: Option<f64>| v.map(|v| format!("${v:.2}")).unwrap_or_else(|| "n/a (no completed cards)".into());
        vec![
            format!(
                "{agent}, the last {} days: {} episodes, {} completed cards",
                self.days, self.episodes, self.completed
            ),
            format!(
                "corrections per completed card: {} ({} corrected)",
                ratio(self.corrections_per_completed),
                self.corrected
            ),
            format!("cost per completed card: {} (${:.2} in all)", money(self.cost_per_completed), self.cost_usd),
            format!(
                "memory: {} active ({}), {} closed",
                self.active,
                self.active_by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", "),
                self.closed
            ),
            format!(
                "proposals filed: {} ({} open, {} applied, {} closed)",
                self.proposals_filed, self.proposals_open, self.proposals_applied, self.proposals_closed
            ),
        ]
    }
}

/// An improve card as a person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImproveCard {
    pub task: Task,
    pub may_settle: bool,
    /// The target file no longer holds the text the diff was made against.
    pub file_changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentPage {
    pub agent: RosterAgent,
    pub owner_name: String,
    pub lead_name: Option<String>,
    pub role_name: Option<String>,
    pub config: Option<EffectiveConfig>,
    pub config_error: Option<String>,
    pub model: String,
    pub budget: u32,
    pub core: RenderedCore,
    pub active: Vec<MemoryRow>,
    pub closed: Vec<MemoryRow>,
    pub episodes: Vec<Episode>,
    pub proposals: Vec<ImproveCard>,
    pub stats: Stats,
    pub hand_written: Option<String>,
    pub may_correct: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterLine {
    pub name: String,
    pub description: String,
    pub owner: String,
    pub active: u32,
}

#[derive(Clone)]
pub struct Org {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    vault: Option<Arc<dyn Vault>>,
    models: Arc<dyn Models>,
    max_per_day: u32,
}

fn one_line(text: &str, what: &str) -> Result<String, PersonaError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(PersonaError::Invalid(format!("Write the {what}; it cannot be empty")));
    }
    if t.contains('\n') {
        return Err(PersonaError::Invalid(format!("The {what} must be one line")));
    }
    if t.chars().count() > MAX_TEXT_CHARS {
        return Err(PersonaError::Invalid(format!("The {what} can be at most {MAX_TEXT_CHARS} characters")));
    }
    Ok(t.to_string())
}

fn describe_op(op: &AudnOp) -> String {
    match op {
        AudnOp::Add { kind, text } => format!("add [{}] {text}", kind.as_str()),
        AudnOp::Repeat { id } => format!("seen again #{id}"),
        AudnOp::Reword { id, text } => format!("reword #{id}: {text}"),
        AudnOp::Delete { id, reason } => format!("delete #{id}: {reason}"),
    }
}

fn unfence(reply: &str) -> &str {
    let t = reply.trim();
    t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|r| r.strip_suffix("```")).unwrap_or(t).trim()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProposalReply {
    path: String,
    diff: String,
    rationale: String,
}

impl Org {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        vault: Option<Arc<dyn Vault>>,
        models: Arc<dyn Models>,
        max_per_day: u32,
    ) -> Self {
        Self { store, clock, vault, models, max_per_day }
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn vault(&self) -> Result<&dyn Vault, PersonaError> {
        self.vault.as_deref().ok_or(PersonaError::Vault(VaultError::NotConfigured))
    }

    pub fn model_status(&self) -> String {
        self.models.describe()
    }

    pub async fn roster(&self) -> Result<Roster, PersonaError> {
        load_roster(self.vault()?).await.map_err(PersonaError::Vault)
    }

    async fn agent(&self, name: &str) -> Result<(Roster, RosterAgent), PersonaError> {
        let roster = self.roster().await?;
        let agent = roster.get(name).cloned().ok_or_else(|| PersonaError::NotOnRoster(name.to_string()))?;
        Ok((roster, agent))
    }

    fn may_read(caller: &Caller, agent: &str) -> Result<(), PersonaError> {
        match caller {
            Caller::Bot(b) if b != agent => {
                Err(PersonaError::NotAllowed(format!("A bot reads only its own memory, and this is {b}")))
            }
            _ => Ok(()),
        }
    }

    /// The dispatcher's actions: the operator, or the bot's owner.
    fn may_dispatch(caller: &Caller, agent: &RosterAgent) -> Result<(), PersonaError> {
        match caller {
            Caller::Operator => Ok(()),
            Caller::Person(p) if agent.is_owner(&p.email) => Ok(()),
            Caller::Person(_) => {
                Err(PersonaError::NotAllowed(format!("Only {}'s owner can report its runs", agent.name)))
            }
            Caller::Bot(_) => Err(PersonaError::NotAllowed(
                "A bot's own token cannot write its memory or episodes; its owner's side does".to_string(),
            )),
        }
    }

    /// Corrections and proposals: the owner or the bot's lead, as themselves.
    fn may_correct<'a>(caller: &'a Caller, agent: &RosterAgent) -> Result<&'a Person, PersonaError> {
        match caller {
            Caller::Person(p) if agent.is_owner_or_lead(&p.email) => Ok(p),
            Caller::Bot(_) => Err(PersonaError::NotAllowed(
                "A bot's own token cannot change memory; its owner or lead does".to_string(),
            )),
            _ => Err(PersonaError::NotAllowed(format!(
                "Only {}'s owner or lead can change its memory or its improve cards",
                agent.name
            ))),
        }
    }

    fn valid_config(agent: &RosterAgent) -> Result<&MemoryConfig, String> {
        agent.memory.as_ref().map(|c| &c.config).map_err(|e| {
            format!("{}'s memory block is refused ({e}); the memory steps wait until it is fixed", agent.name)
        })
    }

    pub async fn roster_lines(&self) -> Result<Vec<RosterLine>, PersonaError> {
        let roster = self.roster().await?;
        let mut out = Vec::new();
        for a in roster.agents.values() {
            let active = self.store.memory_rows(&a.name, false).await.map_err(internal)?.len() as u32;
            out.push(RosterLine {
                name: a.name.clone(),
                description: a.description.clone(),
                owner: a.owner.clone(),
                active,
            });
        }
        Ok(out)
    }

    pub async fn wake(
        &self,
        caller: &Caller,
        agent: &str,
        task: Option<i64>,
        reason: &str,
    ) -> Result<Wakeup, PersonaError> {
        let (_, a) = self.agent(agent).await?;
        Self::may_dispatch(caller, &a)?;
        let reason = one_line(reason, "reason")?;
        if let Some(t) = task {
            self.store
                .task(t)
                .await
                .map_err(internal)?
                .ok_or_else(|| PersonaError::NotFound(format!("There is no task #{t}")))?;
        }
        self.store.open_wakeup(agent, task, &reason, self.now()).await.map_err(internal)
    }

    pub async fn create_task(
        &self,
        caller: &Caller,
        agent: &str,
        title: &str,
        body: &str,
    ) -> Result<Task, PersonaError> {
        let (_, a) = self.agent(agent).await?;
        Self::may_dispatch(caller, &a)?;
        let title = one_line(title, "title")?;
        let owner = self.owner_id(&a).await?;
        let t = NewTask {
            kind: TaskKind::Work,
            title,
            body: body.trim().to_string(),
            author: caller.label(),
            assignee: Some(agent.to_string()),
            owner,
            improve: None,
            at: self.now(),
        };
        self.store.create_task(&t).await.map_err(internal)
    }

    /// A run posts its status on its task: the operator, the owner, or the bot it is assigned to.
    pub async fn post_status(&self, caller: &Caller, task: i64, status: &str, note: &str) -> Result<(), PersonaError> {
        let t = self
            .store
            .task(task)
            .await
            .map_err(internal)?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no task #{task}")))?;
        if !RUN_STATUSES.contains(&status) {
            return Err(PersonaError::Invalid(format!(
                "A run's status is one of {}; not {status:?}",
                RUN_STATUSES.join(", ")
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
        self.store.post_task_status(task, status, note.trim(), &caller.label(), self.now()).await.map_err(internal)
    }

    async fn owner_id(&self, a: &RosterAgent) -> Result<Option<crate::org::PersonId>, PersonaError> {
        Ok(self.store.credentials(&a.owner).await.map_err(internal)?.map(|(p, _)| p.id))
    }

    /// Closes the run's wakeups and posts a fallback status if the run left none; then, never
    /// fatally, records the episode and reflects.
    pub async fn wake_done(
        &self,
        caller: &Caller,
        ids: &[i64],
        report: &RunReport,
    ) -> Result<WakeDoneReport, PersonaError> {
        if ids.is_empty() {
            return Err(PersonaError::Invalid("Name at least one wakeup".to_string()));
        }
        let run = one_line(&report.run, "run id")?;
        self.check_transcript(report).await?;
        let wakeups = self.store.wakeups(ids).await.map_err(internal)?;
        if let Some(missing) = ids.iter().find(|id| !wakeups.iter().any(|w| w.id == **id)) {
            return Err(PersonaError::NotFound(format!("There is no wakeup {missing}")));
        }
        let agent = wakeups[0].agent.clone();
        if wakeups.iter().any(|w| w.agent != agent) {
            return Err(PersonaError::Invalid("One run's wakeups belong to one agent".to_string()));
        }
        if let Caller::Operator = caller {
        } else {
            let (_, a) = self.agent(&agent).await?;
            Self::may_dispatch(caller, &a)?;
        }
        if let Some(existing) = self.store.episode_by_run(&agent, &run).await.map_err(internal)? {
            return Ok(WakeDoneReport {
                closed: Vec::new(),
                fallback_posted: false,
                duplicate: true,
                episode: Some(existing),
                reflect: None,
                notes: Vec::new(),
            });
        }
        let note = format!("fallback: run {run} exited {} without posting a status", report.exit);
        let finished =
            self.store.finish_wakeups(ids, &run, (FALLBACK_STATUS, &note), self.now()).await.map_err(internal)?;
        let mut out = WakeDoneReport {
            closed: finished.wakeups.iter().map(|w| w.id).collect(),
            fallback_posted: finished.fallback_posted,
            duplicate: false,
            episode: None,
            reflect: None,
            notes: Vec::new(),
        };
        let first = &wakeups[0];
        let outcome = Outcome::of_run(finished.posted.as_deref(), report.exit);
        match self.record_episode(&agent, &first.reason, first.task, outcome, report).await {
            Ok((episode, true)) => {
                match self.reflect_episode(&agent, &episode, "wake_done", false).await {
                    Ok(r) => out.reflect = Some(r),
                    Err(e) => {
                        tracing::warn!(agent, run, error = %e, "reflect after wake-done was skipped");
                        out.notes.push(format!("reflect was skipped: {e}"));
                    }
                }
                out.episode = Some(episode);
            }
            Ok((episode, false)) => {
                out.duplicate = true;
                out.episode = Some(episode);
            }
            Err(e) => {
                tracing::warn!(agent, run, error = %e, "the episode was not recorded");
                out.notes.push(format!("the episode was not recorded: {e}"));
            }
        }
        Ok(out)
    }

    async fn record_episode(
        &self,
        agent: &str,
        trigger: &str,
        task: Option<i64>,
        outcome: Outcome,
        report: &RunReport,
    ) -> Result<(Episode, bool), PersonaError> {
        let title = match task {
            Some(t) => self.store.task(t).await.map_err(internal)?.map(|t| t.title),
            None => None,
        };
        let summary = summarise_run(outcome, task.zip(title.as_deref()), report.turns, &report.result);
        let new = NewEpisode {
            agent: agent.to_string(),
            run: report.run.trim().to_string(),
            trigger: trigger.to_string(),
            task,
            outcome,
            turns: report.turns,
            cost_usd: report.cost_usd,
            duration_s: report.duration_s,
            summary,
            log_path: report.log_path.clone(),
            transcript_path: report.transcript_path.clone(),
            at: self.now(),
        };
        match self.store.insert_episode(&new).await {
            Ok(e) => Ok((e, true)),
            Err(StoreError::Duplicate(_)) => {
                let e = self.store.episode_by_run(agent, &new.run).await.map_err(internal)?;
                e.map(|e| (e, false)).ok_or_else(|| PersonaError::Internal("a duplicate episode vanished".into()))
            }
            Err(e) => Err(internal(e)),
        }
    }

    /// `engram org reflect`: the reflect step for a run, recording its episode first if no
    /// wake-done did.
    pub async fn reflect(
        &self,
        caller: &Caller,
        agent: &str,
        reason: &str,
        report: &RunReport,
        dry_run: bool,
    ) -> Result<ReflectReport, PersonaError> {
        let (_, a) = self.agent(agent).await?;
        Self::may_dispatch(caller, &a)?;
        let run = one_line(&report.run, "run id")?;
        let reason = one_line(reason, "reason")?;
        self.check_transcript(report).await?;
        let (episode, trigger) = match self.store.episode_by_run(agent, &run).await.map_err(internal)? {
            // A retry of an existing episode is asked for by name, so no trigger is checked.
            Some(e) => (e, None),
            None => {
                let outcome = if report.exit == 0 { Outcome::Done } else { Outcome::Error };
                let (e, _) = self.record_episode(agent, &reason, None, outcome, report).await?;
                (e, Some(if reason == "chat" { "chat_end" } else { "wake_done" }))
            }
        };
        self.reflect_episode(agent, &episode, trigger.unwrap_or(""), dry_run).await
    }

    async fn reflect_episode(
        &self,
        agent: &str,
        episode: &Episode,
        trigger: &str,
        dry_run: bool,
    ) -> Result<ReflectReport, PersonaError> {
        let (roster, a) = self.agent(agent).await?;
        let skipped = |why: String| {
            tracing::info!(agent, episode = episode.id, why, "reflect skipped");
            Ok(ReflectReport {
                episode: episode.id,
                outcome: ReflectOutcome::Skipped(why),
                dropped: vec![],
                proposals: vec![],
            })
        };
        let config = match Self::valid_config(&a) {
            Ok(c) => c.clone(),
            Err(why) => return skipped(why),
        };
        if !config.reflect.enabled {
            return skipped("reflect is turned off in this agent's memory block".into());
        }
        if !trigger.is_empty() && !config.reflect.trigger.iter().any(|t| t == trigger) {
            return skipped(format!("this agent does not reflect on {trigger}"));
        }
        let turns = episode.turns.unwrap_or(0);
        if turns < config.reflect.min_turns {
            return skipped(format!("the run had {turns} turns; reflect needs at least {}", config.reflect.min_turns));
        }
        let model = match self.models.resolve(&config.reflect.model) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => return skipped(why),
        };
        let vault = self.vault()?;
        let active = self.store.memory_rows(agent, false).await.map_err(internal)?;
        let excerpt = match &episode.transcript_path {
            Some(p) => {
                // Checked again at reading: the episode may predate the rule, or the disk changed.
                if let Err(e) = self.gate(p, |why| PersonaError::TranscriptRefused { path: p.clone(), why }).await {
                    tracing::warn!(agent, path = p, error = %e, "the transcript was refused");
                    return skipped(e.to_string());
                }
                match vault.read_tail(p, EXCERPT_BYTES).await {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!(agent, path = p, error = %e, "the transcript was not read");
                        None
                    }
                }
            }
            None => None,
        };
        if !self.claim_call(agent, "reflect").await? {
            return skipped(format!("today's cap of {} model calls is spent", self.max_per_day));
        }
        let prompt = reflect_prompt(agent, episode, excerpt.as_deref(), &active, self.now());
        let reply = match model.chat(REFLECT_SYSTEM, &prompt).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent, episode = episode.id, model = model.name(), error = %e, "the reflect call failed");
                return skipped(format!(
                    "the model call failed: {e}; retry with engram org reflect {agent} --run {}",
                    episode.run
                ));
            }
        };
        let ids: HashSet<i64> = active.iter().map(|r| r.id).collect();
        let parsed = match parse_reply(&reply, agent, &roster.names(), &ids) {
            Ok(p) => p,
            Err(e) => {
                let shown = match &e {
                    AudnError::Malformed(_) | AudnError::Oversized(_) => e.to_string(),
                    _ => e.to_string(),
                };
                tracing::warn!(agent, episode = episode.id, error = %shown, "the reflect reply was refused");
                return skipped(format!("the model's reply was refused: {shown}"));
            }
        };
        for d in &parsed.dropped {
            tracing::warn!(agent, line = d, "a reflect line about another agent was dropped");
        }
        if dry_run {
            return Ok(ReflectReport {
                episode: episode.id,
                outcome: ReflectOutcome::DryRun(parsed.ops.iter().map(describe_op).collect()),
                dropped: parsed.dropped,
                proposals: vec![],
            });
        }
        let applied = match self.store.apply_ops(agent, episode.id, &parsed.ops, self.now()).await {
            Ok(a) => a,
            Err(StoreError::Changed { .. }) => {
                return skipped("a line the reply names was closed meanwhile; nothing was applied".into())
            }
            Err(e) => return Err(internal(e)),
        };
        if !applied.is_empty() {
            self.render(&a).await;
        }
        let proposals = self.propose_due(&a, &config).await;
        Ok(ReflectReport {
            episode: episode.id,
            outcome: ReflectOutcome::Applied(applied),
            dropped: parsed.dropped,
            proposals,
        })
    }

    async fn claim_call(&self, agent: &str, purpose: &str) -> Result<bool, PersonaError> {
        let now = self.now();
        let day_start = now.date_naive().and_time(NaiveTime::MIN).and_utc();
        self.store.claim_model_call(agent, purpose, day_start, self.max_per_day, now).await.map_err(internal)
    }

    /// Re-renders the agent's core.md from its active rows. A failed write is logged: the rows
    /// are the record, and the next write renders again.
    async fn render(&self, a: &RosterAgent) -> Option<RenderedCore> {
        let budget = a.memory.as_ref().map(|c| c.config.core_budget_tokens).ok()?;
        let rows = match self.store.memory_rows(&a.name, false).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent = a.name, error = %e, "core.md was not rendered");
                return None;
            }
        };
        let lines: Vec<_> = rows.iter().map(MemoryRow::line).collect();
        let core = render_core(&a.name, &lines, budget);
        if let Ok(vault) = self.vault() {
            if let Err(e) = vault.write(&core_path(&a.name), &core.text).await {
                tracing::warn!(agent = a.name, error = %e, "core.md was not written");
            }
        }
        Some(core)
    }

    /// Files a proposal for each friction or anti-pattern that has recurred enough, within the
    /// weekly cap. Returns what happened, for the report; failures are never fatal.
    async fn propose_due(&self, a: &RosterAgent, config: &MemoryConfig) -> Vec<String> {
        let si = &config.self_improvement;
        if !si.enabled {
            return vec![];
        }
        let rows = match self.store.memory_rows(&a.name, false).await {
            Ok(r) => r,
            Err(e) => return vec![format!("proposals were not checked: {e}")],
        };
        let mut out = Vec::new();
        for row in rows.iter().filter(|r| {
            matches!(r.kind, MemoryKind::Friction | MemoryKind::AntiPattern) && r.times_seen >= si.repeat_threshold
        }) {
            match self.propose_for(a, config, row, false).await {
                Ok(ProposalOutcome::Filed(t)) => out.push(format!("filed improve card #{} for line #{}", t.id, row.id)),
                Ok(ProposalOutcome::Refused(why) | ProposalOutcome::Skipped(why)) => {
                    tracing::info!(agent = a.name, row = row.id, why, "no proposal");
                }
                Ok(ProposalOutcome::DryRun { .. }) => {}
                Err(e) => {
                    tracing::warn!(agent = a.name, row = row.id, error = %e, "the proposal was not filed");
                    out.push(format!("line #{}: no proposal ({e})", row.id));
                }
            }
        }
        out
    }

    /// `engram org propose-improvement`.
    pub async fn propose_improvement(
        &self,
        caller: &Caller,
        agent: &str,
        memory_id: i64,
        dry_run: bool,
    ) -> Result<ProposalOutcome, PersonaError> {
        let (_, a) = self.agent(agent).await?;
        Self::may_dispatch(caller, &a)?;
        let config = Self::valid_config(&a).map_err(PersonaError::Invalid)?.clone();
        if !config.self_improvement.enabled {
            return Ok(ProposalOutcome::Refused("self-improvement is turned off in this agent's memory block".into()));
        }
        let row = self
            .store
            .memory_row(memory_id)
            .await
            .map_err(internal)?
            .filter(|r| r.agent == agent)
            .ok_or_else(|| PersonaError::NotFound(format!("{agent} has no memory line #{memory_id}")))?;
        if !row.active {
            return Err(PersonaError::Invalid(format!("Line #{memory_id} is closed; propose from an active line")));
        }
        self.propose_for(&a, &config, &row, dry_run).await
    }

    async fn propose_for(
        &self,
        a: &RosterAgent,
        config: &MemoryConfig,
        row: &MemoryRow,
        dry_run: bool,
    ) -> Result<ProposalOutcome, PersonaError> {
        let now = self.now();
        // A dry run meets the same rules, so what it shows is what the real run would file.
        if let Some(t) = row.proposal_task_id {
            if let Some(task) = self.store.task(t).await.map_err(internal)? {
                if task.status == STATUS_OPEN || task.status == STATUS_APPLIED {
                    return Ok(ProposalOutcome::Refused(format!("line #{} already has improve card #{t}", row.id)));
                }
                if row.last_seen <= task.updated_at {
                    return Ok(ProposalOutcome::Refused(format!(
                        "improve card #{t} was closed; line #{} proposes again only after fresh evidence",
                        row.id
                    )));
                }
            }
        }
        let week = self.store.improve_tasks(Some(&a.name)).await.map_err(internal)?;
        let filed = week.iter().filter(|t| t.created_at > now - Duration::days(7)).count() as u32;
        if filed >= config.self_improvement.max_proposals_per_week {
            return Ok(ProposalOutcome::Refused(format!(
                "{} proposal(s) filed this week; the cap is {}",
                filed, config.self_improvement.max_proposals_per_week
            )));
        }
        let model = match self.models.resolve(&config.reflect.model) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => return Ok(ProposalOutcome::Skipped(why)),
        };
        let vault = self.vault()?;
        let targets = &config.self_improvement.targets;
        let mut files: Vec<(String, String)> = Vec::new();
        if targets.iter().any(|t| t == "own_prompt") {
            if let Some(text) = vault.read(ORG_YAML).await.map_err(PersonaError::Vault)? {
                files.push((ORG_YAML.to_string(), text));
            }
        }
        if targets.iter().any(|t| t == "own_skills") {
            for k in &a.knowledge {
                let found = match vault.markdown_under(k).await {
                    Ok(found) => found,
                    Err(VaultError::Outside { .. }) => continue,
                    Err(e) => return Err(PersonaError::Vault(e)),
                };
                let mut shown = 0;
                for path in found {
                    if shown == 5 {
                        break;
                    }
                    // The model sees only files the validator would let it change.
                    match self.may_target(a, &path).await {
                        Ok(()) => {}
                        Err(PersonaError::Refused(_)) => continue,
                        Err(e) => return Err(e),
                    }
                    if let Some(text) = vault.read(&path).await.map_err(PersonaError::Vault)? {
                        files.push((path, text));
                        shown += 1;
                    }
                }
            }
        }
        if files.is_empty() {
            return Ok(ProposalOutcome::Refused("the agent has no file a proposal may change".into()));
        }
        if !self.claim_call(&a.name, "propose").await? {
            return Ok(ProposalOutcome::Refused(format!("today's cap of {} model calls is spent", self.max_per_day)));
        }
        let reply = match model.chat(PROPOSE_SYSTEM, &propose_prompt(&a.name, row, &files, now)).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent = a.name, row = row.id, error = %e, "the proposal call failed");
                return Ok(ProposalOutcome::Skipped(format!("the model call failed: {e}")));
            }
        };
        if reply.len() > MAX_REPLY_BYTES {
            return Ok(ProposalOutcome::Skipped("the model's reply was over 16 KiB and was not read".into()));
        }
        let parsed: ProposalReply = match serde_json::from_str(unfence(&reply)) {
            Ok(p) => p,
            Err(e) => {
                return Ok(ProposalOutcome::Skipped(format!("the model's reply was not the JSON asked for: {e}")))
            }
        };
        let rationale = parsed.rationale.split_whitespace().collect::<Vec<_>>().join(" ");
        if rationale.is_empty() || rationale.chars().count() > 600 {
            return Ok(ProposalOutcome::Refused("the model's rationale was empty or over 600 characters".into()));
        }
        let change = self.check_change(a, &parsed.path, &parsed.diff).await?;
        let (current, valid) = change;
        if dry_run {
            return Ok(ProposalOutcome::DryRun {
                path: parsed.path,
                diff: parsed.diff,
                rationale,
                changed_lines: valid.changed_lines,
            });
        }
        let owner = self.owner_id(a).await?;
        let short: String = row.text.chars().take(70).collect();
        let task = NewTask {
            kind: TaskKind::Improve,
            title: format!("{}: {short}", a.name),
            body: rationale.clone(),
            author: format!("agent:{}", a.name),
            assignee: None,
            owner,
            improve: Some(Improvement {
                agent: a.name.clone(),
                target_path: parsed.path,
                diff: parsed.diff,
                rationale,
                evidence: row.evidence.clone(),
                base_text: current,
                memory_id: Some(row.id),
            }),
            at: now,
        };
        let filed = self.store.file_proposal(&task, row.id).await.map_err(internal)?;
        Ok(ProposalOutcome::Filed(Box::new(filed)))
    }

    /// The validator's path rule on the vault as it is on disk: [`check_vault_path`], then whether
    /// the path goes through a symbolic link. Proposal targets and transcripts both pass here;
    /// `refuse` words the refusal for what the path was wanted for.
    async fn gate(&self, path: &str, refuse: impl Fn(OffLimits) -> PersonaError) -> Result<(), PersonaError> {
        check_vault_path(path).map_err(&refuse)?;
        match self.vault()?.is_symlink(path).await {
            Ok(false) => Ok(()),
            Ok(true) => Err(refuse(OffLimits::Symlink)),
            Err(VaultError::Outside { .. }) => Err(refuse(OffLimits::EscapesVault)),
            Err(e) => Err(PersonaError::Vault(e)),
        }
    }

    /// A run's transcript is refused on the way in, before anything is changed. Without a vault
    /// nothing is ever read, so only the rule itself applies.
    async fn check_transcript(&self, report: &RunReport) -> Result<(), PersonaError> {
        let Some(path) = &report.transcript_path else { return Ok(()) };
        let refuse = |why| PersonaError::TranscriptRefused { path: path.clone(), why };
        if self.vault.is_none() {
            return check_vault_path(path).map_err(refuse);
        }
        self.gate(path, refuse).await
    }

    /// Whether a proposal may name `path` for this agent: its own files, by the validator's rule.
    async fn may_target(&self, a: &RosterAgent, path: &str) -> Result<(), PersonaError> {
        check_path(path, &a.knowledge).map_err(PersonaError::Refused)?;
        self.gate(path, |why| PersonaError::Refused(ProposalRefusal::off_limits(path, why))).await
    }

    /// Reads the target exactly as it is now and runs the validator; a refusal is an error.
    async fn check_change(
        &self,
        a: &RosterAgent,
        path: &str,
        diff: &str,
    ) -> Result<(String, super::proposal::ValidChange), PersonaError> {
        self.may_target(a, path).await?;
        let vault = self.vault()?;
        let current = match vault.read(path).await {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(PersonaError::Refused(ProposalRefusal::DoesNotApply(format!("{path} does not exist"))))
            }
            Err(VaultError::Outside { .. }) => {
                return Err(PersonaError::Refused(ProposalRefusal::EscapesVault(path.into())))
            }
            Err(e) => return Err(PersonaError::Vault(e)),
        };
        // may_target has refused a link already.
        let target = Target { path, is_symlink: false, current_text: &current };
        let valid = validate_proposal(&a.name, &a.knowledge, &target, diff).map_err(PersonaError::Refused)?;
        Ok((current, valid))
    }

    async fn improve_task(&self, id: i64) -> Result<(Task, Improvement), PersonaError> {
        let t = self
            .store
            .task(id)
            .await
            .map_err(internal)?
            .filter(|t| t.kind == TaskKind::Improve)
            .ok_or_else(|| PersonaError::NotFound(format!("There is no improve card #{id}")))?;
        let imp =
            t.improve.clone().ok_or_else(|| PersonaError::Internal(format!("improve task {id} has no change")))?;
        Ok((t, imp))
    }

    /// Apply: writes the change into the vault file, only if the file is exactly as it was when the
    /// proposal was made.
    pub async fn apply_improvement(&self, caller: &Caller, id: i64) -> Result<Task, PersonaError> {
        let (task, imp) = self.improve_task(id).await?;
        let (_, a) = self.agent(&imp.agent).await?;
        let person = Self::may_correct(caller, &a)?;
        if task.status != STATUS_OPEN {
            return Err(PersonaError::Changed(format!("Improve card #{id} is already {}", task.status)));
        }
        let (current, valid) = match self.check_change(&a, &imp.target_path, &imp.diff).await {
            Ok(c) => c,
            Err(PersonaError::Refused(ProposalRefusal::DoesNotApply(_))) => {
                return Err(changed_since(&imp.target_path))
            }
            Err(e) => return Err(e),
        };
        if current != imp.base_text {
            return Err(changed_since(&imp.target_path));
        }
        let vault = self.vault()?;
        if !vault
            .replace_if_unchanged(&imp.target_path, &imp.base_text, &valid.new_text)
            .await
            .map_err(PersonaError::Vault)?
        {
            return Err(changed_since(&imp.target_path));
        }
        self.store.settle_task(id, STATUS_APPLIED, None, person.id, self.now()).await.map_err(|e| match e {
            StoreError::Changed { .. } => PersonaError::Changed(format!("Improve card #{id} was settled meanwhile")),
            e => internal(e),
        })?;
        self.improve_task(id).await.map(|(t, _)| t)
    }

    pub async fn close_improvement(&self, caller: &Caller, id: i64, reason: &str) -> Result<Task, PersonaError> {
        let (task, imp) = self.improve_task(id).await?;
        let (_, a) = self.agent(&imp.agent).await?;
        let person = Self::may_correct(caller, &a)?;
        let reason = one_line(reason, "reason for closing")?;
        if task.status != STATUS_OPEN {
            return Err(PersonaError::Changed(format!("Improve card #{id} is already {}", task.status)));
        }
        self.store.settle_task(id, STATUS_CLOSED, Some(&reason), person.id, self.now()).await.map_err(|e| match e {
            StoreError::Changed { .. } => PersonaError::Changed(format!("Improve card #{id} was settled meanwhile")),
            e => internal(e),
        })?;
        self.improve_task(id).await.map(|(t, _)| t)
    }

    /// `engram org task redo`: the reviewer sent the card back, so the builder's latest episode on
    /// it counts as corrected.
    pub async fn redo(&self, caller: &Caller, task: i64) -> Result<Episode, PersonaError> {
        let t = self
            .store
            .task(task)
            .await
            .map_err(internal)?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no task #{task}")))?;
        let builder =
            t.assignee.clone().ok_or_else(|| PersonaError::Invalid(format!("Task #{task} has no assignee")))?;
        let (_, a) = self.agent(&builder).await?;
        Self::may_dispatch(caller, &a)?;
        self.store
            .mark_corrected(task, &builder)
            .await
            .map_err(internal)?
            .ok_or_else(|| PersonaError::NotFound(format!("{builder} has no episode on task #{task}")))
    }

    pub async fn memory(&self, caller: &Caller, agent: &str, all: bool) -> Result<Vec<MemoryRow>, PersonaError> {
        self.agent(agent).await?;
        Self::may_read(caller, agent)?;
        let rows = match caller {
            Caller::Bot(_) => self.store.bot_memory_rows(agent, all).await,
            _ => self.store.memory_rows(agent, all).await,
        };
        let mut rows = rows.map_err(internal)?;
        rows.sort_by(|a, b| {
            b.active.cmp(&a.active).then(b.times_seen.cmp(&a.times_seen)).then(b.last_seen.cmp(&a.last_seen))
        });
        Ok(rows)
    }

    pub async fn episodes(&self, caller: &Caller, agent: &str) -> Result<Vec<Episode>, PersonaError> {
        self.agent(agent).await?;
        Self::may_read(caller, agent)?;
        match caller {
            Caller::Bot(_) => self.store.bot_episodes(agent).await,
            _ => self.store.episodes(agent, None).await,
        }
        .map_err(internal)
    }

    pub async fn stats(&self, caller: &Caller, agent: &str, days: u32) -> Result<Stats, PersonaError> {
        self.agent(agent).await?;
        Self::may_read(caller, agent)?;
        if days == 0 || days > 3650 {
            return Err(PersonaError::Invalid("--days is a number of days from 1 to 3650".to_string()));
        }
        let since = self.now() - Duration::days(days as i64);
        let episodes = self.store.episodes(agent, Some(since)).await.map_err(internal)?;
        let rows = self.store.memory_rows(agent, true).await.map_err(internal)?;
        let tasks = self.store.improve_tasks(Some(agent)).await.map_err(internal)?;
        Ok(compute_stats(days, &episodes, &rows, tasks.iter().filter(|t| t.created_at >= since)))
    }

    /// The row a person corrects, its bot, and who is correcting it: the owner or the bot's lead.
    async fn correction<'a>(&self, caller: &'a Caller, id: i64) -> Result<(RosterAgent, &'a Person), PersonaError> {
        let row = self
            .store
            .memory_row(id)
            .await
            .map_err(internal)?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no memory line #{id}")))?;
        let (_, a) = self.agent(&row.agent).await?;
        let person = Self::may_correct(caller, &a)?;
        Ok((a, person))
    }

    fn closed_meanwhile(id: i64) -> impl Fn(StoreError) -> PersonaError {
        move |e| match e {
            StoreError::Changed { .. } => {
                PersonaError::Changed(format!("Line #{id} was closed meanwhile; nothing was changed"))
            }
            e => internal(e),
        }
    }

    pub async fn edit_memory(&self, caller: &Caller, id: i64, text: &str) -> Result<MemoryRow, PersonaError> {
        let (a, person) = self.correction(caller, id).await?;
        let text = one_line(text, "corrected line")?;
        let by = format!("person:{}", person.email);
        let new = self.store.edit_memory(id, &text, &by, self.now()).await.map_err(Self::closed_meanwhile(id))?;
        self.render(&a).await;
        Ok(new)
    }

    pub async fn retire_memory(&self, caller: &Caller, id: i64, reason: &str) -> Result<(), PersonaError> {
        let (a, person) = self.correction(caller, id).await?;
        let reason = one_line(reason, "reason for retiring")?;
        let by = format!("person:{}", person.email);
        self.store.retire_memory(id, &reason, &by, self.now()).await.map_err(Self::closed_meanwhile(id))?;
        self.render(&a).await;
        Ok(())
    }

    async fn card(&self, caller: &Caller, task: Task) -> ImproveCard {
        let mut may_settle = false;
        let mut file_changed = false;
        if let Some(imp) = &task.improve {
            if let Ok((_, a)) = self.agent(&imp.agent).await {
                may_settle = Self::may_correct(caller, &a).is_ok() && task.status == STATUS_OPEN;
            }
            if task.status == STATUS_OPEN {
                if let Ok(vault) = self.vault() {
                    file_changed = vault.read(&imp.target_path).await.ok().flatten().as_deref() != Some(&imp.base_text);
                }
            }
        }
        ImproveCard { task, may_settle, file_changed }
    }

    /// The Suggested changes page: open improve cards the person may apply or close.
    pub async fn improve_cards(&self, caller: &Caller) -> Result<Vec<ImproveCard>, PersonaError> {
        let tasks = self.store.improve_tasks(None).await.map_err(internal)?;
        let mut out = Vec::new();
        for t in tasks.into_iter().filter(|t| t.status == STATUS_OPEN) {
            let c = self.card(caller, t).await;
            if c.may_settle {
                out.push(c);
            }
        }
        Ok(out)
    }

    pub async fn agent_page(&self, caller: &Caller, name: &str) -> Result<AgentPage, PersonaError> {
        let (_, a) = self.agent(name).await?;
        Self::may_read(caller, name)?;
        let dir = self.store.directory().await.map_err(internal)?;
        let by_email =
            |email: &str| dir.people.iter().find(|p| p.email.eq_ignore_ascii_case(email)).map(|p| p.name.clone());
        let (config, config_error) = match &a.memory {
            Ok(c) => (Some(c.clone()), None),
            Err(e) => {
                (None, Some(format!("The memory block is refused: {e}. The memory steps wait until it is fixed.")))
            }
        };
        let budget =
            config.as_ref().map(|c| c.config.core_budget_tokens).unwrap_or(MemoryConfig::default().core_budget_tokens);
        let rows = self.store.memory_rows(name, true).await.map_err(internal)?;
        let (mut active, mut closed): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.active);
        active
            .sort_by(|a, b| b.times_seen.cmp(&a.times_seen).then(b.last_seen.cmp(&a.last_seen)).then(a.id.cmp(&b.id)));
        closed.sort_by_key(|r| std::cmp::Reverse(r.closed_at));
        let lines: Vec<_> = active.iter().map(MemoryRow::line).collect();
        let core = render_core(name, &lines, budget);
        let episodes = self.store.episodes(name, None).await.map_err(internal)?;
        let mut proposals = Vec::new();
        for t in self.store.improve_tasks(Some(name)).await.map_err(internal)? {
            proposals.push(self.card(caller, t).await);
        }
        let stats = self.stats(caller, name, 30).await?;
        let hand_written = self.vault()?.read(&hand_written_memory_path(name)).await.map_err(PersonaError::Vault)?;
        let model = match &config {
            Some(c) => match self.models.resolve(&c.config.reflect.model) {
                ModelChoice::Use(m) => match m.status() {
                    Some(status) => format!("Reflect uses {}. {status}", m.name()),
                    None => format!("Reflect uses {}.", m.name()),
                },
                ModelChoice::Off(why) => format!("The model step is off: {why}. Episodes are still recorded."),
            },
            None => "The model step waits until the memory block is fixed.".to_string(),
        };
        let role_name =
            a.role.as_ref().and_then(|slug| dir.roles.iter().find(|r| r.slug.as_str() == slug).map(|r| r.name.clone()));
        Ok(AgentPage {
            owner_name: by_email(&a.owner).unwrap_or_else(|| a.owner.clone()),
            lead_name: a.lead.as_deref().map(|l| by_email(l).unwrap_or_else(|| l.to_string())),
            role_name,
            may_correct: Self::may_correct(caller, &a).is_ok(),
            agent: a,
            config,
            config_error,
            model,
            budget,
            core,
            active,
            closed,
            episodes,
            proposals,
            stats,
            hand_written,
        })
    }
}

fn changed_since(path: &str) -> PersonaError {
    PersonaError::Changed(format!(
        "{path} has changed since this proposal was made, so it was not applied and nothing was written. Close it; the bot proposes again against the new text."
    ))
}

fn compute_stats<'a>(
    days: u32,
    episodes: &[Episode],
    rows: &[MemoryRow],
    proposals: impl Iterator<Item = &'a Task>,
) -> Stats {
    let completed = episodes.iter().filter(|e| e.outcome == Outcome::Done).count() as u32;
    let corrected = episodes.iter().filter(|e| e.corrected).count() as u32;
    let cost: f64 = episodes.iter().filter_map(|e| e.cost_usd).sum();
    let per = |v: f64| if completed == 0 { None } else { Some(v / completed as f64) };
    let mut by_kind = Vec::new();
    for k in [MemoryKind::Lesson, MemoryKind::AntiPattern, MemoryKind::Preference, MemoryKind::Friction] {
        let n = rows.iter().filter(|r| r.active && r.kind == k).count() as u32;
        by_kind.push((k.as_str().to_string(), n));
    }
    let proposals: Vec<&Task> = proposals.collect();
    let count = |s: &str| proposals.iter().filter(|t| t.status == s).count() as u32;
    Stats {
        days,
        episodes: episodes.len() as u32,
        completed,
        corrected,
        corrections_per_completed: per(corrected as f64),
        cost_usd: cost,
        cost_per_completed: per(cost),
        active: rows.iter().filter(|r| r.active).count() as u32,
        closed: rows.iter().filter(|r| !r.active).count() as u32,
        active_by_kind: by_kind,
        proposals_filed: proposals.len() as u32,
        proposals_open: count(STATUS_OPEN),
        proposals_applied: count(STATUS_APPLIED),
        proposals_closed: count(STATUS_CLOSED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn episode(id: i64, outcome: Outcome, corrected: bool, cost: f64) -> Episode {
        Episode {
            id,
            agent: "scout".into(),
            run: format!("r{id}"),
            trigger: "task".into(),
            task: Some(1),
            outcome,
            corrected,
            turns: Some(3),
            cost_usd: Some(cost),
            duration_s: None,
            summary: String::new(),
            log_path: None,
            transcript_path: None,
            created_at: Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap(),
        }
    }

    #[test]
    fn stats_are_per_completed_card() {
        let eps = vec![
            episode(1, Outcome::Done, true, 0.5),
            episode(2, Outcome::Done, false, 0.25),
            episode(3, Outcome::Blocked, false, 0.25),
            episode(4, Outcome::Done, false, 0.0),
        ];
        let s = compute_stats(30, &eps, &[], std::iter::empty());
        assert_eq!((s.completed, s.corrected, s.episodes), (3, 1, 4));
        assert!((s.corrections_per_completed.unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.cost_per_completed.unwrap() - 1.0 / 3.0).abs() < 1e-9);
        let lines = s.lines("scout");
        assert_eq!(lines[1], "corrections per completed card: 0.33 (1 corrected)");
        assert_eq!(lines[2], "cost per completed card: $0.33 ($1.00 in all)");
    }

    #[test]
    fn no_completed_cards_is_not_a_division_by_zero() {
        let s = compute_stats(7, &[episode(1, Outcome::Error, false, 1.0)], &[], std::iter::empty());
        assert_eq!(s.corrections_per_completed, None);
        assert!(s.lines("scout")[1].contains("n/a"));
    }
}
