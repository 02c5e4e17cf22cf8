//! A card and one person's use of it: a short copy of one record, from one connector, read with
//! one key. The store keeps them; the rules of keeping them (`keep`) and reading them stand on
//! these types, not on the store.

use super::access::{CardOrigin, DataLabel, KeyKind};
use super::activation::UseSummary;
use super::source::CardField;
use crate::org::PersonId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A short copy of one record, from one connector, read with one key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub id: i64,
    pub connector: i64,
    pub tool: String,
    pub kind: String,
    pub record_id: String,
    pub version: Option<String>,
    pub fields: Vec<CardField>,
    pub read_with: KeyKind,
    pub read_as: Option<PersonId>,
    pub label_when_read: DataLabel,
    pub open_work: bool,
    pub read_at: DateTime<Utc>,
    /// Fields the last read did not return: each keeps its value from an earlier read, which is
    /// now unknown ("not returned by Acme ATS"). A read that returns the field clears it.
    pub not_returned: Vec<String>,
}

impl Card {
    pub fn origin(&self) -> CardOrigin {
        CardOrigin {
            toolset: self.connector,
            read_with: self.read_with,
            read_as: self.read_as,
            label_when_read: self.label_when_read,
        }
    }
}

/// What one read found, to be kept: see [`after_read`] for how it meets what is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewCard {
    pub connector: i64,
    pub tool: String,
    pub kind: String,
    pub record_id: String,
    pub version: Option<String>,
    /// The fields the read returned.
    pub fields: Vec<CardField>,
    /// The shape's fields the read did not return.
    pub missing: Vec<String>,
    pub read_with: KeyKind,
    pub read_as: Option<PersonId>,
    pub label_when_read: DataLabel,
    /// What makes the record open work, judged on the fields the card holds after the read.
    pub open_when: Option<OpenWhen>,
    pub read_at: DateTime<Utc>,
}

/// What a card holds after a read.
#[derive(Debug, Clone, PartialEq)]
pub struct AfterRead {
    pub fields: Vec<CardField>,
    pub not_returned: Vec<String>,
    pub open_work: bool,
}

/// Meets a read with the card's stored fields. A field missing from the source's answer is
/// unknown, never a change: its stored value stays and it is listed as not returned. A field the
/// shape no longer keeps goes. Every backend's `upsert_card` keeps a card through this, inside
/// the transaction that reads the stored fields.
pub fn after_read(stored: &[CardField], new: &NewCard) -> AfterRead {
    let mut fields = Vec::with_capacity(new.fields.len() + new.missing.len());
    let mut not_returned = Vec::new();
    for s in stored {
        if let Some(read) = new.fields.iter().find(|f| f.name == s.name) {
            fields.push(read.clone());
        } else if new.missing.contains(&s.name) {
            fields.push(s.clone());
            not_returned.push(s.name.clone());
        }
    }
    fields.extend(new.fields.iter().filter(|f| !stored.iter().any(|s| s.name == f.name)).cloned());
    let open_work = new.open_when.as_ref().is_some_and(|o| o.holds(&fields));
    AfterRead { fields, not_returned, open_work }
}

/// One person's use of one card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardUse {
    pub person: PersonId,
    pub card: i64,
    pub summary: UseSummary,
    pub pinned: bool,
    pub last_use: DateTime<Utc>,
}

/// A field and the values that make a record open work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenWhen {
    pub field: String,
    pub values: Vec<String>,
}

impl OpenWhen {
    pub fn holds(&self, fields: &[CardField]) -> bool {
        fields.iter().any(|f| f.name == self.field && self.values.iter().any(|v| v.eq_ignore_ascii_case(&f.value)))
    }
}
