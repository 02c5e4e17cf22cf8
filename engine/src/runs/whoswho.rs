//! Who's who: the slice of the organisation around the person a run acts for, and the structured
//! values of the who's-who reference lists that name them. Pure: the store and the list fetch
//! supply the inputs.

use crate::kernel::age_words;
pub use crate::org::store::Around;
use crate::org::Person;
use crate::quoting::quote_item;
use crate::tokens::TokenTally;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The words Details uses for the slice.
pub const SLICE_WORDS: &str = "Who's who: The people and teams around this work";

/// One entry of a who's-who reference list, as kept: structured values only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListEntry {
    pub connector: i64,
    /// The connector's name, the entry's source.
    pub source: String,
    /// The list (the tool that returned it): "list_territories".
    pub list: String,
    /// The entry's own id, when it has one.
    pub id: Option<String>,
    /// Kept values only: numbers, dates, ids, emails, codes, names of at most two words.
    pub values: Vec<(String, String)>,
    /// People it names exactly: emails, ids, members lists.
    pub names: Vec<String>,
    pub fetched_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SliceInput {
    pub person: Person,
    pub around: Around,
    /// People named as owners on the cards the same run loads.
    pub owners: Vec<Person>,
    /// List entries that name the person exactly.
    pub entries: Vec<ListEntry>,
    pub now: DateTime<Utc>,
}

/// One quoted line of the slice.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceLine {
    /// "person:3", "team:2", "list:4:list_territories:T-7"
    pub id: String,
    /// "directory", or the list's connector name.
    pub source: String,
    /// When it was read; `None` for the directory, which is current.
    pub read_at: Option<DateTime<Utc>>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slice {
    pub lines: Vec<SliceLine>,
    /// Whether any list entry loaded: the directory alone never loads on its own.
    pub has_list_entries: bool,
    /// Connector names of the entries that loaded, for the run's sources.
    pub sources: Vec<String>,
}

/// The slice, at most `budget` tokens: the person first, then their team and lead, manager,
/// teammates, owners on the loaded cards, and list entries.
///
/// The budget is counted on the lines as the block quotes them, so what the person's turn carries
/// is what was counted. It stops at the first line that does not fit (a line is never cut), and
/// lines past it are never written: a team of 10,000 costs what its first lines cost.
pub fn build_slice(input: &SliceInput, budget: u32) -> Slice {
    let mut filler = Filler { slice: Slice::default(), tally: TokenTally::default(), budget, now: input.now };
    let around = &input.around;
    let me = &input.person;

    let mut who = format!("{}: the person this work is for", named(me));
    if let Some(team) = &around.team {
        who.push_str(&format!(", in the team {}", team.name));
    }
    if let Some(role) = &around.team_role {
        who.push_str(&format!(", role {role}"));
    }
    if around.lead.as_ref().is_some_and(|l| l.id == me.id) {
        who.push_str(", leads their team");
    }
    if !filler.add(directory_line(format!("person:{}", me.id), who)) {
        return filler.slice;
    }
    if let Some(team) = &around.team {
        let mut text = format!("{}: their team", team.name);
        if let Some(role) = &around.team_role {
            text.push_str(&format!(", role {role}"));
        }
        if !filler.add(directory_line(format!("team:{}", team.id), text)) {
            return filler.slice;
        }
    }

    // One line per person however many ways they relate: a lead who is also the manager is named
    // once, "their team's lead and their manager". The person themselves is already named.
    let is = |who: &Option<Person>, p: &Person| who.as_ref().is_some_and(|w| w.id == p.id);
    let mut named_ids = vec![me.id];
    let people = around.lead.iter().chain(&around.manager).chain(&around.teammates).chain(&input.owners);
    for p in people {
        if named_ids.contains(&p.id) {
            continue;
        }
        named_ids.push(p.id);
        let mut whys = Vec::new();
        if is(&around.lead, p) {
            whys.push("their team's lead");
        }
        if is(&around.manager, p) {
            whys.push("their manager");
        }
        if around.teammates.iter().any(|t| t.id == p.id) {
            whys.push("a teammate");
        }
        if input.owners.iter().any(|o| o.id == p.id) {
            whys.push("named as owner on a card below");
        }
        if !filler.add(directory_line(format!("person:{}", p.id), format!("{}: {}", named(p), and_join(&whys)))) {
            return filler.slice;
        }
    }

    for (n, entry) in input.entries.iter().enumerate() {
        let key = entry.id.clone().unwrap_or_else(|| format!("#{n}"));
        let values: Vec<String> = entry.values.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let line = SliceLine {
            id: format!("list:{}:{}:{key}", entry.connector, entry.list),
            source: entry.source.clone(),
            read_at: Some(entry.fetched_at),
            text: format!("{} {key}: {}", entry.list, values.join(", ")),
        };
        if !filler.add(line) {
            break;
        }
        filler.slice.has_list_entries = true;
        if !filler.slice.sources.contains(&entry.source) {
            filler.slice.sources.push(entry.source.clone());
        }
    }
    filler.slice
}

struct Filler {
    slice: Slice,
    tally: TokenTally,
    budget: u32,
    now: DateTime<Utc>,
}

