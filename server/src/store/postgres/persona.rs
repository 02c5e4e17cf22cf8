#![allow(unused_variables, unused_imports)]
use super::{not_yet, PgStore};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::org::PersonId;
use engine::persona::apply::{plan, RowChange};
use engine::persona::audn::AudnOp;
use engine::persona::backlog::{
    AppliedOps, Episode, Improvement, MemoryRow, NewEpisode, NewTask, Outcome, StatusEntry, Task, TaskKind, Wakeup,
    RUN_STATUSES, STATUS_OPEN,
};
use engine::persona::render::MemoryKind;
use engine::persona::store::{FinishedWake, PersonaStore};
use engine::store::{Actor, StoreError};

#[async_trait]
impl PersonaStore for PgStore {
    async fn create_task(&self, t: &NewTask) -> Result<Task, StoreError> {
        Err(not_yet())
    }

    async fn task(&self, id: i64) -> Result<Option<Task>, StoreError> {
        Err(not_yet())
    }

    async fn task_log(&self, id: i64) -> Result<Vec<StatusEntry>, StoreError> {
        Err(not_yet())
    }

    async fn improve_tasks(&self, agent: Option<&str>) -> Result<Vec<Task>, StoreError> {
        Err(not_yet())
    }

    async fn post_task_status(
        &self,
        task: i64,
        status: &str,
        note: &str,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn open_wakeup(
        &self,
        agent: &str,
        task: Option<i64>,
        reason: &str,
        at: DateTime<Utc>,
    ) -> Result<Wakeup, StoreError> {
        Err(not_yet())
    }

    async fn wakeups(&self, ids: &[i64]) -> Result<Vec<Wakeup>, StoreError> {
        Err(not_yet())
    }

    async fn finish_wakeups(
        &self,
        ids: &[i64],
        run: &str,
        fallback: (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<FinishedWake, StoreError> {
        Err(not_yet())
    }

    async fn insert_episode(&self, e: &NewEpisode) -> Result<Episode, StoreError> {
        Err(not_yet())
    }

    async fn episode_by_run(&self, agent: &str, run: &str) -> Result<Option<Episode>, StoreError> {
        Err(not_yet())
    }

    async fn episodes(&self, agent: &str, since: Option<DateTime<Utc>>) -> Result<Vec<Episode>, StoreError> {
        Err(not_yet())
    }

    async fn mark_corrected(&self, task: i64, agent: &str) -> Result<Option<Episode>, StoreError> {
        Err(not_yet())
    }

    async fn memory_rows(&self, agent: &str, include_closed: bool) -> Result<Vec<MemoryRow>, StoreError> {
        Err(not_yet())
    }

    async fn memory_row(&self, id: i64) -> Result<Option<MemoryRow>, StoreError> {
        Err(not_yet())
    }

    async fn apply_ops(
        &self,
        agent: &str,
        episode: i64,
        ops: &[AudnOp],
        at: DateTime<Utc>,
    ) -> Result<AppliedOps, StoreError> {
        Err(not_yet())
    }

    async fn edit_memory(&self, id: i64, text: &str, by: &str, at: DateTime<Utc>) -> Result<MemoryRow, StoreError> {
        Err(not_yet())
    }

    async fn retire_memory(&self, id: i64, reason: &str, by: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn claim_model_call(
        &self,
        agent: &str,
        purpose: &str,
        day_start: DateTime<Utc>,
        cap: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Err(not_yet())
    }

    async fn model_calls_since(&self, since: DateTime<Utc>) -> Result<u32, StoreError> {
        Err(not_yet())
    }

    async fn file_proposal(&self, task: &NewTask, memory_id: i64) -> Result<Task, StoreError> {
        Err(not_yet())
    }

    async fn settle_task(
        &self,
        id: i64,
        status: &str,
        reason: Option<&str>,
        by: PersonId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn create_agent_token(
        &self,
        agent: &str,
        by: PersonId,
        name: &str,
        secret_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        Err(not_yet())
    }

    async fn agent_by_token(&self, secret_hash: &str, at: DateTime<Utc>) -> Result<Option<String>, StoreError> {
        Err(not_yet())
    }

}
