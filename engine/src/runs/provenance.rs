//! Never act from memory: where each value of a planned step came from, and the refusal of a step
//! that would write, send, pay, act or hand on a value that was not read in this run.
//!
//! The gate decides by provenance, never by how a value looks. Every identifying value in an
//! acting step's arguments (an email, a phone number, a record id or id-like code, a number of
//! three digits or more, an amount, a name standing in a name's argument, and any name the run
//! remembers, wherever it stands, free text included) must trace to a value read in this run (a
//! tool result) or to the person's own words in this ask. Anything else is refused:
//! - a value the run remembers (a card, a lesson, a list snapshot, a kept who's-who entry) with
//!   "This uses a remembered value; read the source first";
//! - a value from nowhere (the model made it up, or an outside text suggested it) with "This value
//!   was not read in this run; read the source first".
//!
//! A value both remembered and read in this run is read: memory only decides what to read. A
//! read may carry a value of the same source's cards (that is how memory decides what to read),
//! but never a lesson's text, a list's or another source's remembered values: that would send
//! remembered text to another source.
//!
//! Values are compared by `canon`, the one canonical form the lessons' claims and the check use
//! too. "me", "today", "now" and the person's own id and email never count.

use crate::canon::{self, Folded, Key};
use crate::cards::source::CardField;
use serde_json::Value;
// A fast hasher, seeded per process: the index is built afresh for every run, and hashing was
// most of its cost with the standard one.
use foldhash::fast::RandomState;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;

/// The sentence a step refused for a remembered value shows, and the model is told, so that it
/// can read first.
pub const REFUSED: &str = "This uses a remembered value; read the source first";
/// The sentence for a value that neither a read of this run nor the person's words hold.
pub const NOT_READ: &str = "This value was not read in this run; read the source first";
/// The sentence for a read that would carry remembered text to a source it did not come from.
pub const SENDS_REMEMBERED: &str = "This sends remembered text to another source";

/// What a planned step does with its arguments. Only a read may take a remembered value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Read,
    Write,
    Rollback,
    /// An outgoing message.
    Send,
    Payment,
    /// Any other tool that acts.
    Act,
    /// A task, a delegation's reason, a consult, a post that wakes someone.
    HandOn,
}

/// A card a run's block carried, as provenance needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberedCard {
    pub card: i64,
    /// The connector's name: a read of the same source may carry the card's values.
    pub source: String,
    pub record_id: String,
    pub fields: Vec<CardField>,
}

/// A lesson a run's block carried, or what a list snapshot or a kept who's-who entry remembers.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberedLesson {
    /// `lesson:<id>`, `snapshot:<id>` or a who's-who line's id, as a refusal names it.
    pub id: String,
    pub text: String,
    /// The value its claim says a record holds.
    pub claim: Option<String>,
    /// The connector a list's entries were read from; `None` for a lesson, whose text goes to
    /// no source.
    pub source: Option<String>,
}

/// Why a step was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    Remembered,
    NotRead,
    SendsRemembered,
}

/// Why a step was refused: the sentence, and for the run's details which value and whence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The argument's value that holds it, as the plan gave it.
    pub value: String,
    /// `card:<id>`, `lesson:<id>`, `snapshot:<id>`: where it was remembered; `None` for a value
    /// from nowhere.
    pub from: Option<String>,
    pub why: Why,
}

impl Refusal {
    pub fn sentence(&self) -> &'static str {
        match self.why {
            Why::Remembered => REFUSED,
            Why::NotRead => NOT_READ,
            Why::SendsRemembered => SENDS_REMEMBERED,
        }
    }
}

/// Every place a key was remembered, in order. Most keys are remembered once, so the first is
/// kept apart and the rest allocate only when there are any.
#[derive(Debug, Clone)]
struct Places {
    first: usize,
    more: Vec<usize>,
}

impl Places {
    fn all(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }
}

