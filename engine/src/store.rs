//! The storage traits. Each backend (SQLite now, PostgreSQL later) implements them in full; all
//! SQL lives behind these.

pub use crate::cards::snapshots::SnapshotStore;
pub use crate::cards::store::{CardStore, ConnectorStore, ForgettingStore, KeptCardStore, PrepareStore};
pub use crate::cores::store::CoreStore;
pub use crate::kernel::{Actor, StoreError};
pub use crate::lessons::LessonStore;
pub use crate::org::agents::AgentAdminStore;
pub use crate::org::import::ImportStore;
pub use crate::org::people::PeopleStore;
pub use crate::org::setup::SetupStore;
pub use crate::org::store::{OrgListing, OrgStore};
pub use crate::org::teams::TeamStore;
pub use crate::org::tokens::{ApiTokenInfo, TokenStore};
use crate::org::PersonId;
pub use crate::org::{Departure, NewAgent, NewPerson};
pub use crate::persona::store::PersonaStore;
pub use crate::runs::inbox::InboxStore;
pub use crate::runs::lists::ListStore;
pub use crate::runs::store::RunStore;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// What claiming an `Idempotency-Key` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdemClaim {
    /// The key is now held by this request; it must be finished or released.
    Fresh,
    /// The same request was answered before: this is that answer.
    Replay { status: u16, body: Vec<u8> },
    /// The key was used for another request (another route or body).
    Mismatch,
    /// The same request is still being answered.
    InFlight,
}

