//! The event log admins read (a run's memory used, a check, a sign-in lock, a limit notice), and
//! the refs by which events and runs name the memory a run carried. Every area may write an event.

use super::ids::{MessageId, RunId, ThreadId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which core a run loaded, as its ref names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CoreRefScope {
    /// `{"company": "role:sales"}`
    Company(String),
    /// `{"team": 3}`
    Team(i64),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoreRef {
    pub scope: CoreRefScope,
    pub version: u32,
}

/// One thing a run's block carried, by id only. Serialised exactly as the seed gives them:
/// `{"core": {"scope": {"company": "role:sales"}, "version": 1}}`, `"slice"`,
/// `{"card": "card:<id>"}`, and later `{"lesson": "<id>"}` and `{"snapshot": "<id>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MemoryRef {
    Core(CoreRef),
    Slice,
    Card(String),
    Lesson(String),
    Snapshot(String),
}

/// An event a client may follow: ids and names only, never what memory says. Each name carries
/// only its own fields: `memory_used` its run, thread and refs; `message_checked` its thread,
/// message and state; `limit_may_be_too_long` its connector and kind of fact (as `state`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: i64,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<ThreadId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<MessageId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connector: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<MemoryRef>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewEvent {
    pub name: String,
    pub run: Option<RunId>,
    pub thread: Option<ThreadId>,
    pub message: Option<MessageId>,
    pub connector: Option<i64>,
    pub state: Option<String>,
    pub refs: Vec<MemoryRef>,
}
