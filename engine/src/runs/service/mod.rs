//! Asking an agent: the run's life from the question to the answer, and what people may read of it.

mod asking;
mod block_for;
mod check;
mod contradict;
mod execute;
mod external;
mod inbox;
mod prepare;
mod reading;
mod spans;

pub use execute::WAITING_FOR_APPROVAL;
pub use external::{ExternalBlock, ExternalCall, ExternalStart, ExternalTool, Outside, EXTERNAL_ANSWER_MAX_CHARS};
pub use inbox::{Inbox, InboxView, INBOX_PAGE};
pub use reading::Threads;

use super::lists::ReferenceLists;
use super::model::AgentModelChoice;
use super::{Event, MemoryRef, RunError, RunId, RunKind, ThreadId};
use crate::cards::service::RunCards;
use crate::org::{AgentId, Person};
use crate::runs::store::RunPorts;
use crate::Clock;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Model calls agents may make answering people in one UTC day, unless set otherwise.
pub const DEFAULT_ASK_MAX_PER_DAY: u32 = 2_000;

/// Resolves the chat model agents answer through on this machine.
pub trait AgentModels: Send + Sync {
    fn for_agent(&self, agent: &crate::org::Agent) -> AgentModelChoice;
}

/// Who asks: a person in a signed-in session, or with an API token (unwatched).
#[derive(Debug, Clone, PartialEq)]
pub struct Asker {
    pub person: Person,
    pub unwatched: bool,
}

/// An agent a person may ask, for the Ask page's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentChoice {
    pub id: AgentId,
    pub name: String,
    /// The agent's department role, "Sales"; `None` when it has none.
    pub role: Option<String>,
    /// The asker's own private agent.
    #[serde(default)]
    pub private: bool,
}

/// A run as its reader sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunView {
    pub id: RunId,
    pub thread: ThreadId,
    pub agent: AgentId,
    pub agent_name: String,
    pub kind: RunKind,
    /// "running", "answered", "failed", "retried"
    pub state: String,
    pub answer: Option<String>,
    pub failure: Option<String>,
    /// "internal"
    pub data_label: String,
    pub sources: Vec<String>,
    pub review_mode: bool,
    pub unwatched: bool,
    pub model: Option<String>,
    /// "Answered by the demo model: scripted replies, no language model", when it was.
    pub model_note: Option<String>,
    pub steps: Vec<StepView>,
    /// The refs of the Memory used step, as the seed shapes them.
    pub memory_used: Vec<MemoryRef>,
    /// The check of the answer, once it answered.
    pub check: Option<CheckView>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// Where an answer's check stands, as the thread page shows it under the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CheckView {
    /// "checking", "checked", "changed", "not_checked" or "not_needed".
    pub state: String,
    /// "Checked", "Not checked: Acme ATS is switched off".
    pub words: String,
    pub reason: Option<String>,
    /// One line per change: "stage: Proposal → Won (Acme ATS, read just now)".
    pub lines: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StepView {
    pub n: u32,
    /// "memory_used", "tool_call", "answer", "failed"
    pub kind: String,
    pub line: String,
    pub words: Vec<String>,
    pub refs: Vec<MemoryRef>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub id: i64,
    /// "Alice Chen", or the agent's name.
    pub author: String,
    pub from_agent: bool,
    pub text: String,
    pub at: DateTime<Utc>,
    /// For a person's message, or the instruction of a run nobody asked: its latest run (a
    /// retry's, once retried).
    pub run: Option<RunView>,
    /// For an agent's message: the run whose answer it is, shown with that run.
    #[serde(default)]
    pub answer_of: Option<RunId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadView {
    pub id: ThreadId,
    pub agent: AgentId,
    pub agent_name: String,
    pub title: String,
    pub messages: Vec<MessageView>,
    /// Whether any run is still running: the page looks again until none is.
    pub working: bool,
}

/// One line of a person's list of threads (the Ask page): what the line shows, not the messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub id: ThreadId,
    pub agent_name: String,
    pub title: String,
    /// When the question that opened it was asked.
    pub asked_at: Option<DateTime<Utc>>,
    /// Whether any run is still running or being checked, as [`ThreadView::working`].
    pub working: bool,
}

/// A run was recorded; `Runs::execute` takes it to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub thread: ThreadId,
    pub run: RunId,
}

/// A run that nobody asked in a thread: a schedule, a trigger, an eval or a consult.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    pub kind: RunKind,
    pub agent: AgentId,
    /// `None` acts for nobody.
    pub for_person: Option<Person>,
    pub question: String,
}

/// Runs a future in the background: the server hands in its runtime's spawn, so the engine needs
/// no runtime of its own.
pub type Spawn = Arc<dyn Fn(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) + Send + Sync>;

