//! Erasing a third party (seed 001): an admin erases an email address or a phone number of someone
//! outside the company, and every card, list snapshot, lesson (of any scope, in any state, with the
//! versions it replaced) and who's-who entry that names it, in any spelling the gate reads as that
//! value, is removed in one transaction, with what only stood for them (a forgotten record's mark,
//! a who's-who refetch claimed for it, an API answer kept for a safe retry).
//!
//! It is the one exception to "closed, never deleted": the rows go, and so do their versions. The
//! audit row that records it keeps a keyed hash of the value (HMAC-SHA256 under the company's own
//! key, which is sealed under the secret key) and how many of each kind went, never the value. A
//! later read from a source may keep the value again: the source is not Engram's to erase.
//!
//! Not erased, on purpose: the conversations (threads, messages, answers and the details of their
//! steps) and the Inbox are the record of work people did and what they approved, not memory; the
//! cores are written by people the company trusts; the bots' memory lives in their vault's files.
//!
//! It stands above the cards, lessons and who's who it removes from, and names only its own store:
//! one trait whose one write covers every table, since one transaction cannot span several stores.

pub mod naming;
pub mod service;

use crate::kernel::{Actor, StoreError};
use async_trait::async_trait;
pub use naming::{Naming, NotAValue, Probe, ValueKind, PHONE_JOINERS};
use serde::{Deserialize, Serialize};

/// What every erasure's page, answer and line says after the counts.
pub const SOURCE_MAY_KEEP_AGAIN: &str =
    "A later read from a source may keep it again: the source is not Engram's to erase.";

/// How many rows of each kind an erasure removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErasedCounts {
    pub cards: u32,
    pub snapshots: u32,
    /// Lessons, each version counted.
    pub lessons: u32,
    pub whos_who: u32,
    /// Records someone forgot, kept out of their memory by the record's id.
    pub forgotten: u32,
    /// Who's-who refetches claimed for an id a run met.
    pub fetch_claims: u32,
    /// Answers to API requests kept for a safe retry.
    pub saved_answers: u32,
}

/// "1 card", "2 cards".
fn count(n: u32, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// "a", "a and b", "a, b and c".
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl ErasedCounts {
    fn main(&self) -> Vec<String> {
        vec![
            count(self.cards, "card", "cards"),
            count(self.snapshots, "list snapshot", "list snapshots"),
            count(self.lessons, "lesson", "lessons"),
            count(self.whos_who, "who's-who entry", "who's-who entries"),
        ]
    }

    fn others(&self) -> Vec<String> {
        vec![
            count(self.forgotten, "forgotten record's mark", "forgotten records' marks"),
            count(self.fetch_claims, "who's-who refetch claim", "who's-who refetch claims"),
            count(self.saved_answers, "saved API answer", "saved API answers"),
        ]
    }

    pub fn total(&self) -> u32 {
        self.cards
            + self.snapshots
            + self.lessons
            + self.whos_who
            + self.forgotten
            + self.fetch_claims
            + self.saved_answers
    }

    /// The audit row's detail: every kind's count.
    pub fn detail(&self) -> String {
        let mut all = self.main();
        all.extend(self.others());
        all.join(", ")
    }
}

/// What an erasure removed, for the page, the API and the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Erased {
    pub kind: ValueKind,
    pub counts: ErasedCounts,
}

impl Erased {
    /// "Removed 2 cards, 1 list snapshot, 3 lessons and 1 who's-who entry naming that email
    /// address." and what else went, then that a source may keep it again. Never the value.
    pub fn sentence(&self) -> String {
        let kind = self.kind.words().trim_start_matches("an ").trim_start_matches("a ");
        let c = &self.counts;
        if c.total() == 0 {
            return format!("Nothing in memory named that {kind}; nothing was removed. {SOURCE_MAY_KEEP_AGAIN}");
        }
        let mut s = format!("Removed {} naming that {kind}.", listed(&c.main()));
        let others: Vec<String> = [
            (c.forgotten, c.others()[0].clone()),
            (c.fetch_claims, c.others()[1].clone()),
            (c.saved_answers, c.others()[2].clone()),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(_, w)| w)
        .collect();
        if !others.is_empty() {
            s.push_str(&format!(" Also removed: {}.", listed(&others)));
        }
        s.push(' ');
        s.push_str(SOURCE_MAY_KEEP_AGAIN);
        s
    }
}

/// What the audit row of an erasure says: the kind of value and its keyed hash, never the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErasureRecord {
    pub kind: ValueKind,
    /// HMAC-SHA256 of [`Naming::hashed_text`] under the company's erasure key, in hex.
    pub hash: String,
}

impl ErasureRecord {
    /// The audit row's action.
    pub const ACTION: &'static str = "third_party.erase";

