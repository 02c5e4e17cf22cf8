//! Never act from memory: where each value of a planned step came from, and the refusal of a step
//! that would write, send, pay, act or hand on a value the run only remembered.
//!
//! Seed 001, "Never act from memory": what counts as from memory is any value naming a record (its
//! id, name, email, phone, any id-like value), a loaded lesson's claim, and the ids, emails and
//! numbers of three digits or more in a lesson's text; a card's other values count only in a step
//! that names that card's record. A value the run read, or that is in the person's own request,
//! counts as read. "me", "today", "now" and the person's own id and email never count.
//!
//! Values are matched normalised: emails by case and whitespace, phone numbers by their digits.
//! A remembered value that the run has since read is read: memory only decides what to read.

use crate::cards::source::CardField;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The sentence a refused step shows, and the model is told so that it can read first.
pub const REFUSED: &str = "This uses a remembered value; read the source first";

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

impl StepKind {
    fn guarded(self) -> bool {
        self != StepKind::Read
    }
}

/// A card a run's block carried, as provenance needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberedCard {
    pub card: i64,
    pub record_id: String,
    pub fields: Vec<CardField>,
}

/// A lesson a run's block carried (or a list snapshot's record ids, remembered the same way).
#[derive(Debug, Clone, PartialEq)]
pub struct RememberedLesson {
    /// `lesson:<id>` or `snapshot:<id>`, as a refusal names it.
    pub id: String,
    pub text: String,
    /// The value its claim says a record holds.
    pub claim: Option<String>,
}

/// Why a step was refused: the sentence, and for the run's details which value and whence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The argument's value that came from memory, as the plan gave it.
    pub value: String,
    /// `card:<id>` or `lesson:<id>`.
    pub from: String,
}

impl Refusal {
    pub fn sentence(&self) -> &'static str {
        REFUSED
    }
}

/// One value, in the form it is compared in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Atom {
    /// Lowercased, without whitespace.
    Email(String),
    /// Its digits, seven or more.
    Phone(String),
    /// Lowercased: a token mixing letters and digits, or digits joined by dashes.
    Id(String),
    /// Digits alone, three or more.
    Number(String),
    /// Lowercased words joined by one space: a name, or a value compared whole.
    Text(String),
}

/// Where a remembered value sits: on a card (naming its record, or another of its values) or in
/// a lesson; `order` keeps the order values were remembered in, so the refusal named is always
/// the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// (card, 0 naming or 1 other)
    Card(usize, u8),
    Lesson(usize),
}

#[derive(Debug, Clone)]
struct Hit {
    place: Place,
    order: usize,
    /// The whole remembered atom, when the index holds only its first words (a long claim).
    long: Option<Atom>,
}

/// What a run remembers and what it has read, so far. Built from the run's block; each read the
/// run makes is added as it returns. Remembered values are indexed once, so checking a step
/// costs what its arguments hold, not what the block holds.
#[derive(Debug, Clone)]
pub struct Provenance {
    index: HashMap<Atom, Vec<Hit>>,
    /// `card:<id>` of each card, `lesson:<id>` of each lesson.
    cards: Vec<String>,
    lessons: Vec<String>,
    /// The most words a remembered name has, up to `MAX_GRAM`: the longest run of an argument's
    /// words worth looking up.
    longest: usize,
    read: HashSet<Atom>,
    /// Everything read, as lowercased words, for names and claims read inside longer text.
    read_text: String,
    never: HashSet<Atom>,
}