/// Where a remembered value came from.
#[derive(Debug, Clone)]
struct Origin {
    id: String,
    /// The connector, for a card's or a list's values.
    source: Option<String>,
}

/// How many words of a lesson's text, in a row, make a read carry that text. Shorter lessons
/// count whole, from `SHORT_TEXT` words.
const TEXT_RUN: usize = 5;
const SHORT_TEXT: usize = 3;

/// Words that never count as a name's: the person themself and the moment.
const NEVER: [&str; 3] = ["me", "today", "now"];

/// What a run remembers and what it has read, so far. Built from the run's block; each read the
/// run makes is added as it returns. Remembered values are indexed once, so checking a step
/// costs what its arguments hold, not what the block holds.
#[derive(Debug, Clone)]
pub struct Provenance {
    /// Each key of each remembered value, with every place it was remembered, first first.
    remembered: HashMap<Key, Places>,
    /// The names the run remembers (a card's naming fields), as their words.
    names: Vec<(Vec<String>, usize)>,
    /// Runs of `TEXT_RUN` words of each remembered text (a lesson, a list), by their hash, for
    /// reads: a collision can only refuse a read, never let one through.
    texts: HashMap<u64, usize>,
    hasher: RandomState,
    origins: Vec<Origin>,
    read: HashSet<Key>,
    read_words: HashSet<String>,
    /// Everything read and the person's words, as folded words, for texts read whole.
    read_sequence: String,
}

/// Whether a field names its record by what it is called, whatever its value looks like.
fn names_by_field(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with("name")
        || [
            "company",
            "contact",
            "attendee",
            "attendees",
            "assignee",
            "owner",
            "customer",
            "client",
            "recipient",
            "person",
            "account_holder",
            "payee",
            "vendor",
        ]
        .contains(&n.as_str())
}

/// The leaves of a plan's arguments or a read's result, each with the name of the field it stands
/// in; numbers as written.
fn leaves(v: &Value, field: Option<&str>, out: &mut Vec<(Option<String>, String)>) {
    match v {
        Value::String(s) => out.push((field.map(str::to_string), s.clone())),
        Value::Number(n) => out.push((field.map(str::to_string), n.to_string())),
        Value::Array(a) => a.iter().for_each(|v| leaves(v, field, out)),
        Value::Object(m) => m.iter().for_each(|(k, v)| leaves(v, Some(k), out)),
        Value::Bool(_) | Value::Null => {}
    }
}

fn joined(words: &[String]) -> String {
    words.join(" ")
}

/// Whether `hay` (words joined by one space) holds `needle` (the same) as whole words.
fn has_words(hay: &str, needle: &str) -> bool {
    !needle.is_empty()
        && hay.match_indices(needle).any(|(i, _)| {
            let before = hay[..i].chars().next_back();
            let after = hay[i + needle.len()..].chars().next();
            before.is_none_or(|c| c == ' ' || c == '\n') && after.is_none_or(|c| c == ' ' || c == '\n')
        })
}

