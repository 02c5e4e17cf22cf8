//! Runs: a person asks one of the company's agents, and the run is given its memory block.
//!
//! A thread holds messages. A run is one agent working on one message, for one person or for
//! nobody (a schedule, a trigger). Its steps say in words what it did; the Memory used step and
//! the `memory_used` event carry ids only, never what the memory says.

pub mod agent_tokens;
pub mod block;
pub mod check;
pub mod cost;
pub mod handon;
pub mod inbox;
pub mod lists;
pub mod model;
pub mod outbox;
pub mod provenance;
pub mod schedules;
pub mod service;
pub mod store;
pub mod whoswho;

use crate::kernel::DataLabel;
use crate::org::{AgentId, PersonId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::kernel::events::{CoreRef, CoreRefScope, Event, MemoryRef, NewEvent};
pub use crate::kernel::ids::{MessageId, RunId, ThreadId};

/// The longest question a person may ask in one message.
pub const QUESTION_MAX_CHARS: usize = 4_000;
/// How many model turns one run may take before it stops: each tool call is a step.
pub const MAX_TOOL_STEPS: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// A person asked.
    Ask,
    /// A schedule or a trigger: acting for nobody.
    Schedule,
    /// An eval: carries no memory block.
    Eval,
    /// An agent consulted by another, or the lead of a combined ask: keeps no memory of its own.
    Consult,
    /// An outside agent (over MCP or the REST pair) uses one company agent's memory and gate: it
    /// takes the block, reads and acts through Engram one call at a time, and finishes with its
    /// answer, which is checked. No model of Engram's answers it.
    External,
}

crate::string_enum!(RunKind {
    Ask => "ask",
    Schedule => "schedule",
    Eval => "eval",
    Consult => "consult",
    External => "external",
});

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Recorded and not finished: the thread page shows it as working.
    Running,
    Answered,
    /// Ended plainly ("The model did not answer: …"); Try again starts it over.
    Failed,
    /// Closed because a retry took its place; kept, never deleted.
    Retried,
}

crate::string_enum!(RunState {
    Running => "running",
    Answered => "answered",
    Failed => "failed",
    Retried => "retried",
});

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// What the block carried: ids only.
    MemoryUsed,
    /// One call of a connector's read tool.
    ToolCall,
    /// A tool that acts, called with a value the run only remembered: refused, and the model
    /// told so, so that it can read first.
    Refused,
    /// A tool that acts, put in the person's Inbox to approve or decline.
    Waiting,
    /// The model's answer.
    Answer,
    /// The model failed or timed out, or the tool loop ran out of steps.
    Failed,
    /// The check after the answer: what it read again and what changed.
    Checked,
}

crate::string_enum!(StepKind {
    MemoryUsed => "memory_used",
    ToolCall => "tool_call",
    Refused => "refused",
    Waiting => "waiting",
    Answer => "answer",
    Failed => "failed",
    Checked => "checked",
});

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub n: u32,
    pub kind: StepKind,
    /// For people: "Read from memory: 1 core and who's who", "Read lead L-1001 from Acme ATS".
    pub line: String,
    /// What Details lists under the line, in words ("Sales company core, version 1").
    pub words: Vec<String>,
    pub refs: Vec<MemoryRef>,
    /// What the step needs to be taken again (a tool call's name, arguments and result), for the
    /// person the run is for; never shown to anyone else, never in an event.
    pub detail: Option<serde_json::Value>,
    pub at: DateTime<Utc>,
}

/// A new step, before the store numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewStep {
    pub kind: StepKind,
    pub line: String,
    pub words: Vec<String>,
    pub refs: Vec<MemoryRef>,
    pub detail: Option<serde_json::Value>,
}

