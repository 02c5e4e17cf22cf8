//! Threads, runs, steps, events and who's-who lists (skeleton for the store work).
#![allow(unused_variables)]

use super::sqlite::SqliteStore;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::org::{AgentId, PersonId};
use engine::runs::whoswho::ListEntry;
use engine::runs::{
    Author, Event, Message, MessageId, NewEvent, NewRun, NewStep, Run, RunEnd, RunId, Step, Thread, ThreadId,
};
use engine::store::{Actor, ListStore, RunStore, StoreError};

#[async_trait]
impl RunStore for SqliteStore {
    async fn create_thread(
        &self,
        agent: AgentId,
        person: Option<PersonId>,
        title: &str,
        first: &Author,
        text: &str,
        at: DateTime<Utc>,
    ) -> Result<(Thread, Message), StoreError> {
        todo!("store helper")
    }
    async fn add_message(
        &self,
        thread: ThreadId,
        author: &Author,
        text: &str,
        at: DateTime<Utc>,
    ) -> Result<Message, StoreError> {
        todo!("store helper")
    }
    async fn thread(&self, id: ThreadId) -> Result<Option<Thread>, StoreError> {
        todo!("store helper")
    }
    async fn messages(&self, thread: ThreadId) -> Result<Vec<Message>, StoreError> {
        todo!("store helper")
    }
    async fn threads_for(&self, person: PersonId, limit: u32) -> Result<Vec<Thread>, StoreError> {
        todo!("store helper")
    }
    async fn create_run(&self, run: &NewRun, at: DateTime<Utc>) -> Result<Run, StoreError> {
        todo!("store helper")
    }
    async fn run(&self, id: RunId) -> Result<Option<Run>, StoreError> {
        todo!("store helper")
    }
    async fn runs_of_thread(&self, thread: ThreadId) -> Result<Vec<Run>, StoreError> {
        todo!("store helper")
    }
    async fn add_step(&self, run: RunId, step: &NewStep, at: DateTime<Utc>) -> Result<Step, StoreError> {
        todo!("store helper")
    }
    async fn end_run(&self, run: RunId, end: &RunEnd, at: DateTime<Utc>) -> Result<Run, StoreError> {
        todo!("store helper")
    }
    async fn close_retried(&self, run: RunId, by: RunId, at: DateTime<Utc>) -> Result<(), StoreError> {
        todo!("store helper")
    }
    async fn stale_runs(&self, before: DateTime<Utc>) -> Result<Vec<RunId>, StoreError> {
        todo!("store helper")
    }
    async fn record_event(&self, event: &NewEvent, at: DateTime<Utc>) -> Result<Event, StoreError> {
        todo!("store helper")
    }
    async fn events_after(&self, after: i64, limit: u32) -> Result<Vec<Event>, StoreError> {
        todo!("store helper")
    }
    async fn message(&self, id: MessageId) -> Result<Option<Message>, StoreError> {
        todo!("store helper")
    }
}

#[async_trait]
impl ListStore for SqliteStore {
    async fn set_whos_who(&self, connector: i64, on: bool, actor: Actor) -> Result<(), StoreError> {
        todo!("store helper")
    }
    async fn whos_who_connectors(&self) -> Result<Vec<i64>, StoreError> {
        todo!("store helper")
    }
    async fn save_list(
        &self,
        connector: i64,
        list: &str,
        entries: &[ListEntry],
        fetched_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        todo!("store helper")
    }
    async fn list_entries(&self) -> Result<Vec<ListEntry>, StoreError> {
        todo!("store helper")
    }
    async fn list_entries_naming(&self, keys: &[String]) -> Result<Vec<ListEntry>, StoreError> {
        todo!("store helper")
    }
    async fn claim_list_fetch(&self, connector: i64, slot: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        todo!("store helper")
    }
}
