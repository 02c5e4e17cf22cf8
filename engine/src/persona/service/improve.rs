//! Improve: proposals a bot files against its own files, and the person who applies or closes them.

use super::env::{may_correct, may_dispatch, one_line, owner_id, valid_config, BotEnv};
use super::{Caller, PersonaError};
use crate::kernel::StoreError;
use crate::persona::audn::MAX_REPLY_BYTES;
use crate::persona::backlog::{
    Improvement, MemoryRow, NewTask, Task, TaskKind, STATUS_APPLIED, STATUS_CLOSED, STATUS_OPEN,
};
use crate::persona::config::MemoryConfig;
use crate::persona::model::{propose_prompt, ModelChoice, PROPOSE_SYSTEM};
use crate::persona::proposal::{check_path, validate_proposal, ProposalRefusal, Target, ORG_YAML};
use crate::persona::render::MemoryKind;
use crate::persona::store::ImprovePorts;
use crate::persona::vault::{RosterAgent, VaultError};
use chrono::Duration;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// An improve card as a person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImproveCard {
    pub task: Task,
    pub may_settle: bool,
    /// The target file no longer holds the text the diff was made against.
    pub file_changed: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProposalReply {
    path: String,
    diff: String,
    rationale: String,
}

/// Improve cards: what a bot proposes to change in its own files, and the person who applies or
/// closes it.
#[derive(Clone)]
pub struct Improve {
    store: Arc<dyn ImprovePorts>,
    env: BotEnv,
}

impl Improve {
    pub fn new(store: Arc<dyn ImprovePorts>, env: BotEnv) -> Self {
        Self { store, env }
    }

    /// Files a proposal for each friction or anti-pattern that has recurred enough, within the
    /// weekly cap. Returns what happened, for the report; failures are never fatal.
    pub(super) async fn propose_due(&self, a: &RosterAgent, config: &MemoryConfig) -> Vec<String> {
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
        let (_, a) = self.env.agent(agent).await?;
        may_dispatch(caller, &a)?;
        let config = valid_config(&a)?.clone();
        if !config.self_improvement.enabled {
            return Ok(ProposalOutcome::Refused("self-improvement is turned off in this agent's memory block".into()));
        }
        let row = self
            .store
            .memory_row(memory_id)
            .await?
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
        let now = self.env.now();
        // A dry run meets the same rules, so what it shows is what the real run would file.
        if let Some(t) = row.proposal_task_id {
            if let Some(task) = self.store.task(t).await? {
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
        let week = self.store.improve_tasks(Some(&a.name)).await?;
        let filed = week.iter().filter(|t| t.created_at > now - Duration::days(7)).count() as u32;
        if filed >= config.self_improvement.max_proposals_per_week {
            return Ok(ProposalOutcome::Refused(format!(
                "{} proposal(s) filed this week; the cap is {}",
                filed, config.self_improvement.max_proposals_per_week
            )));
        }
        let model = match self.env.models.resolve(&config.reflect.model) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => return Ok(ProposalOutcome::Skipped(why)),
        };
        let vault = self.env.vault()?;
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
        if !self.env.claim_call(self.store.as_ref(), &a.name, "propose").await? {
            return Ok(ProposalOutcome::Refused(format!(
                "today's cap of {} model calls is spent",
                self.env.max_per_day
            )));
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
        if let Err(refused) = crate::secrets::refuse("The model's rationale", &rationale) {
            return Ok(ProposalOutcome::Refused(refused.to_string()));
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
        let owner = owner_id(self.store.as_ref(), a).await?;
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
        let filed = self.store.file_proposal(&task, row.id).await?;
        Ok(ProposalOutcome::Filed(Box::new(filed)))
    }

    /// Whether a proposal may name `path` for this agent: its own files, by the validator's rule.
    pub(super) async fn may_target(&self, a: &RosterAgent, path: &str) -> Result<(), PersonaError> {
        check_path(path, &a.knowledge).map_err(PersonaError::Refused)?;
        self.env.gate(path, |why| PersonaError::Refused(ProposalRefusal::off_limits(path, why))).await
    }

    /// Reads the target exactly as it is now and runs the validator; a refusal is an error.
    pub(super) async fn check_change(
        &self,
        a: &RosterAgent,
        path: &str,
        diff: &str,
    ) -> Result<(String, crate::persona::proposal::ValidChange), PersonaError> {
        self.may_target(a, path).await?;
        let vault = self.env.vault()?;
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
            .await?
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
        let (_, a) = self.env.agent(&imp.agent).await?;
        let person = may_correct(caller, &a)?;
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
        let vault = self.env.vault()?;
        if !vault
            .replace_if_unchanged(&imp.target_path, &imp.base_text, &valid.new_text)
            .await
            .map_err(PersonaError::Vault)?
        {
            return Err(changed_since(&imp.target_path));
        }
        self.store.settle_task(id, STATUS_APPLIED, None, person.id, self.env.now()).await.map_err(|e| match e {
            StoreError::Changed { .. } => PersonaError::Changed(format!("Improve card #{id} was settled meanwhile")),
            e => e.into(),
        })?;
        self.improve_task(id).await.map(|(t, _)| t)
    }

    pub async fn close_improvement(&self, caller: &Caller, id: i64, reason: &str) -> Result<Task, PersonaError> {
        let (task, imp) = self.improve_task(id).await?;
        let (_, a) = self.env.agent(&imp.agent).await?;
        let person = may_correct(caller, &a)?;
        let reason = one_line(reason, "reason for closing")?;
        if task.status != STATUS_OPEN {
            return Err(PersonaError::Changed(format!("Improve card #{id} is already {}", task.status)));
        }
        self.store.settle_task(id, STATUS_CLOSED, Some(&reason), person.id, self.env.now()).await.map_err(
            |e| match e {
                StoreError::Changed { .. } => {
                    PersonaError::Changed(format!("Improve card #{id} was settled meanwhile"))
                }
                e => e.into(),
            },
        )?;
        self.improve_task(id).await.map(|(t, _)| t)
    }

    pub(super) async fn card(&self, caller: &Caller, task: Task) -> ImproveCard {
        let mut may_settle = false;
        let mut file_changed = false;
        if let Some(imp) = &task.improve {
            if let Ok((_, a)) = self.env.agent(&imp.agent).await {
                may_settle = may_correct(caller, &a).is_ok() && task.status == STATUS_OPEN;
            }
            if task.status == STATUS_OPEN {
                if let Ok(vault) = self.env.vault() {
                    file_changed = vault.read(&imp.target_path).await.ok().flatten().as_deref() != Some(&imp.base_text);
                }
            }
        }
        ImproveCard { task, may_settle, file_changed }
    }

    /// The Suggested changes page: open improve cards the person may apply or close.
    pub async fn improve_cards(&self, caller: &Caller) -> Result<Vec<ImproveCard>, PersonaError> {
        let tasks = self.store.improve_tasks(None).await?;
        let mut out = Vec::new();
        for t in tasks.into_iter().filter(|t| t.status == STATUS_OPEN) {
            let c = self.card(caller, t).await;
            if c.may_settle {
                out.push(c);
            }
        }
        Ok(out)
    }
}

fn unfence(reply: &str) -> &str {
    let t = reply.trim();
    t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|r| r.strip_suffix("```")).unwrap_or(t).trim()
}

fn changed_since(path: &str) -> PersonaError {
    PersonaError::Changed(format!(
        "{path} has changed since this proposal was made, so it was not applied and nothing was written. Close it; the bot proposes again against the new text."
    ))
}
