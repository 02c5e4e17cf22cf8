//! What both backends share when they read runs, steps, events and list entries back: the text
//! columns (kinds, states, labels, JSON) parsed into the engine's types. A value that does not parse
//! is a broken row, reported as a backend error.

use engine::cards::access::DataLabel;
use engine::cards::facts::FactKind;
use engine::org::{AgentId, PersonId};
use engine::runs::check::CheckState;
use engine::runs::{Author, RunCheck, RunKind, RunState, StepKind};
use engine::store::StoreError;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn broken(what: &str, value: &str) -> StoreError {
    StoreError::Backend(format!("bad {what} {value:?}"))
}

pub(crate) fn run_kind(s: &str) -> Result<RunKind, StoreError> {
    RunKind::parse(s).ok_or_else(|| broken("run kind", s))
}

pub(crate) fn run_state(s: &str) -> Result<RunState, StoreError> {
    RunState::parse(s).ok_or_else(|| broken("run state", s))
}

pub(crate) fn step_kind(s: &str) -> Result<StepKind, StoreError> {
    StepKind::parse(s).ok_or_else(|| broken("step kind", s))
}

/// A run's check from its two columns; `None` before it answered.
pub(crate) fn run_check(state: Option<String>, reason: Option<String>) -> Result<Option<RunCheck>, StoreError> {
    state
        .map(|s| CheckState::parse(&s).map(|state| RunCheck { state, reason }).ok_or_else(|| broken("check state", &s)))
        .transpose()
}

pub(crate) fn fact_kind(s: &str) -> Result<FactKind, StoreError> {
    FactKind::parse(s).ok_or_else(|| broken("kind of fact", s))
}

pub(crate) fn label(s: &str) -> Result<DataLabel, StoreError> {
    DataLabel::parse(s).ok_or_else(|| broken("data label", s))
}

/// JSON text for a JSON column.
pub(crate) fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(format!("encode JSON: {e}")))
}

pub(crate) fn from_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Backend(format!("bad {what} JSON: {e}")))
}

/// The two author columns of a message: exactly one is set.
pub(crate) fn author_columns(author: &Author) -> (Option<i64>, Option<i64>) {
    match author {
        Author::Person(p) => (Some(p.0), None),
        Author::Agent(a) => (None, Some(a.0)),
    }
}

pub(crate) fn author(person: Option<i64>, agent: Option<i64>) -> Result<Author, StoreError> {
    match (person, agent) {
        (Some(p), None) => Ok(Author::Person(PersonId(p))),
        (None, Some(a)) => Ok(Author::Agent(AgentId(a))),
        _ => Err(StoreError::Backend("a message without exactly one author".into())),
    }
}

/// What a list entry is found by: the people it names and its own id, lowercased, without repeats.
pub(crate) fn entry_keys(entry: &engine::runs::whoswho::ListEntry) -> Vec<String> {
    let mut keys: Vec<String> =
        entry.names.iter().chain(entry.id.iter()).map(|k| k.trim().to_lowercase()).filter(|k| !k.is_empty()).collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Lookup keys as the side table holds them.
pub(crate) fn lookup_keys(keys: &[String]) -> Vec<String> {
    let mut out: Vec<String> = keys.iter().map(|k| k.trim().to_lowercase()).filter(|k| !k.is_empty()).collect();
    out.sort();
    out.dedup();
    out
}