impl NewStep {
    /// The step with every secret in its line, words and detail masked (`AKIA…MPLE`): a tool's
    /// result may hold a credential the source kept, and a run's steps are kept for good.
    pub fn masked(mut self) -> Self {
        self.line = crate::secrets::masked(&self.line).into_owned();
        for w in &mut self.words {
            *w = crate::secrets::masked(w).into_owned();
        }
        if let Some(detail) = &mut self.detail {
            crate::secrets::mask_json(detail);
        }
        self
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: RunId,
    pub thread: ThreadId,
    /// The person's message this run works on.
    pub message: MessageId,
    pub agent: AgentId,
    /// `None` for a run acting for nobody.
    pub for_person: Option<PersonId>,
    pub kind: RunKind,
    pub state: RunState,
    /// Asked with an API token: nobody watches it, so its answer is checked before it returns.
    pub unwatched: bool,
    /// The highest label of what the block and the run's reads carried.
    pub data_label: DataLabel,
    /// Where what it carried came from: "directory", connector names.
    pub sources: Vec<String>,
    /// A free-text field loaded, as a live read of outside text would.
    pub review_mode: bool,
    /// `<provider>/<model>` of the model that answered, or the demo model's name.
    pub model: Option<String>,
    pub answer: Option<String>,
    /// The plain message of a failed run ("The model did not answer: …").
    pub failure: Option<String>,
    /// The run a retry took the place of.
    pub retry_of: Option<RunId>,
    /// The check of its answer, once it answered.
    pub check: Option<RunCheck>,
    /// Its role or team shows only checked answers: the answer waits for its check.
    pub checked_only: bool,
    pub steps: Vec<Step>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl Run {
    /// Its answer is being checked now.
    pub fn checking(&self) -> bool {
        self.check.as_ref().is_some_and(|c| c.state == check::CheckState::Checking)
    }

    /// Its answer shows only once checked, and the check has not finished: nobody watches it (an
    /// API token's or a command's ask), or its role or team shows only checked answers. Every
    /// reader of a run (the run and thread APIs, the pages, the command) goes through this.
    pub fn held_for_check(&self) -> bool {
        (self.checked_only || self.unwatched) && self.checking()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewRun {
    pub thread: ThreadId,
    pub message: MessageId,
    pub agent: AgentId,
    pub for_person: Option<PersonId>,
    pub kind: RunKind,
    pub unwatched: bool,
    pub retry_of: Option<RunId>,
}

/// Where the check of a run's answer stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCheck {
    pub state: check::CheckState,
    /// Why it was not checked.
    pub reason: Option<String>,
}

/// How a run ended, as the store records it in one write.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    pub state: RunState,
    pub answer: Option<String>,
    pub failure: Option<String>,
    pub model: Option<String>,
    pub data_label: DataLabel,
    pub sources: Vec<String>,
    pub review_mode: bool,
    /// For an answer: "checking", or "not needed" when nothing it used was due.
    pub check: Option<check::CheckState>,
    pub checked_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    Person(PersonId),
    Agent(AgentId),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: MessageId,
    pub thread: ThreadId,
    pub author: Author,
    pub text: String,
    pub at: DateTime<Utc>,
    /// For an agent's message: the run whose answer it is.
    #[serde(default)]
    pub answer_of: Option<RunId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub id: ThreadId,
    pub agent: AgentId,
    /// Whom the thread is for; `None` for runs acting for nobody.
    pub person: Option<PersonId>,
    /// The first question, cut short, for lists.
    pub title: String,
    pub created_at: DateTime<Utc>,
}

/// One line of a person's list of threads, read for the whole list at once: the thread with its
/// agent's name, when its first message was written, and whether a run of it is still working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadLine {
    pub id: ThreadId,
    pub agent: AgentId,
    /// `None` when the agent is no longer there.
    pub agent_name: Option<String>,
    pub title: String,
    /// When the first message was written: the question that opened the thread.
    pub asked_at: Option<DateTime<Utc>>,
    /// Some run is running, or its answer is being checked.
    pub working: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Bad input, in words for the person ("Write a question first").
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    NotAllowed(String),
    /// Someone else (or another click) got there first: "This was already decided".
    #[error("{0}")]
    Changed(String),
    /// Refused because only a signed-in session may do it.
    #[error("This needs a signed-in session, not an API token")]
    SessionRequired,
    #[error("storage: {0}")]
    Store(String),
}

/// A card's refusal stays the person's to read: only the cards' own failures become internal.
impl From<crate::cards::service::MemoryError> for RunError {
    fn from(e: crate::cards::service::MemoryError) -> Self {
        use crate::cards::service::MemoryError;
        match e {
            MemoryError::NotFound(s) => RunError::NotFound(s),
            MemoryError::NotAllowed(s) => RunError::NotAllowed(s),
            MemoryError::Invalid(s) => RunError::Invalid(s),
            MemoryError::Secret(refusal) => RunError::Invalid(refusal.to_string()),
            MemoryError::Internal(detail) => RunError::Store(detail),
        }
    }
}

impl From<crate::kernel::StoreError> for RunError {
    fn from(e: crate::kernel::StoreError) -> Self {
        match e {
            crate::kernel::StoreError::NotFound(s) => RunError::NotFound(s),
            other => RunError::Store(other.to_string()),
        }
    }
}

impl crate::error::UserSafe for RunError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            RunError::Invalid(_) => crate::error::ErrorKind::Invalid,
            RunError::NotFound(_) => crate::error::ErrorKind::NotFound,
            RunError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            RunError::Changed(_) => crate::error::ErrorKind::Conflict,
            RunError::SessionRequired => crate::error::ErrorKind::Unauthorized,
            RunError::Store(_) => crate::error::ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            RunError::Invalid(_) => "invalid",
            RunError::NotFound(_) => "not_found",
            RunError::NotAllowed(_) => "not_allowed",
            RunError::Changed(_) => "changed",
            RunError::SessionRequired => "session_required",
            RunError::Store(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            RunError::Store(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod step_tests {
    use super::*;

    #[test]
    fn a_tool_result_holding_a_secret_is_kept_masked_in_its_step() {
        let key = ["AKIA", "IOSFODNN7EXAMPLE"].concat();
        let step = NewStep {
            kind: StepKind::ToolCall,
            line: format!("Read with get_lead from Acme ATS: {key}"),
            words: vec![format!("key {key}")],
            refs: vec![],
            detail: Some(serde_json::json!({
                "call": {"name": "acme_ats.get_lead", "arguments": {"id": "L-1042"}},
                "result": format!("<data>{{\"notes\": \"portal {key}\"}}</data>"),
            })),
        }
        .masked();
        assert_eq!(step.line, "Read with get_lead from Acme ATS: AKIA…MPLE");
        assert_eq!(step.words, ["key AKIA…MPLE"]);
        let detail = step.detail.unwrap();
        assert_eq!(detail["result"], "<data>{\"notes\": \"portal AKIA…MPLE\"}</data>");
        assert_eq!(detail["call"]["arguments"]["id"], "L-1042");
        assert!(!detail.to_string().contains(&key));
    }
}

#[cfg(test)]
mod error_tests {
    use super::*;
    use crate::cards::service::MemoryError;
    use crate::error::{ErrorKind, UserSafe, INTERNAL_MESSAGE};

    /// A run that meets a card's refusal says the refusal, as the card worded it; only the
    /// cards' own failures are internal.
    #[test]
    fn a_cards_refusal_reaches_the_person_as_worded_and_only_failures_are_internal() {
        let cases = [
            (MemoryError::NotAllowed("Only Dana may read this card".into()), ErrorKind::NotAllowed),
            (MemoryError::NotFound("There is no card #9".into()), ErrorKind::NotFound),
            (MemoryError::Invalid("Name a connector".into()), ErrorKind::Invalid),
        ];
        for (card, kind) in cases {
            let words = card.to_string();
            let run = RunError::from(card);
            assert_eq!((run.kind(), run.user_message()), (kind, words));
            assert_eq!(run.internal_detail(), None);
        }
        let failed = RunError::from(MemoryError::Internal("pool timed out".into()));
        assert_eq!(failed.user_message(), INTERNAL_MESSAGE);
        assert_eq!(failed.internal_detail().as_deref(), Some("pool timed out"));
    }
}