impl Filler {
    /// Adds the line when its quoted form still fits; false when the slice is full.
    fn add(&mut self, line: SliceLine) -> bool {
        let quoted = quote_item(&line.id, &line.source, &line_age(line.read_at, self.now), &line.text);
        if !self.tally.try_add(&quoted, self.budget) {
            return false;
        }
        self.slice.lines.push(line);
        true
    }
}

/// A slice line's age as the block quotes it: the directory is current, a list was read when it
/// was fetched.
pub fn line_age(read_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    match read_at {
        None => "current".to_string(),
        Some(at) => format!("read {}", age_words(at, now)),
    }
}

fn directory_line(id: String, text: String) -> SliceLine {
    SliceLine { id, source: "directory".to_string(), read_at: None, text }
}

fn named(p: &Person) -> String {
    let mut s = format!("{}, {}", p.name, p.email);
    if p.left_at.is_some() {
        s.push_str(" (has left the company)");
    }
    s
}

fn and_join(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The longest value kept as an id or a code, and as a name.
const CODE_MAX_CHARS: usize = 40;
const NAME_MAX_CHARS: usize = 60;
const NAME_WORD_MAX_CHARS: usize = 30;

/// Keeps only an entry's structured values; text someone outside wrote never reaches a run.
///
/// An object keeps each field whose key and value are structured; an array field (a members list)
/// keeps its structured items. A bare string or number is one value. Anything else (sentences,
/// notes, nested objects) is dropped whole, never shortened: a cut sentence is still a sentence.
pub fn keep_entry(connector: i64, source: &str, list: &str, entry: &Value, fetched_at: DateTime<Utc>) -> ListEntry {
    let mut kept = ListEntry {
        connector,
        source: source.to_string(),
        list: list.to_string(),
        id: None,
        values: Vec::new(),
        names: Vec::new(),
        fetched_at,
    };
    let fields: Vec<(&str, &Value)> = match entry {
        Value::Object(map) => map.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        other => vec![("value", other)],
    };
    for (key, value) in fields {
        let key = key.trim();
        if !(is_code(key) || is_short_name(key)) {
            continue;
        }
        let id_key = is_id_key(key);
        match value {
            Value::Array(items) => {
                let items: Vec<String> = items.iter().filter_map(structured).collect();
                if items.is_empty() {
                    continue;
                }
                // A list of people (members, owners) names each of them.
                for item in &items {
                    if is_email(item) || is_code(item) {
                        push_once(&mut kept.names, item);
                    }
                }
                kept.values.push((key.to_string(), items.join(", ")));
            }
            other => {
                let Some(v) = structured(other) else { continue };
                if key.eq_ignore_ascii_case("id") && kept.id.is_none() && is_code(&v) {
                    kept.id = Some(v.clone());
                    push_once(&mut kept.names, &v);
                }
                if is_email(&v) || (id_key && is_code(&v)) {
                    push_once(&mut kept.names, &v);
                }
                kept.values.push((key.to_string(), v));
            }
        }
    }
    kept
}

/// Whether an entry names the person exactly: by email, by id, or in a members list. Never by a
/// part of a value: "al" names nobody.
pub fn names(entry: &ListEntry, person: &Person, person_ids: &[String]) -> bool {
    let email = person.email.trim();
    entry.names.iter().any(|name| {
        (!email.is_empty() && is_email(name) && name.to_lowercase() == email.to_lowercase())
            || person_ids.iter().any(|id| !id.is_empty() && id == name)
    })
}

fn push_once(names: &mut Vec<String>, v: &str) {
    if !names.iter().any(|n| n == v) {
        names.push(v.to_string());
    }
}

/// A scalar value as kept, or `None` when it is not structured.
fn structured(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => {
            let s = s.trim();
            (is_email(s) || is_date(s) || is_code(s) || is_short_name(s)).then(|| s.to_string())
        }
        _ => None,
    }
}

/// Keys that hold a person's or a record's id: `id`, `owner_id`, `userId`, `member_ids`.
fn is_id_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k == "id" || k.ends_with("_id") || k.ends_with("_ids") || key.ends_with("Id") || key.ends_with("Ids")
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    s.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '"' | ','))
}

fn is_date(s: &str) -> bool {
    DateTime::parse_from_rfc3339(s).is_ok() || chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// An id or a code: short, one token, letters, digits and a few joiners ("T-7", "L-1001", "IN_KA").
fn is_code(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= CODE_MAX_CHARS
        && s.chars().any(|c| c.is_alphanumeric())
        && s.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '#' | '+'))
}

/// A name of at most two words, each of letters with the joiners names use ("Priya Nair",
/// "O'Brien", "Web form").
fn is_short_name(s: &str) -> bool {
    let words: Vec<&str> = s.split(' ').collect();
    !s.is_empty()
        && s.chars().count() <= NAME_MAX_CHARS
        && words.len() <= 2
        && words.iter().all(|w| {
            w.chars().count() <= NAME_WORD_MAX_CHARS
                && w.chars().next().is_some_and(|c| c.is_alphabetic())
                && w.chars().all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
        })
}

#[cfg(test)]
#[path = "whoswho_tests.rs"]
mod tests;