    /// The audit row's subject: `hmac-sha256:<hash>`.
    pub fn subject(&self) -> String {
        format!("hmac-sha256:{}", self.hash)
    }

    /// The audit row's detail: `email: 2 cards, 1 list snapshot, …`.
    pub fn detail(&self, counts: &ErasedCounts) -> String {
        format!("{}: {}", self.kind.as_str(), counts.detail())
    }
}

/// What the store's one write found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErasureOutcome {
    Erased(ErasedCounts),
    /// The value is the email of someone in the company's directory (who has left, perhaps): not a
    /// third party. Nothing was changed.
    InDirectory {
        name: String,
    },
}

/// The store of an erasure: every table that can hold a third party's value, in one write.
#[async_trait]
pub trait ErasureStore: Send + Sync {
    /// HMAC-SHA256 of `text` under the company's erasure key, as 64 lowercase hex digits. The key
    /// is 32 random bytes made at the first erasure and kept sealed under the secret key (rotated
    /// with it), so one value always hashes alike, and a copy of the database without the secret
    /// key cannot test a guess against a hash.
    async fn keyed_hash(&self, text: &str) -> Result<String, StoreError>;

    /// In one write transaction (on SQLite begun IMMEDIATE): unless `naming` names a person of
    /// the directory (left or not), which changes nothing, removes every row that names it, each
    /// found by `naming.probe()` and confirmed by `naming.names` on each of its texts:
    /// - cards (their record id, version and fields), with every use of them and their terms;
    /// - the records people forgot, by the record's id;
    /// - list snapshots (their arguments, question, records and reason), open or closed;
    /// - lessons of any scope and state (their text, claim, source version and reason), each with
    ///   every version it replaced; a later version that replaced a removed one stays, without the
    ///   link to it;
    /// - who's-who entries (their id, values and names), with their keys, and the refetches
    ///   claimed for an id that names it;
    /// - the answers kept for a retried API request that quote it.
    ///
    /// Then writes one audit row: [`ErasureRecord::ACTION`], its subject and its detail.
    async fn erase_naming(
        &self,
        naming: &Naming,
        record: &ErasureRecord,
        actor: Actor,
    ) -> Result<ErasureOutcome, StoreError>;
}

crate::port!(
    /// What erasing a third party reads and writes: its own store, and nothing else.
    ErasurePorts: ErasureStore
);

/// Why an erasure was refused, or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErasureError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl From<StoreError> for ErasureError {
    fn from(e: StoreError) -> Self {
        ErasureError::Internal(e.to_string())
    }
}

impl From<NotAValue> for ErasureError {
    fn from(e: NotAValue) -> Self {
        ErasureError::Invalid(format!("{} Nothing was changed.", e.sentence()))
    }
}

impl crate::error::UserSafe for ErasureError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            ErasureError::Invalid(_) => crate::error::ErrorKind::Invalid,
            ErasureError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            ErasureError::Internal(_) => crate::error::ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ErasureError::Invalid(_) => "invalid",
            ErasureError::NotAllowed(_) => "not_allowed",
            ErasureError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            ErasureError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_counts_each_kind_and_never_names_the_value() {
        let counts = ErasedCounts { cards: 2, snapshots: 1, lessons: 3, whos_who: 1, ..Default::default() };
        let erased = Erased { kind: ValueKind::Email, counts };
        assert_eq!(
            erased.sentence(),
            "Removed 2 cards, 1 list snapshot, 3 lessons and 1 who's-who entry naming that email address. A later \
             read from a source may keep it again: the source is not Engram's to erase."
        );
        let more = ErasedCounts { cards: 1, forgotten: 1, saved_answers: 2, ..Default::default() };
        assert_eq!(
            Erased { kind: ValueKind::Phone, counts: more }.sentence(),
            "Removed 1 card, 0 list snapshots, 0 lessons and 0 who's-who entries naming that phone number. Also \
             removed: 1 forgotten record's mark and 2 saved API answers. A later read from a source may keep it \
             again: the source is not Engram's to erase."
        );
        assert_eq!(
            Erased { kind: ValueKind::Phone, counts: ErasedCounts::default() }.sentence(),
            "Nothing in memory named that phone number; nothing was removed. A later read from a source may keep \
             it again: the source is not Engram's to erase."
        );
        let record = ErasureRecord { kind: ValueKind::Email, hash: "ab12".into() };
        assert_eq!(record.subject(), "hmac-sha256:ab12");
        assert_eq!(
            record.detail(&more),
            "email: 1 card, 0 list snapshots, 0 lessons, 0 who's-who entries, 1 forgotten record's mark, 0 who's-who \
             refetch claims, 2 saved API answers"
        );
    }
}
