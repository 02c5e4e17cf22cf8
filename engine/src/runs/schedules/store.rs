//! The storage of schedules, triggers and paused agents. Every change is audited in its own
//! transaction; a claim or a fire is decided inside one write, so two servers never both win.

use super::{NewSchedule, Schedule, Trigger, TriggerFire};
use crate::kernel::{Actor, AgentId, StoreError};
use crate::runs::RunId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

#[async_trait]
pub trait ScheduleStore: Send + Sync {
    /// The agent's schedule, if it has one.
    async fn schedule(&self, agent: AgentId) -> Result<Option<Schedule>, StoreError>;
    /// Sets or replaces it; audited `agent.schedule` with when it ran before and runs now (never
    /// the instruction's text).
    async fn set_schedule(&self, agent: AgentId, schedule: &NewSchedule, actor: Actor) -> Result<Schedule, StoreError>;
    /// Removes it; audited `agent.schedule_cleared`. False when there was none (nothing audited).
    async fn clear_schedule(&self, agent: AgentId, actor: Actor) -> Result<bool, StoreError>;
    /// Whether its owner (or an admin) paused the agent.
    async fn paused(&self, agent: AgentId) -> Result<bool, StoreError>;
    /// Pauses or resumes it; audited `agent.paused` or `agent.resumed` when it changes. False when
    /// it already was so.
    async fn set_paused(&self, agent: AgentId, paused: bool, actor: Actor) -> Result<bool, StoreError>;
    /// Schedules due at `now` of agents not paused, the longest waiting first, at most `limit`.
    async fn due_schedules(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Schedule>, StoreError>;
    /// Claims the schedule's run due at `due` and moves it on to `next`: true for exactly one
    /// caller however many servers share the database; false when another took it, the schedule
    /// changed or went, or the agent is paused.
    async fn claim_schedule(&self, agent: AgentId, due: DateTime<Utc>, next: DateTime<Utc>)
        -> Result<bool, StoreError>;
    /// That the agent has a trigger, never its secret.
    async fn trigger(&self, agent: AgentId) -> Result<Option<Trigger>, StoreError>;
    /// Makes the trigger, or rotates it (the old secret stops working at once); audited
    /// `agent.trigger` "made" or "rotated".
    async fn set_trigger(&self, agent: AgentId, secret_hash: &str, actor: Actor) -> Result<Trigger, StoreError>;
    /// Removes it; audited `agent.trigger_cleared`. False when there was none.
    async fn clear_trigger(&self, agent: AgentId, actor: Actor) -> Result<bool, StoreError>;
    /// Decides a post to the trigger in one write: refused unless `secret_hash` is its secret's,
    /// paused when the agent is, limited when it fired `per_hour` times in the hour before
    /// `now`, and otherwise counted and fired.
    async fn fire_trigger(
        &self,
        agent: AgentId,
        secret_hash: &str,
        now: DateTime<Utc>,
        per_hour: u32,
    ) -> Result<TriggerFire, StoreError>;
    /// Takes up again, once, the failed runs of kind `schedule` made since `since` that are not
    /// themselves retries, of agents not paused, the oldest first, at most `limit`: each gets a
    /// new running run in its place (`retry_of` it, made at `at`) and is closed as retried, in one
    /// write, so of several servers exactly one retries it. Returns the new runs.
    async fn retry_failed_schedule_runs(
        &self,
        since: DateTime<Utc>,
        at: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<RunId>, StoreError>;
}

crate::port!(
    /// Setting schedules and triggers: the agent and the company's zone from the directory.
    SchedulePorts: ScheduleStore, crate::org::store::OrgStore
);