/// A text as the words it is compared by: lowercased tokens joined by one space. A token keeps
/// the characters that join an email, an id or a domain, so "litware" is not a word of
/// "dana@litware.example".
fn words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for token in s.split(|c: char| !(c.is_alphanumeric() || "@.-_+'".contains(c))) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        if token.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(token.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Whether `hay` (words) holds `needle` (words) as whole words.
fn has_words(hay: &str, needle: &str) -> bool {
    !needle.is_empty()
        && hay.match_indices(needle).any(|(i, _)| {
            let before = hay[..i].chars().next_back();
            let after = hay[i + needle.len()..].chars().next();
            before.is_none_or(|c| c == ' ' || c == '\n') && after.is_none_or(|c| c == ' ' || c == '\n')
        })
}

fn email(s: &str) -> Option<String> {
    if !s.contains('@') {
        return None;
    }
    let e = s.trim().to_lowercase();
    let e = e.trim_matches(|c: char| !c.is_alphanumeric());
    let (local, domain) = e.split_once('@')?;
    let ok = !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && e.chars().all(|c| c.is_alphanumeric() || "@.-_+".contains(c));
    ok.then(|| e.to_string())
}

/// A phone number's digits, the last ten of them: the same number is written with its country
/// code or without it.
fn phone(s: &str) -> Option<String> {
    let s = s.trim();
    // Most values are not phone-like at all: decided before any digit is copied.
    if !s.bytes().all(|b| b.is_ascii_digit() || b" +-().".contains(&b)) {
        return None;
    }
    // Counted first, so an amount or a short code is never copied.
    let count = s.bytes().filter(u8::is_ascii_digit).count();
    if count < 7 {
        return None;
    }
    let mut digits: String = s.bytes().filter(u8::is_ascii_digit).map(char::from).collect();
    digits.drain(..count.saturating_sub(10));
    Some(digits)
}

fn id_like(s: &str) -> Option<String> {
    let s = s.trim();
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let allowed = s.chars().all(|c| c.is_alphanumeric() || "-_:/.#".contains(c));
    let digit = s.chars().any(|c| c.is_ascii_digit());
    let letter = s.chars().any(|c| c.is_alphabetic());
    let joined = s.chars().any(|c| "-_:/#".contains(c)) && s.chars().filter(char::is_ascii_digit).count() >= 2;
    (allowed && s.len() >= 3 && digit && (letter || joined)).then(|| s.to_lowercase())
}

fn number(s: &str) -> Option<String> {
    let s = s.trim();
    (s.len() >= 3 && s.chars().all(|c| c.is_ascii_digit())).then(|| s.to_string())
}

/// A whole value as one atom: the most specific kind it is.
fn whole(s: &str) -> Option<Atom> {
    if s.trim().is_empty() {
        return None;
    }
    email(s)
        .map(Atom::Email)
        .or_else(|| phone(s).map(Atom::Phone))
        .or_else(|| number(s).map(Atom::Number))
        .or_else(|| id_like(s).map(Atom::Id))
        .or_else(|| Some(Atom::Text(words(s))))
}

/// The emails, phone numbers, ids and numbers inside a longer text.
fn atoms_in(text: &str) -> Vec<Atom> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || ",;<>\"'()[]{}".contains(c)) {
        let token = token.trim_end_matches(['.', '!', '?', ':']);
        // Emails, ids and numbers all hold an @ or a digit; most words hold neither.
        if token.is_empty() || !token.bytes().any(|b| b == b'@' || b.is_ascii_digit()) {
            continue;
        }
        if let Some(e) = email(token) {
            out.push(Atom::Email(e));
        } else if let Some(n) = number(token) {
            out.push(Atom::Number(n));
        } else if let Some(id) = id_like(token) {
            out.push(Atom::Id(id));
        }
    }
    // A phone number is often written with spaces, so it is looked for across tokens.
    if text.bytes().filter(u8::is_ascii_digit).count() < 7 {
        return out;
    }
    let mut run = String::new();
    let mut digits = 0;
    for c in text.chars().chain(std::iter::once('\n')) {
        if c.is_ascii_digit() || (!run.is_empty() && " +-().".contains(c)) || (run.is_empty() && c == '+') {
            run.push(c);
            digits += usize::from(c.is_ascii_digit());
        } else {
            if digits >= 7 {
                if let Some(p) = phone(&run) {
                    out.push(Atom::Phone(p));
                }
            }
            run.clear();
            digits = 0;
        }
    }
    out
}

