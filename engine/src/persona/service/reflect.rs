//! Reflect: after an episode, the model reads it and the bot's memory lines are added, seen
//! again, reworded or closed. The episode a wake's report makes is recorded here too, since
//! wake-done and a reflect asked for by name both record it before reflecting.

use super::env::{may_dispatch, one_line, valid_config, BotEnv};
use super::{Caller, Improve, PersonaError, WakeReport};
use crate::kernel::StoreError;
use crate::persona::audn::{parse_reply, AudnError, AudnOp};
use crate::persona::backlog::{summarise_wake, AppliedOps, Episode, NewEpisode, Outcome};
use crate::persona::model::{reflect_prompt, ModelChoice, EXCERPT_BYTES, REFLECT_SYSTEM};
use crate::persona::store::ReflectPorts;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

/// The id of an episode a dry run made up and did not record.
const UNSAVED: i64 = 0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ReflectOutcome {
    Applied(AppliedOps),
    /// What a dry run would do, one line per operation.
    DryRun(Vec<String>),
    Skipped(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReflectReport {
    /// None for a dry run on a wake no episode records: a dry run records none.
    pub episode: Option<i64>,
    pub outcome: ReflectOutcome,
    /// Lines dropped because they were about another agent.
    pub dropped: Vec<String>,
    pub proposals: Vec<String>,
    /// The reflection cycle, when the episode this reflect recorded was the tenth session since
    /// the last one.
    #[serde(default)]
    pub self_reflect: Option<super::SelfReflectReport>,
}

/// The memory steps after a wake: its episode recorded, reflected on, and every tenth session
/// the bot's own reflection cycle (`self_reflect`).
#[derive(Clone)]
pub struct Reflect {
    pub(super) store: Arc<dyn ReflectPorts>,
    pub(super) env: BotEnv,
    /// Lines that recur enough are proposed as improve cards after a reflect.
    improve: Improve,
}

impl Reflect {
    pub fn new(store: Arc<dyn ReflectPorts>, env: BotEnv, improve: Improve) -> Self {
        Self { store, env, improve }
    }

    /// `engram org reflect`: the reflect step for a wake, recording its episode first if no
    /// wake-done did.
    pub async fn reflect(
        &self,
        caller: &Caller,
        agent: &str,
        reason: &str,
        report: &WakeReport,
        dry_run: bool,
    ) -> Result<ReflectReport, PersonaError> {
        let (_, a) = self.env.agent(agent).await?;
        may_dispatch(caller, &a)?;
        let wake = one_line(&report.wake, "run id")?;
        let reason = one_line(reason, "reason")?;
        self.env.check_transcript(report).await?;
        let (episode, trigger) = match self.store.episode_by_wake(agent, &wake).await? {
            // A retry of an existing episode is asked for by name, so no trigger is checked.
            Some(e) => (e, None),
            None => {
                let outcome = if report.exit == 0 { Outcome::Done } else { Outcome::Error };
                // A dry run reflects on the episode as it would be recorded, and records nothing.
                let e = if dry_run {
                    self.new_episode(agent, &reason, None, outcome, report).await?.unsaved(UNSAVED)
                } else {
                    self.record_episode(agent, &reason, None, outcome, report).await?.0
                };
                (e, Some(if reason == "chat" { "chat_end" } else { "wake_done" }))
            }
        };
        let recorded = trigger.is_some() && !dry_run;
        let mut report = self.reflect_episode(agent, &episode, trigger.unwrap_or(""), dry_run).await?;
        if recorded {
            report.self_reflect = self.self_reflect_if_due(agent).await;
        }
        Ok(report)
    }

    pub(super) async fn reflect_episode(
        &self,
        agent: &str,
        episode: &Episode,
        trigger: &str,
        dry_run: bool,
    ) -> Result<ReflectReport, PersonaError> {
        let (roster, a) = self.env.agent(agent).await?;
        let skipped = |why: String| {
            tracing::info!(agent, episode = episode.id, why, "reflect skipped");
            Ok(ReflectReport {
                episode: (episode.id != UNSAVED).then_some(episode.id),
                outcome: ReflectOutcome::Skipped(why),
                dropped: vec![],
                proposals: vec![],
                self_reflect: None,
            })
        };
        let config = match valid_config(&a) {
            Ok(c) => c.clone(),
            Err(why) => return skipped(why.to_string()),
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
        let model = match self.env.models.resolve(&config.reflect.model) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => return skipped(why),
        };
        let vault = self.env.vault()?;
        let active = self.store.memory_rows(agent, false).await?;
        let excerpt = match &episode.transcript_path {
            Some(p) => {
                // Checked again at reading: the episode may predate the rule, or the disk changed.
                if let Err(e) = self.env.gate(p, |why| PersonaError::TranscriptRefused { path: p.clone(), why }).await {
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
        if !self.env.claim_call(self.store.as_ref(), agent, "reflect").await? {
            return skipped(format!("today's cap of {} model calls is spent", self.env.max_per_day));
        }
        let prompt = reflect_prompt(agent, episode, excerpt.as_deref(), &active, self.env.now());
        let reply = match model.chat(REFLECT_SYSTEM, &prompt).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent, episode = episode.id, model = model.name(), error = %e, "the reflect call failed");
                return skipped(format!(
                    "the model call failed: {e}; retry with engram org reflect {agent} --run {}",
                    episode.wake
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
                episode: (episode.id != UNSAVED).then_some(episode.id),
                outcome: ReflectOutcome::DryRun(parsed.ops.iter().map(describe_op).collect()),
                dropped: parsed.dropped,
                proposals: vec![],
                self_reflect: None,
            });
        }
        let applied = match self.store.apply_ops(agent, episode.id, &parsed.ops, self.env.now()).await {
            Ok(a) => a,
            Err(StoreError::Changed { .. }) => {
                return skipped("a line the reply names was closed meanwhile; nothing was applied".into())
            }
            Err(e) => return Err(e.into()),
        };
        if !applied.is_empty() {
            self.env.render(self.store.as_ref(), &a).await;
        }
        let proposals = self.improve.propose_due(&a, &config).await;
        Ok(ReflectReport {
            episode: (episode.id != UNSAVED).then_some(episode.id),
            outcome: ReflectOutcome::Applied(applied),
            dropped: parsed.dropped,
            proposals,
            self_reflect: None,
        })
    }

    /// Records the wake's episode; true when this call recorded it, false when it already was.
    pub(super) async fn record_episode(
        &self,
        agent: &str,
        trigger: &str,
        task: Option<i64>,
        outcome: Outcome,
        report: &WakeReport,
    ) -> Result<(Episode, bool), PersonaError> {
        let new = self.new_episode(agent, trigger, task, outcome, report).await?;
        match self.store.insert_episode(&new).await {
            Ok(e) => Ok((e, true)),
            Err(StoreError::Duplicate(_)) => {
                let e = self.store.episode_by_wake(agent, &new.wake).await?;
                e.map(|e| (e, false)).ok_or_else(|| PersonaError::Internal("a duplicate episode vanished".into()))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The episode a wake's report makes, not yet recorded.
    pub(super) async fn new_episode(
        &self,
        agent: &str,
        trigger: &str,
        task: Option<i64>,
        outcome: Outcome,
        report: &WakeReport,
    ) -> Result<NewEpisode, PersonaError> {
        let title = match task {
            Some(t) => self.store.task(t).await?.map(|t| t.title),
            None => None,
        };
        let summary = summarise_wake(outcome, task.zip(title.as_deref()), report.turns, &report.result);
        Ok(NewEpisode {
            agent: agent.to_string(),
            wake: report.wake.trim().to_string(),
            trigger: trigger.to_string(),
            task,
            outcome,
            turns: report.turns,
            cost_usd: report.cost_usd,
            duration_s: report.duration_s,
            summary,
            log_path: report.log_path.clone(),
            transcript_path: report.transcript_path.clone(),
            at: self.env.now(),
        })
    }
}

fn describe_op(op: &AudnOp) -> String {
    match op {
        AudnOp::Add { kind, text } => format!("add [{}] {text}", kind.as_str()),
        AudnOp::Repeat { id } => format!("seen again #{id}"),
        AudnOp::Reword { id, text } => format!("reword #{id}: {text}"),
        AudnOp::Delete { id, reason } => format!("delete #{id}: {reason}"),
    }
}
