//! The three kinds of fact a kept record's structured fields hold, and how long each may age.
//!
//! A record's id or a contact's email rarely changes; its stage or owner moves with the work;
//! an amount or a due date moves fastest and does the most harm when stale. Each kind has its
//! own limits, set per connector by an admin. Free text (notes, subjects) keeps its own limits.

use serde::{Deserialize, Serialize};

/// Minutes a kind of field may age: below `soft` it is answered from memory without a check;
/// past `hard` the source is read first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Freshness {
    pub soft_mins: u32,
    pub hard_mins: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// Identifiers and reference data: ids, names, emails, phones, codes, cities.
    Reference,
    /// State fields: stage, status, owner, priority.
    State,
    /// Amounts and dates that move: values, prices, due and close dates, counts.
    Moving,
}

crate::string_enum!(FactKind { Reference => "reference", State => "state", Moving => "moving" });

impl FactKind {
    pub const ALL: [FactKind; 3] = [FactKind::Reference, FactKind::State, FactKind::Moving];

    /// For people: "identifiers and reference data".
    pub fn words(&self) -> &'static str {
        match self {
            FactKind::Reference => "identifiers and reference data",
            FactKind::State => "state fields (stage, status, owner)",
            FactKind::Moving => "amounts and dates",
        }
    }

    /// Which kind a structured field holds, from its name, else its value. The name decides
    /// first, because a stage is a state whatever it reads; a value that is a number or a date
    /// under a name that says nothing moves.
    pub fn of(name: &str, value: &str) -> Self {
        let words: Vec<String> = name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .flat_map(split_camel)
            .map(|w| w.to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        if has(STATE_WORDS) {
            return FactKind::State;
        }
        if has(MOVING_WORDS) {
            return FactKind::Moving;
        }
        if has(REFERENCE_WORDS) {
            return FactKind::Reference;
        }
        if looks_like_amount(value) || looks_like_date(value) {
            FactKind::Moving
        } else {
            FactKind::Reference
        }
    }
}

const STATE_WORDS: &[&str] =
    &["stage", "status", "state", "owner", "assignee", "assigned", "priority", "phase", "queue", "tier", "escalated"];
const MOVING_WORDS: &[&str] = &[
    "amount",
    "value",
    "price",
    "total",
    "revenue",
    "budget",
    "cost",
    "balance",
    "arr",
    "mrr",
    "quantity",
    "qty",
    "count",
    "score",
    "probability",
    "date",
    "due",
    "deadline",
    "at",
    "on",
    "close",
    "closes",
    "renewal",
    "expires",
    "until",
    "inr",
    "usd",
    "eur",
    "gbp",
];
const REFERENCE_WORDS: &[&str] =
    &["id", "name", "email", "phone", "code", "company", "contact", "city", "country", "territory", "source", "key"];

fn split_camel(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for c in s.chars() {
        if c.is_ascii_uppercase() && !out.last().is_some_and(|w| w.is_empty()) {
            out.push(String::new());
        }
        out.last_mut().expect("one word at least").push(c);
    }
    out
}

fn looks_like_amount(v: &str) -> bool {
    let t: String = v.trim().chars().filter(|c| !matches!(c, ',' | '_' | ' ')).collect();
    let t = t.trim_start_matches(['$', '€', '£', '₹', '-', '+']);
    !t.is_empty() && t.parse::<f64>().is_ok()
}

fn looks_like_date(v: &str) -> bool {
    let t = v.trim();
    t.len() >= 10 && chrono::NaiveDate::parse_from_str(&t[..10], "%Y-%m-%d").is_ok()
}

/// The limits of each kind of fact, as an admin set them for one connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactLimits {
    pub reference: Freshness,
    pub state: Freshness,
    pub moving: Freshness,
}

impl FactLimits {
    /// A new connector's limits; the README gives the reasons.
    pub const DEFAULT: FactLimits = FactLimits {
        reference: Freshness { soft_mins: 24 * 60, hard_mins: 30 * 24 * 60 },
        state: Freshness { soft_mins: 60, hard_mins: 24 * 60 },
        moving: Freshness { soft_mins: 15, hard_mins: 4 * 60 },
    };

    pub fn of(&self, kind: FactKind) -> Freshness {
        match kind {
            FactKind::Reference => self.reference,
            FactKind::State => self.state,
            FactKind::Moving => self.moving,
        }
    }

    /// Checks each kind's soft limit is within its hard one: the sentence for the admin, naming the kind.
    pub fn validate(&self) -> Result<(), crate::cards::error::MemoryError> {
        for k in FactKind::ALL {
            let f = self.of(k);
            if f.soft_mins > f.hard_mins {
                return Err(crate::cards::error::MemoryError::Invalid(format!(
                    "A soft limit cannot be longer than its hard limit ({})",
                    k.words()
                )));
            }
        }
        Ok(())
    }

    /// The longest hard limit of any kind.
    pub fn longest_hard(&self) -> u32 {
        FactKind::ALL.into_iter().map(|k| self.of(k).hard_mins).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fields_kind_comes_from_its_name_then_its_value() {
        let cases = [
            ("id", "L-1001", FactKind::Reference),
            ("email", "dana@litware.example", FactKind::Reference),
            ("company", "Zeta Retail", FactKind::Reference),
            ("contact_name", "Dana Brooks", FactKind::Reference),
            ("city", "Pune", FactKind::Reference),
            ("stage", "Proposal", FactKind::State),
            ("status", "open", FactKind::State),
            ("owner", "alice@acme.example", FactKind::State),
            ("ownerEmail", "alice@acme.example", FactKind::State),
            ("value_inr", "480000", FactKind::Moving),
            ("amount", "", FactKind::Moving),
            ("close_date", "2026-12-10", FactKind::Moving),
            ("dueAt", "2026-12-10T10:00:00Z", FactKind::Moving),
            ("updated_at", "2026-12-01T09:00:00Z", FactKind::Moving),
            ("seats", "40", FactKind::Moving),
            ("renews", "2027-01-31", FactKind::Moving),
            ("region", "West", FactKind::Reference),
            ("plan", "Pro", FactKind::Reference),
        ];
        for (name, value, want) in cases {
            assert_eq!(FactKind::of(name, value), want, "{name} = {value:?}");
        }
    }

    #[test]
    fn each_kinds_soft_limit_must_be_within_its_hard_one() {
        assert!(FactLimits::DEFAULT.validate().is_ok());
        let mut l = FactLimits::DEFAULT;
        l.moving = Freshness { soft_mins: 300, hard_mins: 200 };
        assert_eq!(
            l.validate().unwrap_err().to_string(),
            "A soft limit cannot be longer than its hard limit (amounts and dates)"
        );
        assert_eq!(FactLimits::DEFAULT.longest_hard(), 30 * 24 * 60);
        assert_eq!(FactKind::parse("state"), Some(FactKind::State));
    }
}
