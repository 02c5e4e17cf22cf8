//! Seed 004's memory audit of a bot's MEMORY.md (`<name>.md`) and USER.md (`<name>.user.md`),
//! or of a Hermes memories folder: categorise every entry (the cheap model, the plain rules as
//! the fallback), plan, check URLs and models against the live systems, then apply as
//! patch-level edits written through a temporary file and a rename, keeping the texts before as
//! the audit's version so that Undo restores them. Operating rules go to a person as improve
//! cards, since skill files change only through one.

use super::{Bots, Caller, PersonaError};
use crate::persona::backlog::{Improvement, NewTask, TaskKind, STATUS_OPEN};
use crate::persona::memory_audit::{
    categorise_by_rules, due, model_named, plan, urls, AuditAction, AuditFile, AuditParams, Category, Due, Entry,
    EntryFormat, Verified,
};
use crate::persona::memory_audit_apply::{apply, entry_spans, is_marker, with_markers, Texts};
use crate::persona::memory_audit_checks::MAX_URLS;
use crate::persona::memory_audit_model::{self as audit_model, PURPOSE};
use crate::persona::memory_audit_store::{ActionRecord, Audit, AuditRecord, NewAudit, Unresolved};
use crate::persona::model::ModelChoice;
use crate::persona::vault::{hand_written_memory_path, user_memory_path, RosterAgent, Vault, VaultError};
use crate::store::StoreError;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How many audits the agent page lists.
pub const AUDITS_SHOWN: u32 = 5;
pub const HERMES_MEMORY: &str = "MEMORY.md";
pub const HERMES_USER: &str = "USER.md";

/// What is audited: a bot on the roster, or a Hermes memories folder (`MEMORY.md` and `USER.md`
/// in it) opened by the host's operator.
pub enum AuditTarget {
    Agent(String),
    Folder { files: Arc<dyn Vault>, label: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AuditStatus {
    Skip,
    DryRun,
    Complete,
}

/// The seed's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditReport {
    pub subject: String,
    pub status: AuditStatus,
    /// What started it, or why it was skipped.
    pub trigger: String,
    pub entries: Vec<Entry>,
    /// Each action and what became of it (or, in a dry run, what it would do).
    pub actions: Vec<ActionRecord>,
    pub unresolved: Vec<Unresolved>,
    pub memory_percent_before: u32,
    pub user_percent_before: u32,
    pub memory_percent: u32,
    pub user_percent: u32,
    /// The recorded audit, which Undo names.
    pub audit: Option<i64>,
    /// What was passed over: the model, the live checks.
    pub notes: Vec<String>,
    pub last_audit: Option<DateTime<Utc>>,
}

impl AuditReport {
    fn count(&self, f: impl Fn(&AuditAction) -> bool) -> usize {
        self.actions.iter().filter(|a| f(&a.action)).count()
    }