/// Whether a field names its record by what it is called, whatever its value looks like.
fn names_by_field(name: &str) -> bool {
    let n = name.as_bytes();
    (n.len() >= 4 && n[n.len() - 4..].eq_ignore_ascii_case(b"name"))
        || ["company", "contact", "email", "phone"].iter().any(|f| name.eq_ignore_ascii_case(f))
}

fn naming_atom(f: &CardField) -> Option<Atom> {
    let v = f.value.trim();
    if let Some(e) = email(v) {
        return Some(Atom::Email(e));
    }
    if let Some(p) = phone(v) {
        return Some(Atom::Phone(p));
    }
    if let Some(id) = id_like(v) {
        return Some(Atom::Id(id));
    }
    (names_by_field(&f.name) && !v.is_empty()).then(|| Atom::Text(words(v)))
}

/// The string leaves of a plan's arguments or a read's result; numbers as written.
fn leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|v| leaves(v, out)),
        Value::Object(m) => m.values().for_each(|v| leaves(v, out)),
        Value::Bool(_) | Value::Null => {}
    }
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
            index: HashMap::with_capacity(fields + lessons.len() * 4),
            cards: cards.iter().map(|c| format!("card:{}", c.card)).collect(),
            lessons: lessons.iter().map(|l| l.id.clone()).collect(),
            longest: 1,
            read: HashSet::new(),
            read_text: String::new(),
            never: HashSet::new(),
        };
        let mut order = 0;
        for (i, c) in cards.iter().enumerate() {
            p.remember(
                whole(&c.record_id).unwrap_or(Atom::Id(c.record_id.to_lowercase())),
                Place::Card(i, 0),
                &mut order,
            );
            for f in &c.fields {
                if f.free_text {
                    // Text someone outside wrote: what it names is remembered, not its words.
                    for atom in atoms_in(&f.value) {
                        p.remember(atom, Place::Card(i, 1), &mut order);
                    }
                } else if let Some(atom) = naming_atom(f) {
                    p.remember(atom, Place::Card(i, 0), &mut order);
                } else if let Some(atom) = whole(&f.value).filter(|_| f.value.trim().chars().count() >= 3) {
                    // Shorter values ("no", "2") would match almost any message.
                    p.remember(atom, Place::Card(i, 1), &mut order);
                }
            }
        }
        for (i, l) in lessons.iter().enumerate() {
            p.remember(Atom::Text(words(&l.text)), Place::Lesson(i), &mut order);
            for atom in atoms_in(&l.text) {
                p.remember(atom, Place::Lesson(i), &mut order);
            }
            if let Some(atom) = l.claim.as_deref().and_then(whole) {
                p.remember(atom, Place::Lesson(i), &mut order);
            }
        }
        p.never = ["me", "today", "now"].iter().map(|w| Atom::Text((*w).to_string())).collect();
        if let Some((id, mail)) = person {
            p.never.extend(whole(id));
            p.never.extend(email(mail).map(Atom::Email));
        }
        p.read_text(request);
        p
    }

    fn remember(&mut self, atom: Atom, place: Place, order: &mut usize) {
        *order += 1;
        let (key, long) = match &atom {
            Atom::Text(t) if t.is_empty() => return,
            Atom::Text(t) => {
                let n = t.split(' ').count();
                self.longest = self.longest.max(n.min(MAX_GRAM));
                if n > MAX_GRAM {
                    let prefix = t.split(' ').take(MAX_GRAM).collect::<Vec<_>>().join(" ");
                    (Atom::Text(prefix), Some(atom.clone()))
                } else {
                    (atom, None)
                }
            }
            _ => (atom, None),
        };
        self.index.entry(key).or_default().push(Hit { place, order: *order, long });
    }

    /// A text the run read, or the person wrote: its values count as read from now on.
    pub fn read_text(&mut self, text: &str) {
        self.read.extend(whole(text));
        self.read.extend(atoms_in(text));
        self.read_text.push_str(&words(text));
        self.read_text.push('\n');
    }

    /// What a read in the run returned: every value in it counts as read from now on.
    pub fn read_value(&mut self, value: &Value) {
        let mut all = Vec::new();
        leaves(value, &mut all);
        for s in all {
            self.read_text(&s);
        }
    }

    fn is_read(&self, atom: &Atom) -> bool {
        self.never.contains(atom)
            || self.read.contains(atom)
            || match atom {
                Atom::Text(t) => has_words(&self.read_text, t),
                _ => false,
            }
    }

    /// Checks a planned step's arguments. A read may take any value: memory decides what to read.
    pub fn check(&self, kind: StepKind, args: &Value) -> Result<(), Refusal> {
        if !kind.guarded() || self.index.is_empty() {
            return Ok(());
        }
        let args = Args::of(args, self.longest);
        // Every remembered value the arguments hold: (where, its order, the value holding it, read).
        let mut found: Vec<(Place, usize, usize, bool)> = Vec::new();
        for (key, at) in args.keys() {
            let Some(hits) = self.index.get(key) else { continue };
            for hit in hits {
                let atom = match &hit.long {
                    // Only the first words matched: the whole claim must be in that same value.
                    Some(long @ Atom::Text(t)) if has_words(&args.texts[at], t) => long,
                    Some(_) => continue,
                    None => key,
                };
                found.push((hit.place, hit.order, at, self.is_read(atom)));
            }
        }
        // A card's other values count only when the step names its record, read or not.
        let named: HashSet<usize> = found
            .iter()
            .filter_map(|(place, ..)| match place {
                Place::Card(i, 0) => Some(*i),
                _ => None,
            })
            .collect();
        found
            .into_iter()
            .filter(|(place, _, _, read)| {
                !read
                    && match place {
                        Place::Card(i, 1) => named.contains(i),
                        _ => true,
                    }
            })
            .min_by_key(|(place, order, at, _)| (*place, *order, *at))
            .map_or(Ok(()), |(place, _, at, _)| {
                let from = match place {
                    Place::Card(i, _) => self.cards[i].clone(),
                    Place::Lesson(i) => self.lessons[i].clone(),
                };
                Err(Refusal { value: args.values[at].clone(), from })
            })
    }
}

