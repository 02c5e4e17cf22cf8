//! The Inbox: a person approves or declines what their runs would do that acts. An approved
//! action is carried out then, through the same gate as a run's reads, decided at that moment;
//! nothing acts from the Inbox without its person.

use super::*;
use crate::runs::inbox::{ActionState, InboxAction};

/// How many actions the Inbox shows.
pub const INBOX_PAGE: u32 = 50;

/// One line of the Inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxView {
    pub id: i64,
    /// "update_lead on Acme ATS"
    pub line: String,
    pub state: ActionState,
    /// The arguments as the agent gave them, shown to be checked before approving.
    pub arguments: serde_json::Value,
    pub outcome: Option<String>,
    pub thread: ThreadId,
    pub agent: String,
    pub created_at: DateTime<Utc>,
}

fn no_such() -> RunError {
    RunError::NotFound("There is no such action in your Inbox".into())
}

/// Why an approved action was not done, as its outcome reads after "Not done: ".
#[derive(Debug, thiserror::Error)]
enum NotDone {
    #[error("no board is set up to take it")]
    NoBoard,
    #[error("no outbox is set up to send it")]
    NoOutbox,
    #[error("its run is gone")]
    RunGone,
    #[error("there is nothing to send it with")]
    NothingToSendWith,
    #[error("{0}")]
    Task(#[from] crate::runs::handon::TaskRefusal),
    #[error("{0}")]
    HandOn(#[from] crate::runs::handon::HandOnError),
    #[error("{0}")]
    Message(#[from] crate::runs::outbox::MessageRefusal),
    #[error("{0}")]
    Outbox(#[from] crate::runs::outbox::OutboxError),
    /// The gate of the connector's tool refused it, or the cards failed inside (worded as the
    /// cards' internal failure, its detail logged).
    #[error("{0}")]
    Cards(#[from] crate::cards::service::MemoryError),
    /// The store failed: worded as any internal failure, its detail logged.
    #[error("{}", crate::error::INTERNAL_MESSAGE)]
    Store(#[from] crate::kernel::StoreError),
}

/// The Inbox: what runs would do that acts, decided by their person and carried out then.
#[derive(Clone)]
pub struct Inbox {
    pub(super) store: Arc<dyn crate::runs::store::InboxPorts>,
    pub(super) clock: Arc<dyn Clock>,
    /// An approved action on a connector is carried out as a run's acting call is.
    pub(super) cards: RunCards,
    pub(super) outbox: Option<Arc<dyn crate::runs::outbox::Outbox>>,
    pub(super) tasks: Option<Arc<dyn crate::runs::handon::TaskDesk>>,
}

impl Inbox {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The person's Inbox, newest first. A person's Inbox is theirs alone.
    pub async fn inbox(&self, person: &Person) -> Result<Vec<InboxView>, RunError> {
        let mut out = Vec::new();
        for a in self.store.inbox(person.id, INBOX_PAGE).await? {
            out.push(self.inbox_view(a).await?);
        }
        Ok(out)
    }

    async fn inbox_view(&self, a: InboxAction) -> Result<InboxView, RunError> {
        let run = self.store.run(a.run).await?.ok_or_else(no_such)?;
        let agent = self.store.agent(run.agent).await?.map(|a| a.name).unwrap_or_else(|| "An agent".into());
        Ok(InboxView {
            id: a.id,
            line: a.line,
            state: a.state,
            arguments: a.arguments,
            outcome: a.outcome,
            thread: run.thread,
            agent,
            created_at: a.created_at,
        })
    }

    async fn own_action(&self, person: &Person, id: i64) -> Result<InboxAction, RunError> {
        self.store.action(id).await?.filter(|a| a.person == person.id).ok_or_else(no_such)
    }

    fn already_decided(e: crate::kernel::StoreError) -> RunError {
        match e {
            crate::kernel::StoreError::Changed { .. } => RunError::Changed("This was already decided".into()),
            other => other.into(),
        }
    }

    /// Approves one waiting action and carries it out now. It is claimed first, so two clicks
    /// (or two servers) never act twice; what became of it is kept on the action.
    pub async fn approve(&self, person: &Person, id: i64) -> Result<InboxView, RunError> {
        let a = self.own_action(person, id).await?;
        let actor = crate::kernel::Actor { person: Some(person.id), at: self.now() };
        self.store.decide_action(a.id, ActionState::Approved, actor).await.map_err(Self::already_decided)?;
        let outcome = match self.carry_out(person, &a).await {
            Ok(()) => (ActionState::Done, format!("Done: {}", a.line)),
            Err(why) => {
                tracing::warn!(action = a.id, reason = %why, error = ?why, "an approved action was not done");
                (ActionState::Failed, format!("Not done: {why}"))
            }
        };
        let finished = self.store.finish_action(a.id, outcome.0, &outcome.1, self.now()).await?;
        self.inbox_view(finished).await
    }

    async fn carry_out(&self, person: &Person, a: &InboxAction) -> Result<(), NotDone> {
        if a.kind == crate::runs::inbox::ActionKind::Task {
            let Some(tasks) = &self.tasks else { return Err(NotDone::NoBoard) };
            let task = crate::runs::handon::HandedTask::from_call(&a.arguments)?;
            return Ok(tasks.hand_on(person, &task).await.map(|_| ())?);
        }
        if a.kind == crate::runs::inbox::ActionKind::Send {
            let Some(outbox) = &self.outbox else { return Err(NotDone::NoOutbox) };
            let message = crate::runs::outbox::OutgoingMessage::from_call(&person.email, &a.arguments)?;
            return Ok(outbox.send(&message).await?);
        }
        let run = self.store.run(a.run).await?.ok_or(NotDone::RunGone)?;
        let Some(connector) = a.connector else { return Err(NotDone::NothingToSendWith) };
        let running = self.cards.running_agent(run.agent).await?;
        self.cards.act_for_person(person, &running, connector, &a.tool, &a.arguments).await?;
        Ok(())
    }

    /// Declines one waiting action: it is kept, declined, and nothing acts.
    pub async fn decline(&self, person: &Person, id: i64) -> Result<InboxView, RunError> {
        let a = self.own_action(person, id).await?;
        let actor = crate::kernel::Actor { person: Some(person.id), at: self.now() };
        let declined =
            self.store.decide_action(a.id, ActionState::Declined, actor).await.map_err(Self::already_decided)?;
        self.inbox_view(declined).await
    }
}
