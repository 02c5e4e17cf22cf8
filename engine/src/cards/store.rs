//! Cards as stored, each person's use of them, and the storage trait for connectors and cards.

use super::access::DataLabel;
use super::pins::{Listed, ToolCopy, ToolPin};
use super::source::{Connector, Freshness, KeyMode, RecordShape};
use crate::kernel::model::SpendLedger;
use crate::kernel::{Actor, StoreError};
use crate::org::{PersonId, RoleId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use super::card::{after_read, AfterRead, Card, CardUse, NewCard, OpenWhen};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewConnector {
    pub name: String,
    pub base_url: String,
    pub key_mode: KeyMode,
    pub ticked: Vec<String>,
    pub label: DataLabel,
    pub admits_roles: Vec<String>,
    pub keep_cards: bool,
    pub facts: crate::cards::facts::FactLimits,
    pub free_text: Freshness,
    pub hourly_limit: u32,
}

/// A role's "my work" query: a ticked read tool of a live connector, with `{me}` for the
/// person's email in its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyWorkQuery {
    pub id: i64,
    pub role: RoleId,
    pub connector: i64,
    pub tool: String,
    pub arguments: String,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrepareSetting {
    pub enabled: bool,
    /// "08:30", read in the person's zone, else the company's.
    pub at_time: String,
    /// The local date it last ran, "2026-11-30".
    pub last_local_date: Option<String>,
}

impl Default for PrepareSetting {
    fn default() -> Self {
        Self { enabled: false, at_time: "08:30".to_string(), last_local_date: None }
    }
}

/// Connectors, their keys and record shapes, the hourly limit of reads, and what each agent holds.
#[async_trait]
pub trait ConnectorStore: Send + Sync {
    async fn connectors(&self) -> Result<Vec<Connector>, StoreError>;
    async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError>;
    async fn create_connector(
        &self,
        c: &NewConnector,
        company_key: Option<&str>,
        actor: Actor,
    ) -> Result<Connector, StoreError>;
    /// The company key, for a read; never for display.
    async fn company_key(&self, connector: i64) -> Result<Option<String>, StoreError>;
    /// Replaces the company key, sealed for the connector's row; a missing connector is NotFound.
    async fn set_company_key(&self, connector: i64, key: &str, actor: Actor) -> Result<(), StoreError>;
    async fn person_key(&self, connector: i64, person: PersonId) -> Result<Option<String>, StoreError>;
    async fn set_person_key(
        &self,
        connector: i64,
        person: PersonId,
        secret: &str,
        actor: Actor,
    ) -> Result<(), StoreError>;
    async fn shapes(&self, connector: i64) -> Result<Vec<RecordShape>, StoreError>;
    async fn save_shape(
        &self,
        shape: &RecordShape,
        open_when: Option<&OpenWhen>,
        actor: Actor,
    ) -> Result<(), StoreError>;
    async fn open_when(&self, connector: i64, tool: &str) -> Result<Option<OpenWhen>, StoreError>;
    /// Sets Keep cards; turning it off removes the connector's cards in the same transaction.
    /// Returns how many cards were removed.
    async fn set_keep_cards(&self, connector: i64, on: bool, actor: Actor) -> Result<u32, StoreError>;
    /// Sets how the tools read, and removes at once the cards of a key kind no tool reads with.
    async fn set_key_mode(
        &self,
        connector: i64,
        mode: KeyMode,
        own_key_tools: &[String],
        actor: Actor,
    ) -> Result<u32, StoreError>;
    async fn set_killed(&self, connector: i64, killed: bool, actor: Actor) -> Result<(), StoreError>;
    /// The settings that remove nothing: ticked tools, label, who is admitted, freshness, limit.
    async fn update_connector(&self, c: &Connector, actor: Actor) -> Result<(), StoreError>;
    /// The pinned copies of the connector's tools, with what the live listing said when it
    /// last differed from each.
    async fn tool_pins(&self, connector: i64) -> Result<Vec<ToolPin>, StoreError>;
    /// Pins a tool's copy as approved now (replacing any earlier copy and clearing what was
    /// noted of the listing), audited.
    async fn pin_tool(&self, connector: i64, copy: &ToolCopy, actor: Actor) -> Result<(), StoreError>;
    /// Notes what the live listing says of a pinned tool now (`None`: it agrees again), audited;
    /// the pinned copy stays. A tool with no pin is NotFound.
    async fn note_listing(
        &self,
        connector: i64,
        tool: &str,
        listed: Option<&Listed>,
        actor: Actor,
    ) -> Result<(), StoreError>;
    /// Takes one read from the connector's hourly limit; false when it is spent.
    async fn claim_read(
        &self,
        connector: i64,
        purpose: &str,
        since: DateTime<Utc>,
        limit: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// The toolsets an agent holds and the label its model is cleared for.
    async fn agent_access(&self, agent: crate::org::AgentId) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError>;
    async fn set_agent_access(
        &self,
        agent: crate::org::AgentId,
        clearance: DataLabel,
        toolsets: &[i64],
        actor: Actor,
    ) -> Result<(), StoreError>;
}

/// A kept card as [`KeptCardStore::kept_for_question`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptForQuestion {
    pub card: Card,
    pub usage: CardUse,
    /// The card shares a match term with the question.
    pub named: bool,
}

/// Cards and each person's use of them.
#[async_trait]
pub trait KeptCardStore: Send + Sync {
    /// Inserts the card, or updates the one with the same identity (connector, kind, record,
    /// key kind, person read as), keeping what [`after_read`] says it holds.
    async fn upsert_card(&self, card: &NewCard) -> Result<Card, StoreError>;
    /// Keeps one record for a person in one transaction: finds or makes its card as `upsert_card`
    /// does, reads what [`plan_keep`](super::keep::plan_keep) needs and carries out its plan,
    /// removing (audited) the use it evicts. Returns whether the person keeps the record; the
    /// card is brought up to date either way.
    async fn keep_card(&self, keep: &super::keep::Keep, actor: Actor) -> Result<bool, StoreError>;
    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError>;
    /// Removes the card and every use of it, with an audited reason.
    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError>;
    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError>;
    /// The cards the person keeps that a run's question may load, in card order: those sharing a
    /// match term ([`match_terms`](super::select::match_terms)) with `terms`, and, when fewer than
    /// `pad_below` of them do, the pinned and open-work cards, which may pad. A run never loads the
    /// others, so it never reads them.
    async fn kept_for_question(
        &self,
        person: PersonId,
        terms: &[String],
        pad_below: u32,
    ) -> Result<Vec<KeptForQuestion>, StoreError>;
    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError>;
    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError>;
    /// Removes one person's use of a card (their place on it), with an audited reason.
    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError>;
    /// (cards kept, of them pinned)
    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError>;
}

/// Forgotten records, and the daily forgetting job's removals and claim.
#[async_trait]
pub trait ForgettingStore: Send + Sync {
    /// Removes the person's use and keeps the record out of their memory until `until`, in one
    /// transaction.
    async fn forget(&self, person: PersonId, card: &Card, until: DateTime<Utc>, actor: Actor)
        -> Result<(), StoreError>;
    /// The records the person forgot that are still kept out at `now`, newest first.
    async fn forgotten(&self, person: PersonId, now: DateTime<Utc>) -> Result<Vec<Forgotten>, StoreError>;
    /// Ends a forget early (the person pinned the record back); the row is closed, not deleted.
    async fn lift_forget(&self, person: PersonId, f: &Forgotten, reason: &str, actor: Actor) -> Result<(), StoreError>;
    async fn forgotten_until(
        &self,
        person: PersonId,
        connector: i64,
        kind: &str,
        record_id: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// Every person's use of every card, for the forgetting job.
    async fn all_uses(&self) -> Result<Vec<(Card, CardUse)>, StoreError>;
    /// Removes cards nobody keeps any more; returns how many.
    async fn remove_unkept_cards(&self, actor: Actor) -> Result<u32, StoreError>;
    async fn job_last_run(&self, name: &str) -> Result<Option<String>, StoreError>;
    /// Claims a daily job's run for a local date: true for exactly one caller, however many
    /// servers share the database, so the job runs once a day, not once a day per server.
    async fn claim_job_run(&self, name: &str, local_date: &str) -> Result<bool, StoreError>;
}

/// Prepare my day: settings, zones, the roles' "my work" queries and the daily claim.
#[async_trait]
pub trait PrepareStore: Send + Sync {
    async fn my_work_queries(&self, role: RoleId) -> Result<Vec<MyWorkQuery>, StoreError>;
    async fn add_my_work_query(&self, q: &MyWorkQuery, actor: Actor) -> Result<MyWorkQuery, StoreError>;
    async fn prepare_setting(&self, person: PersonId) -> Result<PrepareSetting, StoreError>;
    async fn save_prepare_setting(&self, person: PersonId, s: &PrepareSetting) -> Result<(), StoreError>;
    /// People who turned Prepare my day on.
    async fn prepare_enabled(&self) -> Result<Vec<(PersonId, PrepareSetting)>, StoreError>;
    async fn person_time_zone(&self, person: PersonId) -> Result<Option<String>, StoreError>;
    async fn set_person_time_zone(&self, person: PersonId, zone: Option<&str>, actor: Actor) -> Result<(), StoreError>;
    /// Claims the person's Prepare my day for a local date, as `claim_job_run` does: true for
    /// exactly one caller. False too when they have no setting.
    async fn claim_prepare(&self, person: PersonId, local_date: &str) -> Result<bool, StoreError>;
}

/// Every store of person memory, for callers that use several of its parts.
pub trait CardStore: ConnectorStore + KeptCardStore + ForgettingStore + PrepareStore {}
impl<T: ConnectorStore + KeptCardStore + ForgettingStore + PrepareStore> CardStore for T {}

/// A record the person forgot: kept out of their memory until `until`, unless they pin it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgotten {
    pub connector: i64,
    pub kind: String,
    pub record_id: String,
    /// The tool that had read it, so pinning it back can read it again.
    pub tool: String,
    pub forgotten_at: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// What a connector's sheet needs from the checks runs make (an area above cards): the notices
/// that a limit may be too long. Cards name it here; the store's roof answers it from the runs'
/// store.
#[async_trait]
pub trait LimitNotices: Send + Sync {
    async fn limit_notices_of(&self, connector: i64) -> Result<Vec<super::loaded::LimitNotice>, StoreError>;
}

crate::port!(
    /// What a read made as a person needs: the connector and its keys, the kept cards the read
    /// goes into, the list snapshots, and who the person is in the directory (their role decides
    /// what a toolset admits).
    ReadPorts: ConnectorStore, KeptCardStore, super::snapshots::SnapshotStore, crate::org::store::OrgStore
);
crate::port!(
    /// What the admin's connector pages need besides reads: the "my work" queries, the checks'
    /// notices, and the spend ledger a model drafting record shapes is counted in.
    ConnectorPorts: ReadPorts, PrepareStore, LimitNotices, SpendLedger
);
crate::port!(
    /// What a person's own cards need besides reads: what they forgot, and their zone for when
    /// a forgotten card comes back.
    MyCardPorts: ReadPorts, ForgettingStore, PrepareStore
);
crate::port!(
    /// What Prepare my day and the forgetting job need besides reads: the settings and the
    /// forgetting ledger.
    PreparePorts: ReadPorts, PrepareStore, ForgettingStore
);
crate::port!(
    /// Every port of the cards' use cases, for the roof that builds them all.
    CardPorts: ConnectorPorts, MyCardPorts, PreparePorts
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::access::KeyKind;
    use crate::cards::source::CardField;

    fn field(name: &str, value: &str) -> CardField {
        CardField { name: name.into(), value: value.into(), free_text: false }
    }

    fn read(fields: Vec<CardField>, missing: &[&str]) -> NewCard {
        NewCard {
            connector: 1,
            tool: "get_lead".into(),
            kind: "lead".into(),
            record_id: "L-1".into(),
            version: None,
            fields,
            missing: missing.iter().map(|m| m.to_string()).collect(),
            read_with: KeyKind::Company,
            read_as: None,
            label_when_read: DataLabel::Internal,
            open_when: Some(OpenWhen { field: "stage".into(), values: vec!["Proposal".into()] }),
            read_at: Utc::now(),
        }
    }

    #[test]
    fn a_field_the_read_left_out_keeps_its_value_and_is_marked_not_returned() {
        let stored = vec![field("company", "Zeta"), field("stage", "Proposal"), field("city", "Pune")];
        let after = after_read(&stored, &read(vec![field("company", "Zeta Ltd"), field("city", "Pune")], &["stage"]));
        assert_eq!(after.fields, vec![field("company", "Zeta Ltd"), field("stage", "Proposal"), field("city", "Pune")]);
        assert_eq!(after.not_returned, vec!["stage"]);
        assert!(after.open_work, "the stored stage still stands for open work");

        // Returned again: the mark clears and the value read stands.
        let after =
            after_read(&after.fields, &read(vec![field("stage", "Won"), field("company", "Zeta Ltd")], &["city"]));
        assert_eq!(after.fields, vec![field("company", "Zeta Ltd"), field("stage", "Won"), field("city", "Pune")]);
        assert_eq!(after.not_returned, vec!["city"]);
        assert!(!after.open_work);
    }

    #[test]
    fn a_first_read_keeps_only_what_it_returned_and_a_field_no_longer_kept_goes() {
        let after = after_read(&[], &read(vec![field("company", "Zeta")], &["stage"]));
        assert_eq!((after.fields, after.not_returned), (vec![field("company", "Zeta")], vec![]));
        // "city" is neither returned nor asked for: the shape no longer keeps it.
        let stored = vec![field("company", "Zeta"), field("city", "Pune")];
        let after = after_read(&stored, &read(vec![field("company", "Zeta"), field("stage", "New")], &[]));
        assert_eq!(after.fields, vec![field("company", "Zeta"), field("stage", "New")]);
        assert!(after.not_returned.is_empty());
    }
}