    /// The seed's `generate_summary`, and the lines `engram memory audit` prints.
    pub fn lines(&self) -> Vec<String> {
        if self.status == AuditStatus::Skip {
            return vec![format!("SKIP {}: {}", self.subject, self.trigger)];
        }
        let mut out = vec![format!(
            "{} {} ({}): {} actions: {} deletions, {} moves, {} corrections, {} unverified, {} to a skill file, {} compressed",
            match self.status {
                AuditStatus::DryRun => "DRY_RUN",
                _ => "COMPLETE",
            },
            self.subject,
            self.trigger,
            self.actions.len(),
            self.count(|a| matches!(a, AuditAction::Delete { .. })),
            self.count(|a| matches!(a, AuditAction::Move { .. })),
            self.count(|a| matches!(a, AuditAction::Correct { .. })),
            self.count(|a| matches!(a, AuditAction::MarkUnverified { .. })),
            self.count(|a| matches!(a, AuditAction::ToSkill { .. })),
            self.count(|a| matches!(a, AuditAction::Compress { .. })),
        )];
        out.push(format!(
            "utilization: MEMORY.md {}% -> {}%, USER.md {}% -> {}%",
            self.memory_percent_before, self.memory_percent, self.user_percent_before, self.user_percent
        ));
        out.extend(self.actions.iter().map(|a| format!("{}: {}", describe(&a.action), a.outcome)));
        out.extend(
            self.unresolved.iter().map(|u| format!("unresolved in {}: {:?}: {}", u.file.as_str(), u.entry, u.reason)),
        );
        out.extend(self.notes.iter().map(|n| format!("note: {n}")));
        if let Some(id) = self.audit {
            out.push(format!("recorded as audit #{id}; `engram memory audit --undo {id}` restores the files"));
        }
        out
    }
}

/// One action in words, for the report and the agent page.
pub fn describe(action: &AuditAction) -> String {
    match action {
        AuditAction::Delete { file, entry, reason } => format!("DELETE from {}: {entry:?} ({reason})", file.as_str()),
        AuditAction::Move { from, to, entry } => format!("MOVE {} to {}: {entry:?}", from.as_str(), to.as_str()),
        AuditAction::ToSkill { file, entry } => format!("MOVE {} to a skill file: {entry:?}", file.as_str()),
        AuditAction::MarkUnverified { entry, url } => format!("MARK_UNVERIFIED {url}: {entry:?}"),
        AuditAction::Correct { entry, corrected } => format!("CORRECT {entry:?} to {corrected:?}"),
        AuditAction::Compress { file, entry, shorter } => {
            format!("COMPRESS in {}: {entry:?} to {shorter:?}", file.as_str())
        }
    }
}

/// The agent page's panel: the seed's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditState {
    pub params: AuditParams,
    pub memory_chars: u32,
    pub user_chars: u32,
    pub memory_percent: u32,
    pub user_percent: u32,
    pub last_audit: Option<DateTime<Utc>>,
    /// The last audit's unresolved entries.
    pub unresolved: Vec<Unresolved>,
    pub audits: Vec<AuditRecord>,
    /// The audit Undo can restore: the newest, not undone, whose texts are still the files'.
    pub undoable: Option<i64>,
}

/// A subject's files as the audit reads and writes them.
struct Files<'a> {
    vault: &'a dyn Vault,
    memory: String,
    user: String,
    format: EntryFormat,
}

impl Files<'_> {
    fn path(&self, file: AuditFile) -> &str {
        match file {
            AuditFile::Memory => &self.memory,
            AuditFile::User => &self.user,
        }
    }

    async fn read(&self) -> Result<Texts, PersonaError> {
        let read = |p: String| async move { self.vault.read(&p).await.map_err(PersonaError::Vault) };
        Ok(Texts {
            memory: read(self.memory.clone()).await?.unwrap_or_default(),
            user: read(self.user.clone()).await?.unwrap_or_default(),
        })
    }

    /// Writes both files only if each still holds `expected`; when the second was changed
    /// meanwhile, the first is put back, so a refused audit leaves both as they were.
    async fn write(&self, expected: &Texts, text: &Texts, audit: &str) -> Result<(), PersonaError> {
        let mut written = Vec::new();
        for file in [AuditFile::Memory, AuditFile::User] {
            if expected.get(file) == text.get(file) {
                continue;
            }
            let ok = self
                .vault
                .replace_if_unchanged(self.path(file), expected.get(file), text.get(file))
                .await
                .map_err(PersonaError::Vault)?;
            if !ok {
                for f in written {
                    let path = self.path(f);
                    if let Err(e) = self.vault.replace_if_unchanged(path, text.get(f), expected.get(f)).await {
                        tracing::warn!(path, error = %e, "a half-applied memory audit was not put back");
                    }
                }
                return Err(PersonaError::Changed(format!(
                    "{} changed while the {audit} ran, so nothing was written. Run it again.",
                    self.path(file)
                )));
            }
            written.push(file);
        }
        Ok(())
    }
}

fn agent_files<'a>(vault: &'a dyn Vault, agent: &str) -> Files<'a> {
    Files {
        vault,
        memory: hand_written_memory_path(agent),
        user: user_memory_path(agent),
        format: EntryFormat::Markdown,
    }
}

