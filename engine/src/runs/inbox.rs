//! The Inbox: what a run would do that acts (a connector write, an outgoing message, a task handed
//! on) waits here for the person the run acts for, who approves or declines it. Nothing acts
//! before that, and a step that would act on a remembered value never gets here (see
//! `provenance`).

use super::RunId;
use crate::kernel::{Actor, StoreError};
use crate::org::PersonId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// A connector's write tool.
    Write,
    /// An outgoing message.
    Send,
    /// A task handed on to a bot.
    Task,
}

crate::string_enum!(ActionKind { Write => "write", Send => "send", Task => "task" });

/// Waiting, then approved or declined; an approved action is then done or failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionState {
    Waiting,
    /// Approved and being carried out: claimed once, so two clicks never act twice.
    Approved,
    Declined,
    Done,
    Failed,
}

crate::string_enum!(ActionState {
    Waiting => "waiting",
    Approved => "approved",
    Declined => "declined",
    Done => "done",
    Failed => "failed",
});

#[derive(Debug, Clone, PartialEq)]
pub struct NewAction {
    pub person: PersonId,
    pub run: RunId,
    pub kind: ActionKind,
    pub connector: Option<i64>,
    pub tool: String,
    pub arguments: Value,
    /// What it would do, in words: "update_lead on Acme ATS".
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxAction {
    pub id: i64,
    pub person: PersonId,
    pub run: RunId,
    pub kind: ActionKind,
    pub connector: Option<i64>,
    pub tool: String,
    pub arguments: Value,
    pub line: String,
    pub state: ActionState,
    /// What became of it once carried out: "Done" or why not.
    pub outcome: Option<String>,
    pub created_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

#[async_trait]
pub trait InboxStore: Send + Sync {
    async fn add_action(&self, action: &NewAction, at: DateTime<Utc>) -> Result<InboxAction, StoreError>;
    async fn action(&self, id: i64) -> Result<Option<InboxAction>, StoreError>;
    /// The person's actions, newest first.
    async fn inbox(&self, person: PersonId, limit: u32) -> Result<Vec<InboxAction>, StoreError>;
    /// Moves a waiting action to approved or declined, audited in the same transaction. One that
    /// no longer waits is refused with `Changed`, so two decisions never both stand.
    async fn decide_action(&self, id: i64, to: ActionState, actor: Actor) -> Result<InboxAction, StoreError>;
    /// What became of an approved action: done or failed, with its outcome.
    async fn finish_action(
        &self,
        id: i64,
        to: ActionState,
        outcome: &str,
        at: DateTime<Utc>,
    ) -> Result<InboxAction, StoreError>;
}