impl Provenance {
    /// What a run remembers from its block, for the person it acts for (their own id and email
    /// never count) and their request, which counts as read.
    pub fn new(
        cards: &[RememberedCard],
        lessons: &[RememberedLesson],
        person: Option<(&str, &str)>,
        request: &str,
    ) -> Self {
        // Sized for what a block usually holds, so the index is not grown again while it is built.
        let fields: usize = cards.iter().map(|c| c.fields.len() + 1).sum();
        let mut p = Self {
            remembered: HashMap::with_capacity(fields + lessons.len() * 4),
            names: Vec::new(),
            // About one run of words for every six bytes of text.
            texts: HashMap::with_capacity(lessons.iter().map(|l| l.text.len() / 6).sum()),
            hasher: RandomState::default(),
            origins: Vec::with_capacity(cards.len() + lessons.len()),
            read: HashSet::new(),
            read_words: NEVER.iter().map(|w| (*w).to_string()).collect(),
            read_sequence: String::new(),
        };
        for c in cards {
            let at = p.origin(format!("card:{}", c.card), Some(c.source.clone()));
            p.remember_values(&Folded::new(&c.record_id), at);
            for f in &c.fields {
                // Each value is folded once: its keys and its name's words are read from it.
                let folded = Folded::new(&f.value);
                p.remember_values(&folded, at);
                // Text someone outside wrote: what it names is remembered, not its words.
                if !f.free_text && names_by_field(&f.name) && !f.value.contains('@') {
                    let words = folded.name_words();
                    if !words.is_empty() && !words.iter().all(|w| w.bytes().all(|b| b.is_ascii_digit())) {
                        p.names.push((words, at));
                    }
                }
            }
        }
        for l in lessons {
            let at = p.origin(l.id.clone(), l.source.clone());
            let folded = Folded::new(&l.text);
            p.remember_values(&folded, at);
            if let Some(claim) = &l.claim {
                p.remember_values(&Folded::new(claim), at);
            }
            let words = folded.words();
            if words.len() < SHORT_TEXT {
                // Too few words to be anyone's text rather than everyone's.
            } else if words.len() <= TEXT_RUN {
                let h = p.hash_run(&words);
                p.texts.entry(h).or_insert(at);
            } else {
                for run in words.windows(TEXT_RUN) {
                    let h = p.hash_run(run);
                    p.texts.entry(h).or_insert(at);
                }
            }
        }
        if let Some((id, mail)) = person {
            p.read.extend(canon::keys_in(id));
            p.read.extend(canon::keys_in(mail));
        }
        p.read_text(request);
        p
    }

    fn hash_run(&self, words: &[String]) -> u64 {
        self.hasher.hash_one(words)
    }

    fn origin(&mut self, id: String, source: Option<String>) -> usize {
        self.origins.push(Origin { id, source });
        self.origins.len() - 1
    }

    fn remember_values(&mut self, text: &Folded, at: usize) {
        // A key met twice in one place is kept once: its places are pushed in order.
        for key in text.values().into_iter().flatten() {
            match self.remembered.entry(key) {
                Entry::Vacant(v) => {
                    v.insert(Places { first: at, more: Vec::new() });
                }
                Entry::Occupied(mut o) => {
                    let places = o.get_mut();
                    if places.more.last().copied().unwrap_or(places.first) != at {
                        places.more.push(at);
                    }
                }
            }
        }
    }

    /// A text the run read, or the person wrote: its values count as read from now on.
    pub fn read_text(&mut self, text: &str) {
        let folded = Folded::new(text);
        self.read.extend(folded.values().into_iter().flatten());
        self.read_sequence.push_str(&joined(&folded.words()));
        self.read_sequence.push('\n');
        self.read_words.extend(folded.name_words());
    }

    /// What a read in the run returned: every value in it counts as read from now on.
    pub fn read_value(&mut self, value: &Value) {
        let mut all = Vec::new();
        leaves(value, None, &mut all);
        for (_, s) in all {
            self.read_text(&s);
        }
    }