fn percents(texts: &Texts, format: EntryFormat, params: &AuditParams) -> (u32, u32) {
    use crate::persona::memory_audit::{chars, utilisation};
    (
        utilisation(chars(&texts.memory, format), params.max_memory_chars),
        utilisation(chars(&texts.user, format), params.max_user_chars),
    )
}

fn trigger_name(due: &Due) -> String {
    match due {
        Due::Requested => "requested".into(),
        Due::OverThreshold { file, percent } => format!("{} at {percent}%", file.as_str()),
        Due::Never => "first audit".into(),
        Due::Fortnightly => "14 days since the last audit".into(),
        Due::Filling { file, percent } => format!("{} at {percent}%", file.as_str()),
        Due::Skip(why) => why.clone(),
    }
}

impl Bots {
    /// An audit asked for: by the bot's owner or lead on its page or the API, by the bot itself
    /// (seed 004 is the bot's own upkeep: `memory_audit` over MCP), or by the operator on the
    /// command line, who alone may name a folder.
    pub async fn memory_audit(
        &self,
        caller: &Caller,
        target: AuditTarget,
        dry_run: bool,
    ) -> Result<AuditReport, PersonaError> {
        match target {
            AuditTarget::Agent(name) => {
                let (_, a) = self.agent(&name).await?;
                match caller {
                    Caller::Operator => {}
                    Caller::Bot(b) if *b == name => {}
                    Caller::Bot(_) => {
                        return Err(PersonaError::NotAllowed("A bot audits only its own memory files".into()))
                    }
                    Caller::Person(_) => {
                        Self::may_correct(caller, &a)?;
                    }
                }
                let params = Self::valid_config(&a).map_err(PersonaError::Invalid)?.audit.clone();
                let files = agent_files(self.vault()?, &name);
                self.audit(&name, Some(&a), &files, &params, Due::Requested, dry_run, &caller.label()).await
            }
            AuditTarget::Folder { files, label } => {
                if caller != &Caller::Operator {
                    return Err(PersonaError::NotAllowed("Only the host's operator audits a folder".into()));
                }
                let f = Files {
                    vault: files.as_ref(),
                    memory: HERMES_MEMORY.into(),
                    user: HERMES_USER.into(),
                    format: EntryFormat::Hermes,
                };
                let subject = format!("dir:{label}");
                self.audit(&subject, None, &f, &AuditParams::default(), Due::Requested, dry_run, &caller.label()).await
            }
        }
    }

