//! The records of the bots' side: backlog tasks, wakeups, episodes (finished wakes) and memory rows.

use super::render::{MemoryKind, MemoryLine};
use crate::org::PersonId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Work,
    Improve,
}

crate::string_enum!(TaskKind { Work => "work", Improve => "improve" });

/// The statuses a wake may post on its task, and those people set on improve tasks.
pub const WAKE_STATUSES: [&str; 4] = ["in_progress", "done", "blocked", "request_changes"];
pub const STATUS_OPEN: &str = "open";
pub const STATUS_APPLIED: &str = "applied";
pub const STATUS_CLOSED: &str = "closed";
/// Posted by wake-done when a wake left no status of its own.
pub const FALLBACK_STATUS: &str = "blocked";

/// A backlog task (seed 000's "card").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    pub id: i64,
    pub kind: TaskKind,
    pub title: String,
    pub body: String,
    pub status: String,
    /// `person:<email>` or `agent:<name>`.
    pub author: String,
    pub assignee: Option<String>,
    pub owner: Option<PersonId>,
    pub improve: Option<Improvement>,
    pub closed_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What an improve task proposes: a change to one of the bot's own files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Improvement {
    pub agent: String,
    pub target_path: String,
    pub diff: String,
    pub rationale: String,
    pub evidence: Vec<i64>,
    /// The exact text the diff was made against; Apply refuses if the file no longer holds it.
    pub base_text: String,
    pub memory_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTask {
    pub kind: TaskKind,
    pub title: String,
    pub body: String,
    pub author: String,
    pub assignee: Option<String>,
    pub owner: Option<PersonId>,
    pub improve: Option<Improvement>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusEntry {
    pub status: String,
    pub note: String,
    pub by: String,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wakeup {
    pub id: i64,
    pub agent: String,
    pub task: Option<i64>,
    pub reason: String,
    pub open: bool,
    /// The wake that closed it; `run` on the wire and in the database, as before.
    #[serde(rename = "run")]
    pub wake: Option<String>,
    pub opened_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Done,
    Blocked,
    RequestChanges,
    NoReport,
    Error,
}

impl Outcome {
    /// How a wake ended: the status it posted itself, else what its exit code says.
    pub fn of_wake(posted: Option<&str>, exit: i32) -> Self {
        match posted {
            Some("done") => Outcome::Done,
            Some("blocked") => Outcome::Blocked,
            Some("request_changes") => Outcome::RequestChanges,
            _ if exit != 0 => Outcome::Error,
            _ => Outcome::NoReport,
        }
    }
}

crate::string_enum!(Outcome {
    Done => "done",
    Blocked => "blocked",
    RequestChanges => "request_changes",
    NoReport => "no_report",
    Error => "error",
});

/// One finished wake, from the bot's point of view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    pub id: i64,
    pub agent: String,
    /// The dispatcher's name for the wake; `run` on the wire and in the database, as before.
    #[serde(rename = "run")]
    pub wake: String,
    pub trigger: String,
    pub task: Option<i64>,
    pub outcome: Outcome,
    pub corrected: bool,
    pub turns: Option<u32>,
    pub cost_usd: Option<f64>,
    pub duration_s: Option<f64>,
    pub summary: String,
    pub log_path: Option<String>,
    pub transcript_path: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewEpisode {
    pub agent: String,
    pub wake: String,
    pub trigger: String,
    pub task: Option<i64>,
    pub outcome: Outcome,
    pub turns: Option<u32>,
    pub cost_usd: Option<f64>,
    pub duration_s: Option<f64>,
    pub summary: String,
    pub log_path: Option<String>,
    pub transcript_path: Option<String>,
    pub at: DateTime<Utc>,
}

impl NewEpisode {
    /// The episode as it would read once recorded, under a made-up id.
    pub fn unsaved(self, id: i64) -> Episode {
        Episode {
            id,
            agent: self.agent,
            wake: self.wake,
            trigger: self.trigger,
            task: self.task,
            outcome: self.outcome,
            corrected: false,
            turns: self.turns,
            cost_usd: self.cost_usd,
            duration_s: self.duration_s,
            summary: self.summary,
            log_path: self.log_path,
            transcript_path: self.transcript_path,
            created_at: self.at,
        }
    }
}

const SUMMARY_CHARS: usize = 160;

/// The one-line, first-person summary of a wake, made from its result with no model call.
pub fn summarise_wake(outcome: Outcome, task: Option<(i64, &str)>, turns: Option<u32>, result: &str) -> String {
    let what = match task {
        Some((id, title)) => format!("task #{id} \u{201c}{title}\u{201d}"),
        None => "a wake with no task".to_string(),
    };
    let ended = match outcome {
        Outcome::Done => "I finished",
        Outcome::Blocked => "I was blocked on",
        Outcome::RequestChanges => "I asked for changes on",
        Outcome::NoReport => "I ended without a report on",
        Outcome::Error => "My run failed on",
    };
    let turns = turns.map(|t| format!(" after {t} turn{}", if t == 1 { "" } else { "s" })).unwrap_or_default();
    let first = result.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut line = format!("{ended} {what}{turns}");
    if !first.is_empty() {
        let cut: String = first.chars().take(SUMMARY_CHARS).collect();
        let ellipsis = if first.chars().count() > SUMMARY_CHARS { "\u{2026}" } else { "" };
        line.push_str(&format!(": {cut}{ellipsis}"));
    } else {
        line.push('.');
    }
    line
}

/// A row of a bot's semantic memory: active, or closed with the reason and who closed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRow {
    pub id: i64,
    pub agent: String,
    pub kind: MemoryKind,
    pub text: String,
    pub times_seen: u32,
    /// Moved by the bot's strengthen and weaken (seed 003); orders core.md after times seen.
    pub worth: i32,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub active: bool,
    pub closed_at: Option<DateTime<Utc>>,
    pub closed_reason: Option<String>,
    pub closed_by: Option<String>,
    pub superseded_by: Option<i64>,
    pub promoted_to_proposal: bool,
    pub proposal_task_id: Option<i64>,
    pub evidence: Vec<i64>,
}

impl MemoryRow {
    pub fn line(&self) -> MemoryLine {
        MemoryLine {
            id: self.id,
            kind: self.kind,
            text: self.text.clone(),
            times_seen: self.times_seen,
            worth: self.worth,
            last_seen: self.last_seen,
        }
    }
}

/// What one application of AUDN operations changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedOps {
    pub added: Vec<i64>,
    pub repeated: Vec<i64>,
    /// (old row, the row that supersedes it)
    pub reworded: Vec<(i64, i64)>,
    pub deleted: Vec<i64>,
}

