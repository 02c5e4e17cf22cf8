#![allow(unused_variables, unused_imports)]
use super::{not_yet, PgStore};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::source::{Connector, Freshness, KeyMode, RecordShape, ShapeField};
use engine::cards::store::{
    Card, CardStore, CardUse, Forgotten, MyWorkQuery, NewCard, NewConnector, OpenWhen, PrepareSetting,
};
use engine::org::{PersonId, RoleId};
use engine::store::{Actor, StoreError};

#[async_trait]
impl CardStore for PgStore {
    async fn connectors(&self) -> Result<Vec<Connector>, StoreError> {
        Err(not_yet())
    }

    async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError> {
        Err(not_yet())
    }

    async fn create_connector(
        &self,
        c: &NewConnector,
        company_key: Option<&str>,
        actor: Actor,
    ) -> Result<Connector, StoreError> {
        Err(not_yet())
    }

    async fn company_key(&self, connector: i64) -> Result<Option<String>, StoreError> {
        Err(not_yet())
    }

    async fn person_key(&self, connector: i64, person: PersonId) -> Result<Option<String>, StoreError> {
        Err(not_yet())
    }

    async fn set_person_key(
        &self,
        connector: i64,
        person: PersonId,
        secret: &str,
        actor: Actor,
    ) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn shapes(&self, connector: i64) -> Result<Vec<RecordShape>, StoreError> {
        Err(not_yet())
    }

    async fn save_shape(&self, s: &RecordShape, open_when: Option<&OpenWhen>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn open_when(&self, connector: i64, tool: &str) -> Result<Option<OpenWhen>, StoreError> {
        Err(not_yet())
    }

    async fn set_keep_cards(&self, connector: i64, on: bool, actor: Actor) -> Result<u32, StoreError> {
        Err(not_yet())
    }

    async fn set_key_mode(
        &self,
        connector: i64,
        mode: KeyMode,
        own_key_tools: &[String],
        actor: Actor,
    ) -> Result<u32, StoreError> {
        Err(not_yet())
    }

    async fn set_killed(&self, connector: i64, killed: bool, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn update_connector(&self, c: &Connector, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn claim_read(
        &self,
        connector: i64,
        purpose: &str,
        since: DateTime<Utc>,
        limit: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Err(not_yet())
    }

    async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
        Err(not_yet())
    }

    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError> {
        Err(not_yet())
    }

    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
        Err(not_yet())
    }

    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        Err(not_yet())
    }

    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn forget(
        &self,
        person: PersonId,
        card: &Card,
        until: DateTime<Utc>,
        actor: Actor,
    ) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn forgotten(&self, person: PersonId, now: DateTime<Utc>) -> Result<Vec<Forgotten>, StoreError> {
        Err(not_yet())
    }

    async fn lift_forget(&self, person: PersonId, f: &Forgotten, reason: &str, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn forgotten_until(
        &self,
        person: PersonId,
        connector: i64,
        kind: &str,
        record_id: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        Err(not_yet())
    }

    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        Err(not_yet())
    }

    async fn my_work_queries(&self, role: RoleId) -> Result<Vec<MyWorkQuery>, StoreError> {
        Err(not_yet())
    }

    async fn add_my_work_query(&self, q: &MyWorkQuery, actor: Actor) -> Result<MyWorkQuery, StoreError> {
        Err(not_yet())
    }

    async fn prepare_setting(&self, person: PersonId) -> Result<PrepareSetting, StoreError> {
        Err(not_yet())
    }

    async fn save_prepare_setting(&self, person: PersonId, s: &PrepareSetting) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn prepare_enabled(&self) -> Result<Vec<(PersonId, PrepareSetting)>, StoreError> {
        Err(not_yet())
    }

    async fn person_time_zone(&self, person: PersonId) -> Result<Option<String>, StoreError> {
        Err(not_yet())
    }

    async fn set_person_time_zone(&self, person: PersonId, zone: Option<&str>, actor: Actor) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn agent_access(&self, agent: engine::org::AgentId) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError> {
        Err(not_yet())
    }

    async fn set_agent_access(
        &self,
        agent: engine::org::AgentId,
        clearance: DataLabel,
        toolsets: &[i64],
        actor: Actor,
    ) -> Result<(), StoreError> {
        Err(not_yet())
    }

    async fn all_uses(&self) -> Result<Vec<(Card, CardUse)>, StoreError> {
        Err(not_yet())
    }

    async fn remove_unkept_cards(&self, actor: Actor) -> Result<u32, StoreError> {
        Err(not_yet())
    }

    async fn job_last_run(&self, name: &str) -> Result<Option<String>, StoreError> {
        Err(not_yet())
    }

    async fn set_job_run(&self, name: &str, local_date: &str) -> Result<(), StoreError> {
        Err(not_yet())
    }

}
