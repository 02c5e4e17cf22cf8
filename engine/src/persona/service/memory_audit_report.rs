//! What a memory audit reports (the seed's report and `generate_summary`) and the agent page's
//! panel state.

use crate::persona::memory_audit::{AuditAction, AuditParams, Entry};
use crate::persona::memory_audit_store::{ActionRecord, AuditRecord, Unresolved};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

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
        out.extend(self.detail_lines());
        out
    }

    /// Everything the summary line is followed by: utilisation, each action with its outcome,
    /// the unresolved entries, notes, and how to undo. A dry run's actions on the agent page.
    pub fn detail_lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "utilization: MEMORY.md {}% -> {}%, USER.md {}% -> {}%",
            self.memory_percent_before, self.memory_percent, self.user_percent_before, self.user_percent
        )];
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