/// Idempotency keys, so a retried `POST` gets its first answer again. Keys are scoped to the
/// caller; a key claimed before `stale_before` counts as never used.
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Claims the key atomically: of racing claims exactly one is `Fresh`.
    async fn idem_claim(
        &self,
        scope: &str,
        key: &str,
        route: &str,
        body_hash: &str,
        at: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<IdemClaim, StoreError>;
    /// Stores the answer of a claimed key.
    async fn idem_finish(&self, scope: &str, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError>;
    /// Frees an unfinished key, so that a refused request can be retried with it.
    async fn idem_release(&self, scope: &str, key: &str) -> Result<(), StoreError>;
    /// Forgets keys claimed before `before`; how many were forgotten.
    async fn idem_purge_before(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;
}

/// Everything a backend provides.
pub trait Store:
    OrgStore
    + crate::org::tokens::SignInPorts
    + crate::runs::store::RunPorts
    + crate::persona::store::BotPorts
    + crate::cards::store::CardPorts
    + crate::learning::LearningPorts
    + crate::lessons::LessonPorts
    + crate::lessons::vectors::LessonVectorStore
    + crate::cores::store::CorePorts
    + crate::org::store::OrgPorts
    + CoreStore
    + TokenStore
    + PersonaStore
    + CardStore
    + IdempotencyStore
    + RunStore
    + ListStore
    + InboxStore
    + LessonStore
    + crate::learning::nightly::NightlyStore
    + crate::learning::draft::DraftSourceStore
    + crate::lessons::scopes::MemoryScopeStore
    + crate::runs::schedules::ScheduleStore
    + crate::runs::schedules::SchedulePorts
    + crate::persona::self_edit_store::SelfEditStore
    + crate::persona::memory_audit_store::MemoryAuditStore
    + SnapshotStore
    + SetupStore
    + AgentAdminStore
    + PeopleStore
    + TeamStore
    + ImportStore
    + crate::erasure::ErasurePorts
    + crate::runs::cost::RunCostStore
    + crate::operations::OperationsPorts
    + crate::runs::schedules::SchedulePorts
    + crate::runs::agent_tokens::AgentTokenPorts
{
}
impl<
        T: OrgStore
            + CoreStore
            + TokenStore
            + PersonaStore
            + CardStore
            + IdempotencyStore
            + RunStore
            + crate::runs::store::ThreadListStore
            + ListStore
            + InboxStore
            + LessonStore
            + crate::lessons::vectors::LessonVectorStore
            + crate::learning::nightly::NightlyStore
            + crate::learning::draft::DraftSourceStore
            + crate::lessons::scopes::MemoryScopeStore
            + crate::runs::schedules::ScheduleStore
            + crate::persona::self_edit_store::SelfEditStore
            + crate::persona::memory_audit_store::MemoryAuditStore
            + crate::persona::memory_audit_store::MemoryAuditStore
            + SnapshotStore
            + SetupStore
            + AgentAdminStore
            + PeopleStore
            + TeamStore
            + ImportStore
            + crate::erasure::ErasureStore
            + crate::runs::cost::RunCostStore
            + crate::operations::OperationsStore
            + crate::runs::agent_tokens::AgentTokenStore,
    > Store for T
{
}

/// The spend ledger is kept by the store: the company's zone dates its days, the nightly job's
/// tables hold the budget and what was spent.
#[async_trait]
impl<T: OrgStore + crate::learning::nightly::NightlyStore + ?Sized> crate::kernel::model::SpendLedger for T {
    async fn spend_day(&self, now: DateTime<Utc>) -> Result<String, StoreError> {
        let zone: chrono_tz::Tz = match self.company().await? {
            Some(c) => c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC),
            None => chrono_tz::UTC,
        };
        Ok(now.with_timezone(&zone).date_naive().to_string())
    }

    async fn budget_left(&self, day: &str) -> Result<bool, StoreError> {
        let cents = self.memory_budget().await?.unwrap_or(crate::kernel::model::DEFAULT_BUDGET_CENTS);
        Ok(self.spent_on(day).await? < u64::from(cents) * 1_000)
    }

    async fn count_spend(&self, spend: &crate::kernel::model::Spend) -> Result<(), StoreError> {
        self.add_spend(spend).await
    }
}

/// Org's agents read connectors (the cards') and playbooks (the learning's) through a port org
/// names; the roof answers it from those stores.
#[async_trait]
impl<T> crate::org::store::AgentSurroundings for T
where
    T: crate::cards::store::ConnectorStore + crate::learning::draft::DraftSourceStore + ?Sized,
{
    async fn toolsets(&self) -> Result<Vec<crate::org::store::Toolset>, StoreError> {
        Ok(self
            .connectors()
            .await?
            .into_iter()
            .map(|c| crate::org::store::Toolset {
                id: c.id,
                name: c.name,
                label: c.label,
                admits_roles: c.admits_roles,
            })
            .collect())
    }

    async fn agent_playbook(&self, agent: crate::org::AgentId) -> Result<Option<String>, StoreError> {
        self.playbook(agent).await
    }

    async fn held_access(
        &self,
        agent: crate::org::AgentId,
    ) -> Result<Option<(crate::kernel::DataLabel, Vec<i64>)>, StoreError> {
        self.agent_access(agent).await
    }
}

/// A lesson's evidence names runs, which lessons read through a port they name.
#[async_trait]
impl<T: RunStore + ?Sized> crate::lessons::EvidenceRuns for T {
    async fn evidence_run(
        &self,
        run: crate::kernel::RunId,
    ) -> Result<Option<(Option<PersonId>, crate::kernel::ThreadId)>, StoreError> {
        Ok(self.run(run).await?.map(|r| (r.for_person, r.thread)))
    }
}

/// A connector's sheet shows the checks' notices, which cards read through a port they name.
#[async_trait]
impl<T: RunStore + ?Sized> crate::cards::store::LimitNotices for T {
    async fn limit_notices_of(&self, connector: i64) -> Result<Vec<crate::cards::loaded::LimitNotice>, StoreError> {
        self.limit_notices(connector).await
    }
}

/// The daily claims are kept with the forgetting job's; every area claims through the ground
/// floor's port.
#[async_trait]
impl<T: crate::cards::store::ForgettingStore + ?Sized> crate::kernel::JobClaims for T {
    async fn claim_daily_run(&self, job: &str, local_date: &str) -> Result<bool, StoreError> {
        self.claim_job_run(job, local_date).await
    }
}

/// The cap on model calls is kept with the bots' store; runs take from it through the ground
/// floor's port.
#[async_trait]
impl<T: PersonaStore + ?Sized> crate::kernel::model::ModelCallCap for T {
    async fn take_model_call(
        &self,
        agent: &str,
        purpose: &str,
        day_start: DateTime<Utc>,
        cap: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.claim_model_call(agent, purpose, day_start, cap, at).await
    }
}
