//! Seed 004's memory audit of a bot's MEMORY.md (`<name>.md`) and USER.md (`<name>.user.md`),
//! or of a Hermes memories folder: categorise every entry (the cheap model, the plain rules as
//! the fallback), plan, check URLs and models against the live systems, then apply as
//! patch-level edits written through a temporary file and a rename, keeping the texts before as
//! the audit's version so that Undo restores them. Operating rules go to a person as improve
//! cards, since skill files change only through one.
//!
//! Here: the entry points, the triggers, the audit itself and Undo. Its report and state are in
//! `memory_audit_report`; the steps that ask outside (the model, the live checks, the improve card)
//! in `memory_audit_steps`.

use super::env::{may_correct, may_read, valid_config, BotEnv};
use super::memory_audit_report::{AuditReport, AuditState, AuditStatus};
use super::memory_audit_steps::Skill;
use super::{Caller, Improve, PersonaError};
use crate::kernel::StoreError;
use crate::persona::memory_audit::entry_spans;
use crate::persona::memory_audit::{
    categorise_by_rules, due, plan, AuditAction, AuditFile, AuditParams, Due, Entry, EntryFormat,
};
use crate::persona::memory_audit_apply::{apply, is_marker, with_markers, Texts};
use crate::persona::memory_audit_checks::LiveChecks;
use crate::persona::memory_audit_store::{ActionRecord, Audit, AuditRecord, NewAudit, Unresolved};
use crate::persona::store::MemoryAuditPorts;
use crate::persona::vault::{hand_written_memory_path, user_memory_path, RosterAgent, Vault};
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many audits the agent page lists.
pub const AUDITS_SHOWN: u32 = 5;
pub const HERMES_MEMORY: &str = "MEMORY.md";
pub const HERMES_USER: &str = "USER.md";
/// The most audits a bot may ask for itself in an hour. Each one may call the URLs in its memory,
/// so a bot must not be able to make the server call them at will.
pub const BOT_AUDITS_PER_HOUR: usize = 6;

/// When each bot asked for its own audits within the last hour. Kept in the server's memory: a
/// restart forgets it, which costs at most one more hour's audits.
#[derive(Clone, Default)]
struct BotAuditRequests(Arc<Mutex<HashMap<String, Vec<DateTime<Utc>>>>>);

impl BotAuditRequests {
    /// Counts one request by `bot` at `now`, or says when the next is allowed if the last hour
    /// has had its fill.
    fn take(&self, bot: &str, now: DateTime<Utc>) -> Result<(), DateTime<Utc>> {
        let mut all = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let asked = all.entry(bot.to_string()).or_default();
        asked.retain(|at| now - *at < Duration::hours(1));
        if asked.len() >= BOT_AUDITS_PER_HOUR {
            return Err(asked.iter().min().copied().unwrap_or(now) + Duration::hours(1));
        }
        asked.push(now);
        Ok(())
    }
}

/// What is audited: a bot on the roster, or a Hermes memories folder (`MEMORY.md` and `USER.md`
/// in it) opened by the host's operator.
pub enum AuditTarget {
    Agent(String),
    Folder { files: Arc<dyn Vault>, label: String },
}

/// A subject's files as the audit reads and writes them.
pub(super) struct Files<'a> {
    pub(super) vault: &'a dyn Vault,
    pub(super) memory: String,
    pub(super) user: String,
    pub(super) format: EntryFormat,
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

pub(super) fn agent_files<'a>(vault: &'a dyn Vault, agent: &str) -> Files<'a> {
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

/// Seed 004's memory audit of a bot's files or of a Hermes folder, its triggers, state and Undo.
#[derive(Clone)]
pub struct MemoryAudits {
    pub(super) store: Arc<dyn MemoryAuditPorts>,
    pub(super) env: BotEnv,
    /// An operating rule leaves memory as an improve card, under the proposals' own rules.
    pub(super) improve: Improve,
    /// The memory audit's checks of URLs and models; without them nothing is marked or corrected.
    pub(super) checks: Option<Arc<dyn LiveChecks>>,
    /// When each bot last asked for its own audits, for the hourly limit.
    bot_audits: BotAuditRequests,
}