/// Asking: starting runs, retrying them and who sees only checked answers. Answering them, reading
/// threads and the Inbox are use cases of their own beside it.
#[derive(Clone)]
pub struct Runs {
    /// Reading threads and runs, as only their person may.
    pub threads: Threads,
    /// What runs would do that acts, waiting for their person.
    pub inbox: Inbox,
    /// Answering a recorded run, and the check after its answer.
    pub answering: Answering,
    store: Arc<dyn RunPorts>,
    clock: Arc<dyn Clock>,
    spawn: Option<Spawn>,
}

/// Answering a recorded run: its block, the model's turns and tool calls through the gate, and
/// the check after the answer.
#[derive(Clone)]
pub struct Answering {
    /// The block a run is given.
    pub blocks: Blocks,
    threads: Threads,
    store: Arc<dyn RunPorts>,
    clock: Arc<dyn Clock>,
    cards: RunCards,
    models: Arc<dyn AgentModels>,
    /// Model calls per agent per day, counted as reflect counts them.
    max_calls_per_day: u32,
    /// Where approved messages go; without one, agents are not offered `send_email`.
    outbox: Option<Arc<dyn super::outbox::Outbox>>,
    /// Where approved tasks go; without one, agents are not offered `create_task`.
    tasks: Option<Arc<dyn super::handon::TaskDesk>>,
}

/// The block a run is given: cores, who's who, cards, lists and lessons, read now.
#[derive(Clone)]
pub struct Blocks {
    store: Arc<dyn crate::runs::store::BlockPorts>,
    clock: Arc<dyn Clock>,
    cards: RunCards,
    lists: ReferenceLists,
    /// Reads again in the background what a block carried as unknown.
    spawn: Option<Spawn>,
    /// Where an embedder is configured: lessons rank by meaning beside their words.
    vectors: Option<crate::lessons::vectors::LessonVectors>,
}

/// The agent by id, or that there is none.
async fn agent_in<S: crate::org::store::OrgStore + ?Sized>(
    store: &S,
    id: AgentId,
) -> Result<crate::org::Agent, RunError> {
    store.agent(id).await?.ok_or_else(|| RunError::NotFound("There is no such agent".into()))
}

impl Runs {
    pub fn new(
        store: Arc<dyn RunPorts>,
        clock: Arc<dyn Clock>,
        cards: RunCards,
        lists: ReferenceLists,
        models: Arc<dyn AgentModels>,
        max_calls_per_day: u32,
    ) -> Self {
        let threads = Threads { store: store.clone() };
        let inbox =
            Inbox { store: store.clone(), clock: clock.clone(), cards: cards.clone(), outbox: None, tasks: None };
        let blocks = Blocks {
            store: store.clone(),
            clock: clock.clone(),
            cards: cards.clone(),
            lists,
            spawn: None,
            vectors: None,
        };
        let answering = Answering {
            blocks,
            threads: threads.clone(),
            store: store.clone(),
            clock: clock.clone(),
            cards,
            models,
            max_calls_per_day,
            outbox: None,
            tasks: None,
        };
        Self { threads, inbox, answering, store, clock, spawn: None }
    }

    /// With an outbox, agents acting for a person may send email, each message approved first.
    pub fn with_outbox(mut self, outbox: Arc<dyn super::outbox::Outbox>) -> Self {
        self.inbox.outbox = Some(outbox.clone());
        self.answering.outbox = Some(outbox);
        self
    }

    /// With the bots' boards, agents acting for a person may hand work on to a bot as a task,
    /// each one approved first.
    pub fn with_tasks(mut self, tasks: Arc<dyn super::handon::TaskDesk>) -> Self {
        self.inbox.tasks = Some(tasks.clone());
        self.answering.tasks = Some(tasks);
        self
    }

    /// With an embedder, the lessons a run loads rank by meaning beside their words: the question
    /// is embedded once per run, within the embedder's short timeout for questions.
    pub fn with_lesson_vectors(mut self, vectors: crate::lessons::vectors::LessonVectors) -> Self {
        self.answering.blocks.vectors = Some(vectors);
        self
    }

    /// With the server's spawn, `launch` answers runs in the background.
    pub fn with_spawn(mut self, spawn: Spawn) -> Self {
        self.answering.blocks.spawn = Some(spawn.clone());
        self.spawn = Some(spawn);
        self
    }

    /// Answers a recorded run in the background (`execute`), so a form post can redirect at once;
    /// a failure is logged, and the run itself says how it ended.
    pub fn launch(&self, run: RunId) {
        let Some(spawn) = &self.spawn else {
            tracing::warn!(%run, "no runtime to answer the run in the background; it stays recorded");
            return;
        };
        let answering = self.answering.clone();
        // The run outlives the request that started it: its span is a root linked to the request's.
        let run_span = spans::run(run, true);
        run_span.follows_from(tracing::Span::current());
        spawn(Box::pin(async move {
            if let Err(e) = answering.execute_in(run, run_span).await {
                tracing::warn!(%run, error = %e, "the run could not be answered");
            }
        }));
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl Answering {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl Blocks {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl AgentModelChoice {
    pub fn is_on(&self) -> bool {
        matches!(self, AgentModelChoice::Use(_))
    }
}
