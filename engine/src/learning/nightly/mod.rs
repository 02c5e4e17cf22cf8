//! The nightly job: once a day, from 02:00 in the company's zone, it reads each person's runs
//! since it last read theirs and asks the cheapest model what is worth remembering. Personal
//! lessons are written at once; team and company lessons wait for review; a lesson the day
//! showed again is confirmed and one it showed wrong is superseded. It works within a daily
//! budget counted in the spend ledger, and reads first next night whoever the budget left out.

mod job;
pub mod prompt;
pub mod settings;
pub mod work;

pub use crate::kernel::model::{memory_call, Spend, SpendLedger, DEFAULT_BUDGET_CENTS};
pub use job::{Nightly, NightlyOutcome, NightlyReport};
pub use work::WorkKind;

use crate::kernel::{Actor, StoreError};
use crate::lessons::Evidence;
use crate::org::PersonId;
use crate::runs::{Run, RunId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The job runs from this hour in the company's zone.
pub const NIGHTLY_HOUR: u32 = 2;
/// The most a budget may be set to: a typing slip should not spend a fortune.
pub const MAX_BUDGET_CENTS: u32 = 100_000;
/// The place the budget is changed, as the notice to admins names it.
pub const MEMORY_SETTINGS: &str = "Company → Memory settings";
/// How the spend ledger names the nightly job's calls.
pub const NIGHTLY_PURPOSE: &str = "nightly job";
/// At most this many runs go into one call, so one call stays cheap; the rest wait a night.
pub const RUNS_PER_CALL: u32 = 20;

/// One person whose runs wait to be read, after the last run the job read of each kind of theirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    pub person: PersonId,
    pub personal_through: RunId,
    pub shared_through: RunId,
    pub private_through: RunId,
    /// The budget ran out before their turn on an earlier night.
    pub left_out: bool,
}

impl Queued {
    /// Where reading starts: the kind read least far.
    pub fn after(&self) -> RunId {
        self.personal_through.min(self.shared_through).min(self.private_through)
    }

    /// The last run of this kind the job read.
    pub fn through(&self, kind: WorkKind) -> RunId {
        match kind {
            WorkKind::Personal => self.personal_through,
            WorkKind::Shared => self.shared_through,
            WorkKind::Private => self.private_through,
        }
    }
}

/// A night the budget ran out: what the admins are told. Ids and counts only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetStop {
    pub local_date: String,
    pub budget_cents: u32,
    pub left_out: u32,
    pub at: DateTime<Utc>,
}

impl BudgetStop {
    /// The notice, naming the place the budget is changed.
    pub fn notice(&self) -> String {
        let people =
            if self.left_out == 1 { "1 person was".to_string() } else { format!("{} people were", self.left_out) };
        format!(
            "The nightly job stopped on {}: memory's daily budget of {} was spent. {people} left out and will be read first the next night. The budget is under {MEMORY_SETTINGS}.",
            self.local_date,
            cents(self.budget_cents)
        )
    }
}

/// Today in the company's zone, as the spend ledger dates its lines.
pub async fn company_day(ledger: &(impl SpendLedger + ?Sized), now: DateTime<Utc>) -> Result<String, StoreError> {
    ledger.spend_day(now).await
}

/// "1 cent", "200 cents".
pub fn cents(n: u32) -> String {
    if n == 1 {
        "1 cent".into()
    } else {
        format!("{n} cents")
    }
}

#[async_trait]
pub trait NightlyStore: Send + Sync {
    /// Everyone with answered runs of a kind after the last one of that kind the job read of
    /// theirs: those the budget left out first, then by id. A person's runs are their asks
    /// (personal work) and their agents' scheduled work (shared work).
    async fn nightly_queue(&self) -> Result<Vec<Queued>, StoreError>;
    /// The person's answered runs after `after`, oldest first, at most `limit`, with their steps.
    async fn runs_to_read(&self, person: PersonId, after: RunId, limit: u32) -> Result<Vec<Run>, StoreError>;
    /// The job has read the person's runs of these kinds up to `through`; a mark never moves
    /// back. They are no longer left out.
    async fn mark_read(&self, person: PersonId, kinds: &[WorkKind], through: RunId) -> Result<(), StoreError>;
    /// Records the night the budget ran out and marks who it left out, in one transaction.
    async fn record_budget_stop(&self, stop: &BudgetStop, left_out: &[PersonId]) -> Result<(), StoreError>;
    /// The nights the budget ran out, newest first.
    async fn budget_stops(&self, limit: u32) -> Result<Vec<BudgetStop>, StoreError>;
    async fn add_spend(&self, spend: &Spend) -> Result<(), StoreError>;
    /// What memory's model calls cost on a day in the company's zone, in thousandths of a cent.
    async fn spent_on(&self, local_date: &str) -> Result<u64, StoreError>;
    /// The daily budget an admin set, in cents; `None` until one did.
    async fn memory_budget(&self) -> Result<Option<u32>, StoreError>;
    /// Audited, with the old and new amounts.
    async fn set_memory_budget(&self, cents: u32, actor: Actor) -> Result<(), StoreError>;
    /// Adds evidence to an accepted lesson and marks it confirmed, so it no longer expires;
    /// `Changed` if it is no longer accepted.
    async fn confirm_lesson(&self, id: i64, evidence: &[Evidence], at: DateTime<Utc>) -> Result<(), StoreError>;
}