impl AppliedOps {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.repeated.is_empty() && self.reworded.is_empty() && self.deleted.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_first_person_and_one_line() {
        let s = summarise_wake(Outcome::Done, Some((4, "Fix login")), Some(7), "\nMerged the fix.\nDetails follow");
        assert_eq!(s, "I finished task #4 \u{201c}Fix login\u{201d} after 7 turns: Merged the fix.");
        let s = summarise_wake(Outcome::Error, None, Some(1), "");
        assert_eq!(s, "My run failed on a wake with no task after 1 turn.");
        let long = "x".repeat(500);
        let s = summarise_wake(Outcome::NoReport, None, None, &long);
        assert!(s.ends_with('\u{2026}') && !s.contains('\n'));
    }

    #[test]
    fn a_wake_ends_with_its_own_status_else_its_exit_code() {
        assert_eq!(Outcome::of_wake(Some("done"), 1), Outcome::Done);
        assert_eq!(Outcome::of_wake(Some("request_changes"), 0), Outcome::RequestChanges);
        assert_eq!(Outcome::of_wake(Some("in_progress"), 0), Outcome::NoReport);
        assert_eq!(Outcome::of_wake(None, 2), Outcome::Error);
        assert_eq!(Outcome::of_wake(None, 0), Outcome::NoReport);
    }
}