/// The longest name looked up by its words at once; a longer text (a lesson's claim) is looked
/// for inside each value's words.
const MAX_GRAM: usize = 6;

/// A planned step's arguments, indexed once, so each remembered value is a lookup: the atoms of
/// each value, and its runs of up to `MAX_GRAM` words.
struct Args {
    values: Vec<String>,
    atoms: HashMap<Atom, usize>,
    grams: HashMap<Atom, usize>,
    texts: Vec<String>,
}

impl Args {
    fn of(args: &Value, longest: usize) -> Self {
        let mut values = Vec::new();
        leaves(args, &mut values);
        let (mut atoms, mut grams, mut texts) = (HashMap::new(), HashMap::new(), Vec::new());
        for (i, v) in values.iter().enumerate() {
            for atom in whole(v).into_iter().chain(atoms_in(v)) {
                atoms.entry(atom).or_insert(i);
            }
            let text = words(v);
            let tokens: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
            for start in 0..tokens.len() {
                for end in start + 1..=(start + longest).min(tokens.len()) {
                    grams.entry(Atom::Text(tokens[start..end].join(" "))).or_insert(i);
                }
            }
            texts.push(text);
        }
        Self { values, atoms, grams, texts }
    }

    /// Every atom and run of words in the arguments, with the first value holding it.
    fn keys(&self) -> impl Iterator<Item = (&Atom, usize)> {
        self.atoms.iter().chain(self.grams.iter()).map(|(a, i)| (a, *i))
    }
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
