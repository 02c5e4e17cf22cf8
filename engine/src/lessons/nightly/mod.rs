//! The nightly job: once a day, from 02:00 in the company's zone, it reads each person's runs
//! since it last read theirs and asks the cheapest model what is worth remembering. Personal
//! lessons are written at once; team and company lessons wait for review; a lesson the day
//! showed again is confirmed and one it showed wrong is superseded. It works within a daily
//! budget counted in the spend ledger, and reads first next night whoever the budget left out.

mod job;
pub mod prompt;
pub mod settings;
pub mod work;

pub use job::{Nightly, NightlyOutcome, NightlyReport};
pub use work::WorkKind;

use super::Evidence;
use crate::org::PersonId;
use crate::runs::{Run, RunId};
use crate::store::{Actor, StoreError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The job runs from this hour in the company's zone.
pub const NIGHTLY_HOUR: u32 = 2;
/// Memory's daily budget for model calls unless an admin changed it.
pub const DEFAULT_BUDGET_CENTS: u32 = 200;
/// The most a budget may be set to: a typing slip should not spend a fortune.
pub const MAX_BUDGET_CENTS: u32 = 100_000;
/// The place the budget is changed, as the notice to admins names it.
pub const MEMORY_SETTINGS: &str = "Company → Memory settings";
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

/// One line of the spend ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spend {
    pub local_date: String,
    /// "nightly job", "shape drafting".
    pub purpose: String,
    pub model: String,
    pub millicents: u64,
    pub at: DateTime<Utc>,
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
pub async fn company_day(store: &dyn crate::store::Store, now: DateTime<Utc>) -> Result<String, StoreError> {
    let zone: chrono_tz::Tz = match store.company().await? {
        Some(c) => c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC),
        None => chrono_tz::UTC,
    };
    Ok(now.with_timezone(&zone).date_naive().to_string())
}

/// Whether memory's model calls may still spend today: what the ledger holds for the day is
/// under the budget.
pub async fn budget_left(store: &dyn crate::store::Store, day: &str) -> Result<bool, StoreError> {
    let budget = u64::from(store.memory_budget().await?.unwrap_or(DEFAULT_BUDGET_CENTS)) * 1_000;
    Ok(store.spent_on(day).await? < budget)
}

/// One call of memory's model outside the nightly job (shape drafting, core drafting), to a model
/// cleared for what it carries, within the daily budget and counted in the spend ledger. `None`
/// when no such model is set, the budget is spent or the call failed: each is logged, and the
/// caller drafts by rules.
pub async fn memory_call(
    store: &dyn crate::store::Store,
    models: &dyn crate::persona::model::Models,
    now: DateTime<Utc>,
    purpose: &str,
    carried: crate::cards::access::DataLabel,
    system: &str,
    user: &str,
) -> Option<String> {
    use crate::persona::model::ModelChoice;
    let m = match models.memory_cleared_for(carried) {
        ModelChoice::Use(m) => m,
        ModelChoice::Off(why) => {
            tracing::info!(purpose, why, "no model asked; drafting by rules");
            return None;
        }
    };
    let day = company_day(store, now).await.unwrap_or_default();
    match budget_left(store, &day).await {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!(purpose, "memory's daily budget is spent; drafting by rules");
            return None;
        }
        Err(e) => {
            tracing::warn!(purpose, error = %e, "the spend ledger was not read; drafting by rules");
            return None;
        }
    }
    match m.chat_priced(system, user).await {
        Ok(priced) => {
            let spend = Spend {
                local_date: day,
                purpose: purpose.into(),
                model: m.name(),
                millicents: priced.millicents,
                at: now,
            };
            if let Err(e) = store.add_spend(&spend).await {
                tracing::warn!(error = %e, "a model call was not counted in the spend ledger");
            }
            Some(priced.text)
        }
        Err(e) => {
            tracing::warn!(purpose, error = %e, "memory's model failed; drafting by rules");
            None
        }
    }
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
