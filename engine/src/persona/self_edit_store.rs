//! The record of a bot's self-edits and the store that decides, carries out, approves and undoes
//! them, each in one transaction.

use super::config::SelfEditPolicy;
use super::self_edit::{Change, EditRequest};
use crate::kernel::{Actor, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditState {
    Applied,
    Waiting,
    Refused,
    Declined,
    Undone,
}

crate::string_enum!(EditState {
    Applied => "applied",
    Waiting => "waiting",
    Refused => "refused",
    Declined => "declined",
    Undone => "undone",
});

/// One `memory_self_edit` request and what became of it: the audit row the seed asks for, with
/// what the bot meant to do (`reason`) beside what changed (`before`, `after`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfEdit {
    pub id: i64,
    pub agent: String,
    pub action: String,
    pub target: String,
    pub content: Option<String>,
    pub reason: String,
    pub state: EditState,
    /// The `requireApproval` kind it waits for or waited for.
    pub approval: Option<String>,
    pub refusal: Option<String>,
    pub change: Option<Change>,
    pub row: Option<i64>,
    /// The row an applied append or replace wrote.
    pub new_row: Option<i64>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub created_at: DateTime<Utc>,
    pub applied_at: Option<DateTime<Utc>>,
    /// Until when an applied edit can be undone; after it the edit is permanent.
    pub undo_until: Option<DateTime<Utc>>,
    pub decided_at: Option<DateTime<Utc>>,
    pub decided_by: Option<String>,
    pub decided_why: Option<String>,
    pub undone_at: Option<DateTime<Utc>>,
    pub undone_by: Option<String>,
}

impl SelfEdit {
    pub fn undoable(&self, now: DateTime<Utc>) -> bool {
        self.state == EditState::Applied && self.undo_until.is_some_and(|u| now <= u)
    }
}

/// Why an undo or a decision was not carried out: a sentence for the person or the bot.
pub fn settle_refusal(edit: &SelfEdit, undo: bool, now: DateTime<Utc>) -> Option<String> {
    match (undo, edit.state) {
        (true, EditState::Applied) => match edit.undo_until {
            Some(u) if now <= u => None,
            Some(u) => Some(format!(
                "Self-edit #{} can no longer be undone: its grace period ended at {} UTC, and it is permanent",
                edit.id,
                u.format("%Y-%m-%d %H:%M")
            )),
            None => Some(format!("Self-edit #{} has no grace period; it is permanent", edit.id)),
        },
        (true, s) => {
            Some(format!("Self-edit #{} was not applied (it is {}), so there is nothing to undo", edit.id, s.as_str()))
        }
        (false, EditState::Waiting) => None,
        (false, s) => Some(format!("Self-edit #{} was already decided: it is {}", edit.id, s.as_str())),
    }
}

/// The sentence for an edit whose line changed after it was made, so it cannot be carried out or
/// undone as it was.
pub fn changed_since(edit: &SelfEdit) -> String {
    let line = edit.new_row.or(edit.row).map(|r| format!("line #{r}")).unwrap_or_else(|| "the profile".into());
    format!("Self-edit #{} cannot be carried out or undone: {line} has changed since", edit.id)
}

/// Knowledge a reflection cycle found the bot lacked, with the cycle's episode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeGap {
    pub id: i64,
    pub agent: String,
    pub text: String,
    pub episode: i64,
    pub created_at: DateTime<Utc>,
}

/// What a settle (undo, approve, decline) came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Done(Box<SelfEdit>),
    Refused(String),
}

#[async_trait]
pub trait SelfEditStore: Send + Sync {
    /// Decides `req` against `policy` with [`super::self_edit::decide`] over the bot's active rows,
    /// its profile and its counts read in the same transaction, carries out what applies, and
    /// records the request whatever became of it. `Decision::Reflect` is the caller's to route and
    /// is recorded as refused here.
    async fn self_edit(
        &self,
        agent: &str,
        policy: &SelfEditPolicy,
        req: &EditRequest,
        at: DateTime<Utc>,
    ) -> Result<SelfEdit, StoreError>;
    async fn self_edit_by_id(&self, id: i64) -> Result<Option<SelfEdit>, StoreError>;
    /// The bot's requests, newest first.
    async fn self_edits(&self, agent: &str, limit: u32) -> Result<Vec<SelfEdit>, StoreError>;
    /// How many of the bot's requests are in each state (states with none left out).
    async fn self_edit_counts(&self, agent: &str) -> Result<Vec<(EditState, u32)>, StoreError>;
    /// Requests waiting for a person, oldest first, for the given bots.
    async fn waiting_self_edits(&self, agents: &[String]) -> Result<Vec<SelfEdit>, StoreError>;
    /// Carries out (approve) or declines a waiting request. An approved one is undoable for
    /// `grace_s` from now.
    async fn decide_self_edit(
        &self,
        id: i64,
        approve: bool,
        why: Option<&str>,
        by: &str,
        actor: Actor,
    ) -> Result<Settled, StoreError>;
    /// Takes an applied request back within its grace period; rows are reopened or closed with
    /// the reason, never deleted.
    async fn undo_self_edit(&self, id: i64, by: &str, actor: Actor) -> Result<Settled, StoreError>;
    /// The profile text: the `after` of the newest applied profile edit.
    async fn self_profile(&self, agent: &str) -> Result<Option<String>, StoreError>;
    async fn add_knowledge_gaps(
        &self,
        agent: &str,
        episode: i64,
        texts: &[String],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// The bot's knowledge gaps, newest first.
    async fn knowledge_gaps(&self, agent: &str, limit: u32) -> Result<Vec<KnowledgeGap>, StoreError>;
}
