//! Storage for the bots' side. Each write that reads first is one transaction in the backend.

use super::audn::AudnOp;
use super::backlog::{AppliedOps, Episode, MemoryRow, NewEpisode, NewTask, StatusEntry, Task, Wakeup};
use super::bot_tokens::{AgentToken, PresentedToken};
use super::memory_audit_store::MemoryAuditStore;
use super::self_edit_store::SelfEditStore;
use crate::kernel::{Actor, JobClaims, StoreError};
use crate::org::store::OrgStore;
use crate::org::PersonId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// What closing a wake's wakeups found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedWake {
    pub wakeups: Vec<Wakeup>,
    /// The last status posted on the task since the first wakeup opened, if the wake posted one.
    pub posted: Option<String>,
    /// Whether this call posted the fallback status.
    pub fallback_posted: bool,
}

#[async_trait]
pub trait PersonaStore: Send + Sync {
    async fn create_task(&self, task: &NewTask) -> Result<Task, StoreError>;
    async fn task(&self, id: i64) -> Result<Option<Task>, StoreError>;
    async fn task_log(&self, id: i64) -> Result<Vec<StatusEntry>, StoreError>;
    /// Improve tasks, newest first; for one agent, or all.
    async fn improve_tasks(&self, agent: Option<&str>) -> Result<Vec<Task>, StoreError>;
    async fn post_task_status(
        &self,
        task: i64,
        status: &str,
        note: &str,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    async fn open_wakeup(
        &self,
        agent: &str,
        task: Option<i64>,
        reason: &str,
        at: DateTime<Utc>,
    ) -> Result<Wakeup, StoreError>;
    async fn wakeups(&self, ids: &[i64]) -> Result<Vec<Wakeup>, StoreError>;
    /// Closes the open wakeups among `ids` with the wake, and posts `fallback` on their task when
    /// the wake posted no status of its own, all in one transaction.
    async fn finish_wakeups(
        &self,
        ids: &[i64],
        wake: &str,
        fallback: (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<FinishedWake, StoreError>;

    /// Records an episode; `Duplicate` when the agent already has one for the wake.
    async fn insert_episode(&self, episode: &NewEpisode) -> Result<Episode, StoreError>;
    async fn episode_by_wake(&self, agent: &str, wake: &str) -> Result<Option<Episode>, StoreError>;
    /// The agent's episodes, newest first, since a time if given.
    async fn episodes(&self, agent: &str, since: Option<DateTime<Utc>>) -> Result<Vec<Episode>, StoreError>;
    /// Marks the agent's latest episode on the task as corrected.
    async fn mark_corrected(&self, task: i64, agent: &str) -> Result<Option<Episode>, StoreError>;

    async fn memory_rows(&self, agent: &str, include_closed: bool) -> Result<Vec<MemoryRow>, StoreError>;
    /// `episodes` (all of them) and `memory_rows` as a bot reads them with its own token. PostgreSQL
    /// reads them under the `engram_bot` role, which may only SELECT and whose row policy shows it
    /// only that bot's rows, so the database enforces what the service already checks. SQLite has
    /// no roles and reads them as `episodes` and `memory_rows` do.
    async fn bot_episodes(&self, agent: &str) -> Result<Vec<Episode>, StoreError>;
    async fn bot_memory_rows(&self, agent: &str, include_closed: bool) -> Result<Vec<MemoryRow>, StoreError>;
    async fn memory_row(&self, id: i64) -> Result<Option<MemoryRow>, StoreError>;
    /// Applies a reflect step's operations for one episode in one transaction. An operation on a
    /// row that is no longer active refuses the whole set with `Changed`.
    async fn apply_ops(
        &self,
        agent: &str,
        episode: i64,
        ops: &[AudnOp],
        at: DateTime<Utc>,
    ) -> Result<AppliedOps, StoreError>;
    /// Closes an active row and inserts the correction that supersedes it; `Changed` if the row
    /// was closed meanwhile.
    async fn edit_memory(&self, id: i64, text: &str, by: &str, at: DateTime<Utc>) -> Result<MemoryRow, StoreError>;
    async fn retire_memory(&self, id: i64, reason: &str, by: &str, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Takes one model call from the day's cap across every bot; false when it is spent.
    async fn claim_model_call(
        &self,
        agent: &str,
        purpose: &str,
        day_start: DateTime<Utc>,
        cap: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    async fn model_calls_since(&self, since: DateTime<Utc>) -> Result<u32, StoreError>;

    /// Files an improve task and marks the memory row promoted, in one transaction.
    async fn file_proposal(&self, task: &NewTask, memory_id: i64) -> Result<Task, StoreError>;
    /// Sets an open improve task's final status (`applied` or `closed`); `Changed` if it is not open.
    async fn settle_task(
        &self,
        id: i64,
        status: &str,
        reason: Option<&str>,
        by: PersonId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// A bot's own token, made at `at` by its owner and working until `expires_at`; audited.
    async fn create_agent_token(
        &self,
        agent: &str,
        by: PersonId,
        name: &str,
        secret_hash: &str,
        at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<i64, StoreError>;
    /// The bot token with this hash, live or not, and who made it; the engine judges it.
    async fn agent_token(&self, secret_hash: &str) -> Result<Option<PresentedToken>, StoreError>;
    /// Marks a token used at `at`.
    async fn agent_token_used(&self, id: i64, at: DateTime<Utc>) -> Result<(), StoreError>;
    /// A bot's tokens, newest first, revoked and expired ones included.
    async fn agent_tokens(&self, agent: &str) -> Result<Vec<AgentToken>, StoreError>;
    /// Revokes a live token of this bot, saying why (`bot_tokens::REVOKED_*`); audited. False
    /// (and nothing written) when the bot has no such live token.
    async fn revoke_agent_token(&self, agent: &str, id: i64, why: &str, actor: Actor) -> Result<bool, StoreError>;
}

// Each use case of the bots (`super::service`) holds the port of its own below: the bots' stores
// it calls, and org's only where it looks up a person. `BotPorts` is all of them, so the whole
// store hands each use case its own by upcasting.

/// Wakes: tasks, wakeups and episodes, and the bot's owner in the directory for a task's owner.
pub trait WakePorts: PersonaStore + OrgStore {}

impl<T: PersonaStore + OrgStore + ?Sized> WakePorts for T {}

/// Reflect and the reflection cycle: episodes and memory rows, and the self-edits a cycle requests.
pub trait ReflectPorts: PersonaStore + SelfEditStore {}

impl<T: PersonaStore + SelfEditStore + ?Sized> ReflectPorts for T {}

/// Improve cards: the tasks and rows they are filed from, and the bot's owner for a card's owner.
pub trait ImprovePorts: PersonaStore + OrgStore {}

impl<T: PersonaStore + OrgStore + ?Sized> ImprovePorts for T {}

/// A bot's self-edits, and the memory rows its core block is rendered from.
pub trait SelfEditPorts: SelfEditStore + PersonaStore {}

impl<T: SelfEditStore + PersonaStore + ?Sized> SelfEditPorts for T {}

/// The memory audit: its records, the episodes and cap it reads, the improve cards it files with
/// their owner, and the once-a-day claim of its scheduled run.
pub trait MemoryAuditPorts: MemoryAuditStore + PersonaStore + OrgStore + JobClaims {}

impl<T: MemoryAuditStore + PersonaStore + OrgStore + JobClaims + ?Sized> MemoryAuditPorts for T {}

/// The pages: a bot's rows, episodes, self-edits and profile, and the directory for its people's names.
pub trait PagePorts: PersonaStore + SelfEditStore + OrgStore {}

impl<T: PersonaStore + SelfEditStore + OrgStore + ?Sized> PagePorts for T {}

/// What the bots' use cases read and write, all together: the bots' own stores and org's,
/// nothing else: the bots stand beside the floors, over org and the ground alone.
pub trait BotPorts: WakePorts + ReflectPorts + ImprovePorts + SelfEditPorts + MemoryAuditPorts + PagePorts {}

impl<T> BotPorts for T where
    T: WakePorts + ReflectPorts + ImprovePorts + SelfEditPorts + MemoryAuditPorts + PagePorts + ?Sized
{
}
