//! Who's who: the slice of the organisation around the person a run acts for, and the structured
//! values of the who's-who reference lists that name them. Pure: the store and the list fetch
//! supply the inputs.

use crate::org::{Person, Team};
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

/// What the store reads around a person for the slice.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Around {
    pub team: Option<Team>,
    pub team_role: Option<String>,
    pub lead: Option<Person>,
    pub manager: Option<Person>,
    /// Bounded by the store; the slice's budget cuts further.
    pub teammates: Vec<Person>,
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
pub fn build_slice(input: &SliceInput, budget: u32) -> Slice {
    todo!("block helper: build_slice {budget} {}", input.person.id)
}

/// Keeps only an entry's structured values; text someone outside wrote never reaches a run.
pub fn keep_entry(connector: i64, source: &str, list: &str, entry: &Value, fetched_at: DateTime<Utc>) -> ListEntry {
    todo!("block helper: keep_entry {connector} {source} {list} {entry} {fetched_at}")
}

/// Whether an entry names the person exactly: by email, by id, or in a members list.
pub fn names(entry: &ListEntry, person: &Person, person_ids: &[String]) -> bool {
    todo!("block helper: names {} {} {}", entry.list, person.id, person_ids.len())
}