    /// Checks a planned step's arguments. A read is checked by `check_read`, with its source.
    pub fn check(&self, kind: StepKind, args: &Value) -> Result<(), Refusal> {
        if kind == StepKind::Read {
            return Ok(());
        }
        let mut values = Vec::new();
        leaves(args, None, &mut values);
        // The first refusal by where its value was remembered, then by the argument holding it; a
        // remembered value is named before one from nowhere.
        let mut refusals: Vec<((u8, usize, usize), Refusal)> = Vec::new();
        let refuse = |at: usize, text: &str, from: Option<usize>| {
            let (why, rank) = match from {
                Some(o) => (Why::Remembered, (0, o, at)),
                None => (Why::NotRead, (1, 0, at)),
            };
            (rank, Refusal { value: text.to_string(), from: from.map(|o| self.origins[o].id.clone()), why })
        };
        let mut all_words: HashSet<String> = HashSet::new();
        let mut leaf_words = Vec::with_capacity(values.len());
        for (at, (field, text)) in values.iter().enumerate() {
            let folded = Folded::new(text);
            for alternatives in folded.values() {
                if alternatives.iter().any(|k| self.read.contains(k)) {
                    continue;
                }
                let from = alternatives.iter().filter_map(|k| self.remembered.get(k).map(|p| p.first)).min();
                refusals.push(refuse(at, text, from));
            }
            let words = folded.name_words();
            // A name stands in a name's argument: it must be read, whatever it is.
            if field.as_deref().is_some_and(names_by_field) && !text.contains('@') {
                let name: Vec<String> =
                    words.iter().filter(|w| !w.bytes().all(|b| b.is_ascii_digit())).cloned().collect();
                if !name.is_empty() && !canon::name_within(&name, &self.read_words) {
                    let set: HashSet<String> = name.iter().cloned().collect();
                    let from = self.names.iter().find(|(n, _)| canon::name_within(n, &set)).map(|(_, o)| *o);
                    refusals.push(refuse(at, text, from));
                }
            }
            all_words.extend(words.iter().cloned());
            leaf_words.push(words);
        }
        // A remembered name, wherever its words stand: "Dana" in one argument and "Brooks" in
        // another still name Dana Brooks.
        for (name, o) in &self.names {
            if canon::name_within(name, &all_words) && !canon::name_within(name, &self.read_words) {
                let at = leaf_words.iter().position(|w| w.iter().any(|x| name.contains(x))).unwrap_or(0);
                refusals.push(refuse(at, &values[at].1, Some(*o)));
            }
        }
        refusals.into_iter().min_by_key(|(rank, _)| *rank).map_or(Ok(()), |(_, r)| Err(r))
    }

    /// Checks a read's arguments, for a read of `source`: it may carry what the run read, what the
    /// person wrote, and the values of that same source's cards, but never a lesson's text or
    /// values, nor a list's or another source's remembered values.
    pub fn check_read(&self, source: &str, args: &Value) -> Result<(), Refusal> {
        let mut values = Vec::new();
        leaves(args, None, &mut values);
        let from_elsewhere = |places: &[usize]| -> Option<usize> {
            if places.iter().any(|o| self.origins[*o].source.as_deref() == Some(source)) {
                return None;
            }
            places.first().copied()
        };
        let refuse = |text: &str, o: usize| Refusal {
            value: text.to_string(),
            from: Some(self.origins[o].id.clone()),
            why: Why::SendsRemembered,
        };
        let mut all_words: HashSet<String> = HashSet::new();
        for (_, text) in &values {
            let folded = Folded::new(text);
            for alternatives in folded.values() {
                if alternatives.iter().any(|k| self.read.contains(k)) {
                    continue;
                }
                let places: Vec<usize> =
                    alternatives.iter().filter_map(|k| self.remembered.get(k)).flat_map(Places::all).collect();
                if let Some(o) = from_elsewhere(&places) {
                    return Err(refuse(text, o));
                }
            }
            let words = folded.words();
            all_words.extend(folded.name_words());
            for run in (SHORT_TEXT..=TEXT_RUN).flat_map(|n| words.windows(n)) {
                if let Some(&o) = self.texts.get(&self.hash_run(run)) {
                    if !has_words(&self.read_sequence, &joined(run)) && from_elsewhere(&[o]).is_some() {
                        return Err(refuse(text, o));
                    }
                }
            }
        }
        for (name, o) in &self.names {
            if canon::name_within(name, &all_words)
                && !canon::name_within(name, &self.read_words)
                && from_elsewhere(&[*o]).is_some()
            {
                let text = values.iter().find(|(_, t)| canon::name_words(t).iter().any(|w| name.contains(w)));
                return Err(refuse(text.map_or("", |(_, t)| t.as_str()), *o));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
