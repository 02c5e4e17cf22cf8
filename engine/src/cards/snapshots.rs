//! List snapshots (seed 001, "Lists"): a list answer ("my follow-ups today") keeps the query, for
//! whom, when, and which records it returned. Asked again, the answer comes from the snapshot and
//! its cards, and the check runs the query once more, as the person, and shows what is new or
//! gone ("1 new").
//!
//! A snapshot is kept for a read of a list tool (one that returns records, not the shape's get
//! tool) made as a person: by a run, or by one of their role's "my work" queries. The same query,
//! or the same question (today's follow-ups, read again tomorrow), read again closes the snapshot
//! before it ("superseded") and keeps a new one, so the history stays. Only the record ids are kept; the records themselves are the person's cards.

use crate::kernel::StoreError;
use crate::org::PersonId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// At most this many snapshots load into one run.
pub const SNAPSHOTS_PER_RUN: usize = 3;
/// At most this many records a snapshot names, in the source's order.
pub const SNAPSHOT_RECORDS: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListSnapshot {
    pub id: i64,
    pub person: PersonId,
    pub connector: i64,
    /// The list tool the query read with, and its arguments as read.
    pub tool: String,
    pub arguments: Value,
    /// What it answered: the question of the run that read it, or the query's label.
    pub asked: String,
    /// The record ids it returned, in the source's order.
    pub records: Vec<String>,
    pub taken_at: DateTime<Utc>,
}

impl ListSnapshot {
    /// The id its quote and its ref carry: `snapshot:<id>`.
    pub fn quote_id(&self) -> String {
        format!("snapshot:{}", self.id)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewSnapshot {
    pub person: PersonId,
    pub connector: i64,
    pub tool: String,
    pub arguments: Value,
    pub asked: String,
    pub records: Vec<String>,
    pub taken_at: DateTime<Utc>,
}

#[async_trait]
pub trait SnapshotStore: Send + Sync {
    /// Keeps a snapshot; the person's open ones of the same list (connector and tool, and the
    /// same arguments or the same question) are closed first as superseded, in the same write.
    async fn keep_snapshot(&self, s: &NewSnapshot) -> Result<ListSnapshot, StoreError>;
    /// The person's open snapshots, newest first.
    async fn snapshots_of(&self, person: PersonId) -> Result<Vec<ListSnapshot>, StoreError>;
}

/// What the check found when it ran a snapshot's query again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListChange {
    /// Returned now, not then; in the source's order.
    pub new: Vec<String>,
    /// Returned then, not now; in the snapshot's order.
    pub gone: Vec<String>,
}

impl ListChange {
    pub fn between(then: &[String], now: &[String]) -> Self {
        ListChange {
            new: now.iter().filter(|id| !then.contains(id)).cloned().collect(),
            gone: then.iter().filter(|id| !now.contains(id)).cloned().collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.new.is_empty() && self.gone.is_empty()
    }

    /// "1 new (L-1009), 1 gone (L-1002)"; empty when nothing changed.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if !self.new.is_empty() {
            parts.push(format!("{} new ({})", self.new.len(), self.new.join(", ")));
        }
        if !self.gone.is_empty() {
            parts.push(format!("{} gone ({})", self.gone.len(), self.gone.join(", ")));
        }
        parts.join(", ")
    }
}

const STOP: &[&str] = &[
    "about", "all", "and", "any", "are", "been", "but", "can", "did", "does", "for", "from", "give", "has", "have",
    "how", "its", "list", "me", "my", "not", "now", "our", "please", "should", "show", "tell", "that", "the", "their",
    "there", "they", "this", "was", "were", "what", "when", "where", "which", "who", "will", "with", "would", "you",
    "your",
];

/// The words that carry a question's meaning: three letters or more, not a stop word, a plural
/// "s" dropped ("follow-ups" is "follow-up"). An email address gives its parts.
pub(crate) fn meaning(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| if w.len() > 4 && w.ends_with('s') && !w.ends_with("ss") { w[..w.len() - 1].to_string() } else { w })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether a question asks what a snapshot answered: every word that carries the snapshot's
/// meaning is in the question.
pub fn asks_again(asked: &str, question: &str) -> bool {
    let wanted = meaning(asked);
    let said = meaning(question);
    !wanted.is_empty() && wanted.iter().all(|w| said.contains(w))
}

/// The snapshots a question loads: those it asks again, newest first, at most
/// `SNAPSHOTS_PER_RUN`.
pub fn snapshots_for<'a>(question: &str, snapshots: &'a [ListSnapshot]) -> Vec<&'a ListSnapshot> {
    snapshots.iter().filter(|s| asks_again(&s.asked, question)).take(SNAPSHOTS_PER_RUN).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_asks_again_when_it_holds_every_word_of_the_first() {
        let cases = [
            ("my follow-ups today", "What are my follow-ups today?", true),
            ("my follow-ups today", "my follow-up today", true),
            ("Leads with a follow-up today", "Which leads have a follow-up today?", true),
            ("Leads with a follow-up today", "my follow-ups today", false),
            ("my follow-ups today", "my open deals", false),
            ("My open deals", "Show me my open deals", true),
            ("", "anything", false),
            ("what is there", "what is there", false),
        ];
        for (asked, question, expected) in cases {
            assert_eq!(asks_again(asked, question), expected, "{asked:?} asked again by {question:?}");
        }
    }

    #[test]
    fn what_is_new_and_what_is_gone_keep_their_order() {
        let ids = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let change = ListChange::between(&ids(&["L-1", "L-2", "L-3"]), &ids(&["L-3", "L-4", "L-1"]));
        assert_eq!(change.new, ids(&["L-4"]));
        assert_eq!(change.gone, ids(&["L-2"]));
        assert_eq!(change.words(), "1 new (L-4), 1 gone (L-2)");
        let same = ListChange::between(&ids(&["L-1"]), &ids(&["L-1"]));
        assert!(same.is_empty());
        assert_eq!(same.words(), "");
        assert_eq!(ListChange::between(&[], &ids(&["L-1", "L-2"])).words(), "2 new (L-1, L-2)");
    }

    #[test]
    fn the_newest_snapshots_a_question_asks_again_load_at_most_three() {
        let snap = |id: i64, asked: &str| ListSnapshot {
            id,
            person: PersonId(1),
            connector: 1,
            tool: "list_leads".into(),
            arguments: Value::Null,
            asked: asked.into(),
            records: vec![],
            taken_at: DateTime::<Utc>::MIN_UTC,
        };
        let all: Vec<ListSnapshot> =
            (1..=5).rev().map(|i| snap(i, "my follow-ups today")).chain([snap(9, "my open deals")]).collect();
        let ids: Vec<i64> = snapshots_for("my follow-ups today?", &all).iter().map(|s| s.id).collect();
        assert_eq!(ids, vec![5, 4, 3]);
    }
}
