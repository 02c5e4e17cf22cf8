//! The storage trait for threads, runs, their steps and events.

use super::check::{CheckEnd, LimitNotice};
use super::{
    Event, Message, MessageId, NewEvent, NewRun, NewStep, Run, RunEnd, RunId, Step, Thread, ThreadId, ThreadLine,
};
use crate::kernel::StoreError;
use crate::org::{AgentId, PersonId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

#[async_trait]
pub trait RunStore: Send + Sync {
    /// A new thread with its first message, in one write.
    async fn create_thread(
        &self,
        agent: AgentId,
        person: Option<PersonId>,
        title: &str,
        first: &super::Author,
        text: &str,
        at: DateTime<Utc>,
    ) -> Result<(Thread, Message), StoreError>;
    async fn add_message(
        &self,
        thread: ThreadId,
        author: &super::Author,
        text: &str,
        at: DateTime<Utc>,
    ) -> Result<Message, StoreError>;
    async fn thread(&self, id: ThreadId) -> Result<Option<Thread>, StoreError>;
    /// The thread's messages, oldest first.
    async fn messages(&self, thread: ThreadId) -> Result<Vec<Message>, StoreError>;
    /// A person's threads, newest first.
    async fn threads_for(&self, person: PersonId, limit: u32) -> Result<Vec<Thread>, StoreError>;

    async fn create_run(&self, run: &NewRun, at: DateTime<Utc>) -> Result<Run, StoreError>;
    /// The run with its steps in order.
    async fn run(&self, id: RunId) -> Result<Option<Run>, StoreError>;
    /// Every run of a thread (retried ones too), oldest first, with their steps.
    async fn runs_of_thread(&self, thread: ThreadId) -> Result<Vec<Run>, StoreError>;
    /// Appends a step numbered after the run's last; returns it numbered.
    async fn add_step(&self, run: RunId, step: &NewStep, at: DateTime<Utc>) -> Result<Step, StoreError>;
    /// Ends a running run, and, when it answered, adds the agent's message to the thread, in one
    /// write. `Changed` when the run is no longer running (another server ended it).
    async fn end_run(&self, run: RunId, end: &RunEnd, at: DateTime<Utc>) -> Result<Run, StoreError>;
    /// Closes a failed or answered run because `by` took its place; it is kept, never deleted.
    async fn close_retried(&self, run: RunId, by: RunId, at: DateTime<Utc>) -> Result<(), StoreError>;
    /// Runs still running that started before `before`: a server stopped under them.
    async fn stale_runs(&self, before: DateTime<Utc>) -> Result<Vec<RunId>, StoreError>;

    async fn record_event(&self, event: &NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError>;
    /// Events with an id above `after`, oldest first, at most `limit`.
    async fn events_after(&self, after: i64, limit: u32) -> Result<Vec<Event>, StoreError>;
    /// Records the check of an answered run in one write: its state and reason, its step, what
    /// it found per connector and kind of fact, the `message_checked` event naming the answer's
    /// message, and, once per connector and kind, the notice that a limit may be too long (with
    /// its event) when more than 2% of the latest 100 checks of that kind found a change.
    /// Returns the notices this check raised. `Changed` when the run's check is not "checking".
    async fn record_check(&self, run: RunId, end: &CheckEnd, at: DateTime<Utc>)
        -> Result<Vec<LimitNotice>, StoreError>;
    /// Answered runs still "checking" that ended before `before`: a server stopped under their
    /// check.
    async fn stale_checks(&self, before: DateTime<Utc>) -> Result<Vec<RunId>, StoreError>;
    /// A connector's notices that a limit may be too long, by kind of fact.
    async fn limit_notices(&self, connector: i64) -> Result<Vec<LimitNotice>, StoreError>;
    /// The roles ("role:<slug>") and teams ("team:<id>") whose people see only checked answers.
    async fn checked_only(&self) -> Result<Vec<String>, StoreError>;
    /// Turns checked-only answers on or off for one role or team, audited; a no-op when it is
    /// already so.
    async fn set_checked_only(&self, scope: &str, on: bool, actor: crate::kernel::Actor) -> Result<(), StoreError>;
    /// The message a run works on, by id.
    async fn message(&self, id: MessageId) -> Result<Option<Message>, StoreError>;
}

/// A person's list of threads, for the Ask page.
#[async_trait]
pub trait ThreadListStore: Send + Sync {
    /// A person's latest threads, newest first, at most `limit`, each with what its line shows,
    /// in one read however many threads and runs there are (not four reads a thread).
    async fn thread_lines(&self, person: PersonId, limit: u32) -> Result<Vec<ThreadLine>, StoreError>;
}

crate::port!(
    /// What reading threads and runs needs: the runs, and the agents whose owner reads a run that
    /// acted for nobody, and a person's list of threads.
    ThreadPorts: RunStore, ThreadListStore, crate::org::store::OrgStore
);
crate::port!(
    /// What the Inbox needs: its actions, the runs they came from, and those runs' agents.
    InboxPorts: super::inbox::InboxStore, RunStore, crate::org::store::OrgStore
);
crate::port!(
    /// What a run's block reads besides cards and lists: cores, lessons, who's who and the
    /// memory scopes an agent was given.
    BlockPorts: crate::cores::store::CoreStore,
    crate::lessons::LessonStore,
    crate::org::store::OrgStore,
    crate::org::memory_scopes::MemoryScopeStore
);
crate::port!(
    /// What asking and answering reads and writes: the runs' own stores (runs, lists, the inbox,
    /// what each run cost, which agent token started an external run), the areas below them, and
    /// the private agents a person may ask.
    RunPorts: ThreadPorts,
    InboxPorts,
    BlockPorts,
    crate::org::agents::AgentAdminStore,
    super::lists::ListPorts,
    crate::cards::store::CardPorts,
    crate::lessons::LessonPorts,
    crate::cores::store::CorePorts,
    crate::kernel::model::ModelCallCap,
    super::cost::RunCostStore,
    super::agent_tokens::AgentTokenStore
);
