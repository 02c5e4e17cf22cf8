//! The memory audit's steps that ask outside: the model for categories, the live systems for
//! URLs and models, and a person (an improve card) for an operating rule.

use super::env::owner_id;
use super::{MemoryAudits, PersonaError};
use crate::persona::backlog::{Improvement, NewTask, TaskKind, STATUS_OPEN};
use crate::persona::memory_audit::{model_named, urls, AuditFile, Category, Entry, Verified};
use crate::persona::memory_audit_checks::{Reach, MAX_URLS};
use crate::persona::memory_audit_model::{self as audit_model, PURPOSE};
use crate::persona::model::ModelChoice;
use crate::persona::vault::{RosterAgent, VaultError};
use chrono::{DateTime, Utc};

impl MemoryAudits {
    /// The cheap model's categories for every entry, or None (and why, in the notes) when the
    /// rules are to decide: no model, the daily cap spent, a failed call or an unusable reply.
    pub(super) async fn categorise(
        &self,
        subject: &str,
        agent: Option<&RosterAgent>,
        read: &[(AuditFile, String)],
        compress: bool,
        notes: &mut Vec<String>,
    ) -> Option<Vec<audit_model::Verdict>> {
        if read.is_empty() {
            return None;
        }
        let setting = agent.and_then(|a| a.memory.as_ref().ok()).map_or("cheap", |c| c.config.reflect.model.as_str());
        let model = match self.env.models.resolve(setting) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => {
                notes.push(format!("the plain rules categorised: {why}"));
                return None;
            }
        };
        match self.env.claim_call(self.store.as_ref(), subject, PURPOSE).await {
            Ok(true) => {}
            Ok(false) => {
                notes.push(format!(
                    "the plain rules categorised: today's cap of {} model calls is spent",
                    self.env.max_per_day
                ));
                return None;
            }
            Err(e) => {
                tracing::warn!(subject, error = %e, "the memory audit's model call was not claimed");
                notes.push("the plain rules categorised: the model call could not be counted".into());
                return None;
            }
        }
        let reply = match model.chat(&audit_model::system(), &audit_model::prompt(read, compress)).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(subject, error = %e, "the memory audit's model call failed");
                notes.push(format!("the plain rules categorised: the model call failed ({e})"));
                return None;
            }
        };
        match audit_model::parse(&reply, read.len()) {
            Ok(v) => {
                notes.push(format!("{} categorised the entries", model.name()));
                Some(v)
            }
            Err(why) => {
                tracing::warn!(subject, why = %why, "the memory audit's model reply was not used");
                notes.push(format!("the plain rules categorised: {why}"));
                None
            }
        }
    }

    /// Phase 4: each URL in a technical config, within the bounded request, and each `model:`
    /// against the provider's list.
    pub(super) async fn verify(&self, entries: &[Entry], notes: &mut Vec<String>) -> Verified {
        let mut verified = Verified::default();
        let configs: Vec<&Entry> = entries.iter().filter(|e| e.category == Ok(Category::TechnicalConfig)).collect();
        let mut to_check: Vec<String> = configs.iter().flat_map(|e| urls(&e.text)).collect();
        to_check.dedup();
        let models: Vec<String> = configs.iter().filter_map(|e| model_named(&e.text)).collect();
        if to_check.is_empty() && models.is_empty() {
            return verified;
        }
        let Some(checks) = &self.checks else {
            notes.push("URLs and models were not checked: this server has no live checks".into());
            return verified;
        };
        if to_check.len() > MAX_URLS {
            notes.push(format!(
                "{} URLs; the first {MAX_URLS} were checked, the rest wait for the next audit",
                to_check.len()
            ));
            to_check.truncate(MAX_URLS);
        }
        for url in to_check {
            match checks.reachable(&url).await {
                Reach::Answered => {}
                Reach::Silent => verified.unreachable.push(url),
                // Not asked is not evidence that it is down, so the entry is left unmarked.
                Reach::NotAsked(why) => notes.push(format!("{url} was not checked: {why}")),
            }
        }
        if !models.is_empty() {
            match checks.provider_models().await {
                Ok(list) => {
                    for m in models.into_iter().filter(|m| !list.has(m) && *m != list.configured) {
                        verified.models.push((m, list.configured.clone()));
                    }
                }
                Err(why) => notes.push(format!("models were not checked: {why}")),
            }
        }
        verified
    }

    /// Where an operating rule goes: already in a skill file (so it leaves MEMORY.md), waiting on
    /// an improve card, filed as one now, or left because there is no skill file to name.
    pub(super) async fn to_skill(
        &self,
        agent: Option<&RosterAgent>,
        file: AuditFile,
        entry: &str,
        dry_run: bool,
        now: DateTime<Utc>,
    ) -> Result<Skill, PersonaError> {
        let Some(a) = agent else {
            return Ok(Skill::Unresolved(
                "an Operating Rule belongs in a skill file; a memories folder names none".into(),
            ));
        };
        let vault = self.env.vault()?;
        let mut skill = None;
        for k in &a.knowledge {
            let found = match vault.markdown_under(k).await {
                Ok(f) => f,
                Err(VaultError::Outside { .. }) => continue,
                Err(e) => return Err(PersonaError::Vault(e)),
            };
            for path in found {
                if self.improve.may_target(a, &path).await.is_ok() {
                    if let Some(text) = vault.read(&path).await.map_err(PersonaError::Vault)? {
                        skill = Some((path, text));
                        break;
                    }
                }
            }
            if skill.is_some() {
                break;
            }
        }
        let Some((path, text)) = skill else {
            return Ok(Skill::Unresolved(format!(
                "an Operating Rule belongs in a skill file, and {} has none under its knowledge paths",
                a.name
            )));
        };
        let line = format!("- {entry}");
        if text.lines().any(|l| l.trim() == line || l.trim() == entry) {
            return Ok(Skill::InFile(path));
        }
        let open = self.store.improve_tasks(Some(&a.name)).await?;
        if let Some(t) = open.iter().find(|t| {
            t.status == STATUS_OPEN
                && t.improve.as_ref().is_some_and(|i| i.target_path == path && i.diff.contains(&format!("+{line}")))
        }) {
            return Ok(Skill::Outcome(format!("waits on improve card #{}", t.id)));
        }
        if dry_run {
            return Ok(Skill::Outcome(format!("would file an improve card to add it to {path}")));
        }
        // An insertion after the file's last line: the validator reads `-N` as "before line N".
        let at = text.lines().count() + 1;
        let diff = format!("@@ -{at},0 +{at},1 @@\n+{line}\n");
        let text = match self.improve.check_change(a, &path, &diff).await {
            Ok((current, _)) => current,
            Err(PersonaError::Refused(why)) => {
                return Ok(Skill::Unresolved(format!("the improve card for {path} was refused: {why}")))
            }
            Err(e) => return Err(e),
        };
        let task = NewTask {
            kind: TaskKind::Improve,
            title: format!("{}: an operating rule for {path}", a.name),
            body: format!("The memory audit found an Operating Rule in {}: {entry}", file.as_str()),
            author: "memory audit".into(),
            assignee: None,
            owner: owner_id(self.store.as_ref(), a).await?,
            improve: Some(Improvement {
                agent: a.name.clone(),
                target_path: path.clone(),
                diff,
                rationale: format!(
                    "The memory audit moves operating rules out of {} into a skill file, which changes only through a person.",
                    file.as_str()
                ),
                evidence: Vec::new(),
                base_text: text,
                memory_id: None,
            }),
            at: now,
        };
        let filed = self.store.create_task(&task).await?;
        Ok(Skill::Outcome(format!("improve card #{} filed to add it to {path}", filed.id)))
    }
}

/// Where an operating rule goes.
pub(super) enum Skill {
    InFile(String),
    Outcome(String),
    Unresolved(String),
}