impl MemoryAudits {
    pub fn new(
        store: Arc<dyn MemoryAuditPorts>,
        env: BotEnv,
        improve: Improve,
        checks: Option<Arc<dyn LiveChecks>>,
    ) -> Self {
        Self { store, env, improve, checks, bot_audits: BotAuditRequests::default() }
    }

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
                let (_, a) = self.env.agent(&name).await?;
                match caller {
                    Caller::Operator => {}
                    Caller::Bot(b) if *b == name => {
                        if let Err(next) = self.bot_audits.take(b, self.env.now()) {
                            return Err(PersonaError::Throttled(format!(
                                "A bot may ask for at most {BOT_AUDITS_PER_HOUR} memory audits an hour; {name} may ask again at {} UTC",
                                next.format("%H:%M:%S")
                            )));
                        }
                    }
                    Caller::Bot(_) => {
                        return Err(PersonaError::NotAllowed("A bot audits only its own memory files".into()))
                    }
                    Caller::Person(_) => {
                        may_correct(caller, &a)?;
                    }
                }
                let params = valid_config(&a)?.audit.clone();
                let files = agent_files(self.env.vault()?, &name);
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
            let (_, a) = self.env.agent(agent).await?;
            let Ok(config) = valid_config(&a) else { return Ok(None) };
            let params = config.audit.clone();
            let files = agent_files(self.env.vault()?, agent);
            let texts = files.read().await?;
            let (m, u) = percents(&texts, files.format, &params);
            let last = self.store.memory_audits(agent, 1).await?.into_iter().next();
            let now = self.env.now();
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
                && !self.store.claim_daily_run(&format!("memory_audit:{agent}"), &now.date_naive().to_string()).await?
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
        let Ok(roster) = self.env.roster().await else { return Vec::new() };
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
            let (_, a) = self.env.agent(agent).await?;
            let params = valid_config(&a)?.audit.clone();
            let files = agent_files(self.env.vault()?, agent);
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
        let now = self.env.now();
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

    /// `GET /api/org/agents/{name}/memory-audit`: the seed's state, for whoever may read the bot.
    pub async fn memory_audit_state(&self, caller: &Caller, name: &str) -> Result<AuditState, PersonaError> {
        may_read(caller, name)?;
        let (_, a) = self.env.agent(name).await?;
        self.audit_state(&a).await
    }

    /// The agent page's panel.
    pub(super) async fn audit_state(&self, agent: &RosterAgent) -> Result<AuditState, PersonaError> {
        let params = agent.memory.as_ref().map(|c| c.config.audit.clone()).unwrap_or_default();
        let files = agent_files(self.env.vault()?, &agent.name);
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
                let (_, a) = self.env.agent(&record.audit.subject).await?;
                if caller != &Caller::Operator {
                    may_correct(caller, &a)?;
                }
                own = self.env.vault()?;
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
        self.store.mark_memory_audit_undone(id, &caller.label(), self.env.now()).await.map_err(|e| match e {
            StoreError::Changed { .. } => PersonaError::Changed(format!("Memory audit #{id} was undone already")),
            e => e.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_gets_six_audits_an_hour_counted_per_bot_over_a_sliding_hour() {
        let requests = BotAuditRequests::default();
        let start: DateTime<Utc> = "2026-12-04T10:00:00Z".parse().unwrap();
        for i in 0..BOT_AUDITS_PER_HOUR as i64 {
            assert_eq!(requests.take("scout", start + Duration::minutes(i)), Ok(()), "request {i}");
        }
        let late = start + Duration::minutes(30);
        assert_eq!(requests.take("scout", late), Err(start + Duration::hours(1)), "the seventh waits");
        assert_eq!(requests.take("helper", late), Ok(()), "another bot has its own hour");
        assert_eq!(requests.take("scout", start + Duration::hours(1)), Ok(()), "the first has left the hour");
        assert!(requests.take("scout", start + Duration::hours(1)).is_err(), "and its place is taken again");
    }
}
