//! What a run loads from the cards' area and what its check found of them, in the cards' own
//! types: runs put them into the block and the answer's check, and the cards' area never needs to
//! know how.

use super::facts::FactKind;
use super::source::CardField;
use crate::kernel::DataLabel;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    pub name: String,
    pub before: String,
    pub after: String,
}

/// What Refresh found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefreshOutcome {
    Changed(Vec<FieldChange>),
    NoChange,
    /// Gone at the source: the card was removed.
    Gone(String),
    NotChecked(String),
}

/// What changed from `before` to `now`, field by field, and per kind of structured fact whether
/// one of its fields changed. Only fields both hold can change: one `now` lacks is unknown, and
/// with `only_before` one `before` lacks was not shown, so it is no change either.
pub(crate) fn compare_fields(
    before: &[CardField],
    now: &[CardField],
    only_before: bool,
) -> (Vec<FieldChange>, Vec<(FactKind, bool)>) {
    let mut changes = Vec::new();
    let mut kinds: Vec<(FactKind, bool)> = Vec::new();
    for f in now {
        let was = before.iter().find(|o| o.name == f.name);
        if was.is_none() && only_before {
            continue;
        }
        let was = was.map(|o| o.value.clone()).unwrap_or_default();
        // The same value spelled anew at the source ("48,000" for "48000") is no change: the
        // check compares values as the gate does.
        let changed = !crate::canon::same_value(&was, &f.value);
        if !f.free_text {
            let kind = FactKind::of(&f.name, &was);
            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, any)) => *any |= changed,
                None => kinds.push((kind, changed)),
            }
        }
        if changed {
            changes.push(FieldChange { name: f.name.clone(), before: was, after: f.value.clone() });
        }
    }
    (changes, kinds)
}

impl RefreshOutcome {
    pub(crate) fn changed(changes: Vec<FieldChange>) -> Self {
        if changes.is_empty() {
            RefreshOutcome::NoChange
        } else {
            RefreshOutcome::Changed(changes)
        }
    }

    pub fn sentence(&self) -> String {
        match self {
            RefreshOutcome::Changed(changes) => format!(
                "changed: {}",
                changes
                    .iter()
                    .map(|c| format!("{} ({} → {})", c.name, c.before, c.after))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            RefreshOutcome::NoChange => "no change".to_string(),
            RefreshOutcome::Gone(source) => format!("no longer at {source}"),
            RefreshOutcome::NotChecked(why) => format!("not checked: {why}"),
        }
    }
}

/// A selected card as a run's block loads it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedCard {
    pub card: i64,
    pub kind: String,
    pub record_id: String,
    /// The connector's name.
    pub source: String,
    pub read_at: DateTime<Utc>,
    /// The fields that load (free text only when the question named it).
    pub fields: Vec<CardField>,
    /// The card's data class now.
    pub label: DataLabel,
    /// Past its hard limit, its record was to be read before the model is asked, and could not
    /// be: why. Its remembered values are then left out (`fields` is empty), and the block says
    /// it could not be read instead.
    pub not_read: Option<String>,
}

/// A list snapshot as a run's block loads it: what was asked, the query and the records it
/// returned (their cards load beside it).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSnapshot {
    pub id: i64,
    pub connector: i64,
    /// The connector's name.
    pub source: String,
    pub asked: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub records: Vec<String>,
    pub taken_at: DateTime<Utc>,
    /// The connector's label now.
    pub label: DataLabel,
}

/// What one record's read found, with what the line needs to name it.
#[derive(Debug, Clone, PartialEq)]
pub struct CardChecked {
    pub card: i64,
    pub connector: i64,
    /// "lead"
    pub kind: String,
    pub record_id: String,
    /// The connector's name.
    pub source: String,
    /// The kinds of fact the read compared, each with whether one of its fields changed.
    pub compared: Vec<(FactKind, bool)>,
    pub outcome: RefreshOutcome,
}

/// What running a list snapshot's query once more found: what is new and what is gone, or why
/// it could not run.
#[derive(Debug, Clone, PartialEq)]
pub struct ListChecked {
    pub snapshot: i64,
    /// What the snapshot answered: "Leads with a follow-up today".
    pub asked: String,
    /// The connector's name.
    pub source: String,
    pub outcome: Result<super::snapshots::ListChange, crate::cards::error::MemoryError>,
}

/// A connector's notice that a kind of fact's limit may be too long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimitNotice {
    pub connector: i64,
    pub kind: FactKind,
    /// Changes found among `of_checks` checks.
    pub changed: u32,
    pub of_checks: u32,
    pub at: chrono::DateTime<chrono::Utc>,
}

impl LimitNotice {
    /// What admins read on the connector's sheet.
    pub fn sentence(&self, connector_name: &str) -> String {
        format!(
            "{}: {} of the last {} checks of {} on {connector_name} found a change, so its limit may be too long",
            capitalised(self.kind.words()),
            self.changed,
            self.of_checks,
            self.kind.words()
        )
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}