    /// The self-driven and threshold triggers for one bot, never fatal: every 14 days (from its
    /// first finished session when never audited), and at once when a file passes the threshold,
    /// unless nothing changed since the last audit, which would find the same again.
    pub async fn memory_audit_if_due(&self, agent: &str) -> Option<AuditReport> {
        let outcome = async {
            let (_, a) = self.agent(agent).await?;
            let Ok(config) = Self::valid_config(&a) else { return Ok(None) };
            let params = config.audit.clone();
            let files = agent_files(self.vault()?, agent);
            let texts = files.read().await?;
            let (m, u) = percents(&texts, files.format, &params);
            let last = self.store.memory_audits(agent, 1).await?.into_iter().next();
            let now = self.now();
            let due = match &last {
                Some(l) if l.audit.memory_after == texts.memory && l.audit.user_after == texts.user => {
                    if now - l.audit.at < Duration::days(crate::persona::memory_audit::SHELF_LIFE_DAYS) {
                        return Ok(None);
                    }
                    due(false, Some(l.audit.at), m, u, &params, now)
                }
                Some(l) => due(false, Some(l.audit.at), m, u, &params, now),
                None => {
                    let first = self.store.episodes(agent, None).await?.last().map(|e| e.created_at);
                    // Never audited: the fortnight runs from the bot's first finished session.
                    due(false, first.or(Some(now)), m, u, &params, now)
                }
            };
            match due {
                Due::OverThreshold { .. } | Due::Fortnightly | Due::Never => {}
                _ => return Ok(None),
            }
            // A dry run records nothing that would stop the next tick from running it again, so
            // it is claimed once a day, as the fortnightly audit is.
            if (params.dry_run || matches!(due, Due::Fortnightly | Due::Never))
                && !self.store.claim_job_run(&format!("memory_audit:{agent}"), &now.date_naive().to_string()).await?
            {
                return Ok(None);
            }
            let dry = params.dry_run;
            self.audit(agent, Some(&a), &files, &params, due, dry, "memory audit").await.map(Some)
        };
        match outcome.await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent, error = %e, "the memory audit did not run");
                None
            }
        }
    }

    /// `memory_audit_if_due` for every bot on the roster.
    pub async fn memory_audits_due(&self) -> Vec<AuditReport> {
        let Ok(roster) = self.roster().await else { return Vec::new() };
        let mut out = Vec::new();
        for name in roster.names() {
            out.extend(self.memory_audit_if_due(&name).await);
        }
        out
    }

    /// The input-driven trigger: words that ask for an audit ("memory audit", "clean up memory"…)
    /// in a wake's reason or its task run one first. Never fatal to the wake.
    pub(super) async fn memory_audit_if_asked(&self, caller: &Caller, agent: &str, words: &str) {
        if !crate::persona::memory_audit::asks_for_audit(words) {
            return;
        }
        let outcome = async {
            let (_, a) = self.agent(agent).await?;
            let params = Self::valid_config(&a).map_err(PersonaError::Invalid)?.audit.clone();
            let files = agent_files(self.vault()?, agent);
            let dry = params.dry_run;
            self.audit(agent, Some(&a), &files, &params, Due::Requested, dry, &caller.label()).await
        };
        match outcome.await {
            Ok(r) => tracing::info!(agent, summary = r.lines()[0], "a wake asked for a memory audit"),
            Err(e) => tracing::warn!(agent, error = %e, "the memory audit a wake asked for did not run"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn audit(
        &self,
        subject: &str,
        agent: Option<&RosterAgent>,
        files: &Files<'_>,
        params: &AuditParams,
        trigger: Due,
        dry_run: bool,
        by: &str,
    ) -> Result<AuditReport, PersonaError> {
        let now = self.now();
        let before = files.read().await?;
        let (m0, u0) = percents(&before, files.format, params);
        let last = self.store.memory_audits(subject, 1).await?.into_iter().next();
        let requested = trigger == Due::Requested;
        let due = due(requested, last.as_ref().map(|l| l.audit.at), m0, u0, params, now);
        let mut report = AuditReport {
            subject: subject.to_string(),
            status: AuditStatus::Skip,
            trigger: trigger_name(if requested { &trigger } else { &due }),
            entries: Vec::new(),
            actions: Vec::new(),
            unresolved: Vec::new(),
            memory_percent_before: m0,
            user_percent_before: u0,
            memory_percent: m0,
            user_percent: u0,
            audit: None,
            notes: Vec::new(),
            last_audit: last.as_ref().map(|l| l.audit.at),
        };
        if let Due::Skip(_) = due {
            return Ok(report);
        }

        // Phase 2: every entry, categorised.
        let mut read: Vec<(AuditFile, String)> = Vec::new();
        for file in [AuditFile::Memory, AuditFile::User] {
            for (_, text) in entry_spans(before.get(file), files.format) {
                if !is_marker(&text) {
                    read.push((file, text));
                }
            }
        }
        let texts: Vec<String> = read.iter().map(|(_, t)| t.clone()).collect();
        let first_seen = self.store.entries_first_seen(subject, &texts).await?;
        let verdicts = self.categorise(subject, agent, &read, params.compress_entries, &mut report.notes).await;
        report.entries = read
            .iter()
            .zip(first_seen)
            .enumerate()
            .map(|(i, ((file, text), seen))| {
                let (category, shorter) = match &verdicts {
                    Some(v) => (v[i].category.clone(), v[i].shorter.clone()),
                    None => (categorise_by_rules(text), None),
                };
                Entry { file: *file, text: text.clone(), since: seen.unwrap_or(now), category, shorter }
            })
            .collect();
        report.unresolved = report
            .entries
            .iter()
            .filter_map(|e| {
                e.category.as_ref().err().map(|why| Unresolved {
                    file: e.file,
                    entry: e.text.clone(),
                    reason: why.clone(),
                })
            })
            .collect();

        // Phases 3 and 4: the plan, with what the live systems say.
        let verified = self.verify(&report.entries, &mut report.notes).await;
        let mut actions = plan(&report.entries, &verified, now);
        let mut outcomes: Vec<Option<String>> = vec![None; actions.len()];
        for (i, action) in actions.clone().into_iter().enumerate() {
            if let AuditAction::ToSkill { file, entry } = action {
                match self.to_skill(agent, file, &entry, dry_run, now).await? {
                    Skill::InFile(path) => {
                        actions[i] =
                            AuditAction::Delete { file, entry, reason: format!("Operating Rule, now in {path}") }
                    }
                    Skill::Outcome(o) => outcomes[i] = Some(o),
                    Skill::Unresolved(reason) => {
                        outcomes[i] = Some("left in place".into());
                        report.unresolved.push(Unresolved { file, entry, reason });
                    }
                }
            }
        }

        // Phase 5: apply, as patches; a dry run stops before writing.
        let (after, results) = apply(&before, files.format, &actions);
        let (after, m1, u1) = with_markers(&before, &after, files.format, params);
        report.actions = actions
            .into_iter()
            .zip(results)
            .zip(outcomes)
            .map(|((action, result), outcome)| {
                let outcome = outcome.unwrap_or_else(|| match (result, dry_run) {
                    (Ok(()), true) => "would apply".into(),
                    (Ok(()), false) => "applied".into(),
                    (Err(why), _) => format!("not applied: {why}"),
                });
                ActionRecord { action, outcome }
            })
            .collect();
        report.memory_percent = m1;
        report.user_percent = u1;
        if dry_run {
            report.status = AuditStatus::DryRun;
            return Ok(report);
        }
        files.write(&before, &after, "memory audit").await?;
        let mut record = NewAudit {
            audit: Audit {
                subject: subject.to_string(),
                trigger: report.trigger.clone(),
                by: by.to_string(),
                at: now,
                memory_before: before.memory.clone(),
                user_before: before.user.clone(),
                memory_after: after.memory.clone(),
                user_after: after.user.clone(),
                memory_percent: m1,
                user_percent: u1,
                actions: report.actions.clone(),
                unresolved: report.unresolved.clone(),
                summary: String::new(),
            },
            seen: texts,
        };
        record.audit.summary = report.lines().remove(0);
        match self.store.record_memory_audit(&record).await {
            Ok(r) => report.audit = Some(r.id),
            Err(e) => {
                // The files are written; without the record they cannot be undone, so put them back.
                if let Err(w) = files.write(&after, &before, "memory audit").await {
                    tracing::warn!(subject, error = %w, "an unrecorded memory audit was not put back");
                }
                return Err(e.into());
            }
        }
        report.status = AuditStatus::Complete;
        report.last_audit = Some(now);
        Ok(report)
    }

    /// The cheap model's categories for every entry, or None (and why, in the notes) when the
    /// rules are to decide: no model, the daily cap spent, a failed call or an unusable reply.
    async fn categorise(
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
        let model = match self.models.resolve(setting) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => {
                notes.push(format!("the plain rules categorised: {why}"));
                return None;
            }
        };
        match self.claim_call(subject, PURPOSE).await {
            Ok(true) => {}
            Ok(false) => {
                notes.push(format!(
                    "the plain rules categorised: today's cap of {} model calls is spent",
                    self.max_per_day
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
                tracing::warn!(subject, why, "the memory audit's model reply was not used");
                notes.push(format!("the plain rules categorised: {why}"));
                None
            }
        }
    }

    /// Phase 4: each URL in a technical config, within the bounded request, and each `model:`
    /// against the provider's list.
    async fn verify(&self, entries: &[Entry], notes: &mut Vec<String>) -> Verified {
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
            if !checks.reachable(&url).await {
                verified.unreachable.push(url);
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
    async fn to_skill(
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
        let vault = self.vault()?;
        let mut skill = None;
        for k in &a.knowledge {
            let found = match vault.markdown_under(k).await {
                Ok(f) => f,
                Err(VaultError::Outside { .. }) => continue,
                Err(e) => return Err(PersonaError::Vault(e)),
            };
            for path in found {
                if self.may_target(a, &path).await.is_ok() {
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
        let text = match self.check_change(a, &path, &diff).await {
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
            owner: self.owner_id(a).await?,
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

    /// `GET /api/org/agents/{name}/memory-audit`: the seed's state, for whoever may read the bot.
    pub async fn memory_audit_state(&self, caller: &Caller, name: &str) -> Result<AuditState, PersonaError> {
        Self::may_read(caller, name)?;
        let (_, a) = self.agent(name).await?;
        self.audit_state(&a).await
    }

    /// The agent page's panel.
    pub(super) async fn audit_state(&self, agent: &RosterAgent) -> Result<AuditState, PersonaError> {
        let params = agent.memory.as_ref().map(|c| c.config.audit.clone()).unwrap_or_default();
        let files = agent_files(self.vault()?, &agent.name);
        let texts = files.read().await?;
        let (m, u) = percents(&texts, files.format, &params);
        let audits = self.store.memory_audits(&agent.name, AUDITS_SHOWN).await?;
        let undoable = audits
            .first()
            .filter(|a| {
                a.undone_at.is_none() && a.audit.memory_after == texts.memory && a.audit.user_after == texts.user
            })
            .filter(|a| a.audit.memory_before != a.audit.memory_after || a.audit.user_before != a.audit.user_after)
            .map(|a| a.id);
        Ok(AuditState {
            memory_chars: texts.memory.chars().count() as u32,
            user_chars: texts.user.chars().count() as u32,
            memory_percent: m,
            user_percent: u,
            last_audit: audits.first().map(|a| a.audit.at),
            unresolved: audits.first().map(|a| a.audit.unresolved.clone()).unwrap_or_default(),
            audits,
            undoable,
            params,
        })
    }

    /// Undo: both files back to their texts before the audit, only while they are still exactly as
    /// it left them. The owner or lead, or the operator (who alone undoes a folder's audit).
    pub async fn undo_memory_audit(
        &self,
        caller: &Caller,
        id: i64,
        folder: Option<(Arc<dyn Vault>, String)>,
    ) -> Result<AuditRecord, PersonaError> {
        let record = self
            .store
            .memory_audit(id)
            .await?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no memory audit #{id}")))?;
        if record.undone_at.is_some() {
            return Err(PersonaError::Changed(format!("Memory audit #{id} was undone already")));
        }
        let own;
        let files = match (record.audit.subject.strip_prefix("dir:"), &folder) {
            (Some(dir), Some((v, label))) if caller == &Caller::Operator && dir == label => Files {
                vault: v.as_ref(),
                memory: HERMES_MEMORY.into(),
                user: HERMES_USER.into(),
                format: EntryFormat::Hermes,
            },
            (Some(dir), _) => {
                return Err(PersonaError::NotAllowed(format!(
                    "Memory audit #{id} was of the folder {dir}; the operator undoes it with --dir naming that folder"
                )))
            }
            (None, _) => {
                let (_, a) = self.agent(&record.audit.subject).await?;
                if caller != &Caller::Operator {
                    Self::may_correct(caller, &a)?;
                }
                own = self.vault()?;
                agent_files(own, &record.audit.subject)
            }
        };
        let after = Texts { memory: record.audit.memory_after.clone(), user: record.audit.user_after.clone() };
        let before = Texts { memory: record.audit.memory_before.clone(), user: record.audit.user_before.clone() };
        if files.read().await? != after {
            return Err(PersonaError::Changed(format!(
                "The files have changed since memory audit #{id}, so it was not undone and nothing was written"
            )));
        }
        files.write(&after, &before, "undo").await?;
        self.store.mark_memory_audit_undone(id, &caller.label(), self.now()).await.map_err(|e| match e {
            StoreError::Changed { .. } => PersonaError::Changed(format!("Memory audit #{id} was undone already")),
            e => e.into(),
        })
    }
}

enum Skill {
    InFile(String),
    Outcome(String),
    Unresolved(String),
}
