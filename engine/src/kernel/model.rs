//! The model port: what the server's model providers implement, how a bot or memory's jobs pick
//! one, and what a call costs. Every area that asks a model speaks through this.

use super::label::DataLabel;
use super::store_error::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("the model did not answer within {0} s")]
    Timeout(u64),
    #[error("the model could not be reached: {0}")]
    Unreachable(String),
    #[error("the model answered with status {0}")]
    Status(u16),
    #[error("the model's answer was not in the expected shape: {0}")]
    BadResponse(String),
    /// Each model in turn was tried and none answered; says which, and why.
    #[error("no model answered: tried {0}")]
    NoneAnswered(String),
}

#[async_trait]
pub trait ChatModel: Send + Sync {
    /// `<provider>/<model>`, for logs and the agent page.
    fn name(&self) -> String;
    /// What the agent page adds after the name: a model that was tried and did not answer.
    fn status(&self) -> Option<String> {
        None
    }
    async fn chat(&self, system: &str, user: &str) -> Result<String, ModelError>;
    /// As `chat`, with what the call cost, for the spend ledger. A model that costs nothing to
    /// call (a local one) need not say.
    async fn chat_priced(&self, system: &str, user: &str) -> Result<Priced, ModelError> {
        Ok(Priced { text: self.chat(system, user).await?, millicents: 0 })
    }
}

/// A model's answer and what it cost, in thousandths of a cent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Priced {
    pub text: String,
    pub millicents: u64,
}

/// What a call costs at a price in cents per million tokens, counted over everything sent and
/// received the way every budget counts, rounded up: a priced call never counts as free.
pub fn call_millicents(cents_per_million_tokens: u32, sent: &[&str], received: &str) -> u64 {
    let tokens: u64 =
        sent.iter().chain(std::iter::once(&received)).map(|t| u64::from(crate::tokens::count_tokens(t))).sum();
    (tokens * u64::from(cents_per_million_tokens)).div_ceil(1_000)
}

/// Which model a bot's reflect step uses, or why there is none.
#[derive(Clone)]
pub enum ModelChoice {
    Use(Arc<dyn ChatModel>),
    Off(String),
}

/// Resolves a bot's `reflect.model` against what is configured on this machine.
pub trait Models: Send + Sync {
    fn resolve(&self, agent_model: &str) -> ModelChoice;
    /// A sentence for the agent page: which model runs, or that the model step is off and why.
    fn describe(&self) -> String;
    /// The model memory's jobs ask (the nightly job): the cheapest one configured.
    fn memory(&self) -> ModelChoice {
        self.resolve("cheap")
    }
    /// The cheapest of memory's models cleared for everything a call carries, labelled up to
    /// `carried`, or why none is. Unless a configuration says more, a model is cleared for
    /// internal data and below.
    fn memory_cleared_for(&self, carried: DataLabel) -> ModelChoice {
        if carried <= DataLabel::Internal {
            self.memory()
        } else {
            ModelChoice::Off(not_cleared(carried))
        }
    }
}

/// Why a call carrying data at `carried` is sent to no model.
pub fn not_cleared(carried: DataLabel) -> String {
    format!("no model of memory's is cleared for {} data", carried.as_str())
}

/// The day's cap on model calls across every bot and agent, kept by the store.
#[async_trait]
pub trait ModelCallCap: Send + Sync {
    /// Takes one model call from the day's cap; false when it is spent.
    async fn take_model_call(
        &self,
        agent: &str,
        purpose: &str,
        day_start: DateTime<Utc>,
        cap: u32,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

/// Memory's daily budget for model calls unless an admin changed it.
pub const DEFAULT_BUDGET_CENTS: u32 = 200;

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

/// The spend ledger memory's model calls are counted in, within a daily budget.
#[async_trait]
pub trait SpendLedger: Send + Sync {
    /// Today in the company's zone, as the ledger dates its lines.
    async fn spend_day(&self, now: DateTime<Utc>) -> Result<String, StoreError>;
    /// Whether memory's model calls may still spend on `day`.
    async fn budget_left(&self, day: &str) -> Result<bool, StoreError>;
    async fn count_spend(&self, spend: &Spend) -> Result<(), StoreError>;
}

/// One call of memory's model outside the nightly job (shape drafting, core drafting), to a model
/// cleared for what it carries, within the daily budget and counted in the spend ledger. `None`
/// when no such model is set, the budget is spent or the call failed: each is logged, and the
/// caller drafts by rules.
pub async fn memory_call(
    ledger: &(impl SpendLedger + ?Sized),
    models: &dyn Models,
    now: DateTime<Utc>,
    purpose: &str,
    carried: DataLabel,
    system: &str,
    user: &str,
) -> Option<String> {
    let m = match models.memory_cleared_for(carried) {
        ModelChoice::Use(m) => m,
        ModelChoice::Off(why) => {
            tracing::info!(purpose, why, "no model asked; drafting by rules");
            return None;
        }
    };
    let day = ledger.spend_day(now).await.unwrap_or_default();
    match ledger.budget_left(&day).await {
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
            if let Err(e) = ledger.count_spend(&spend).await {
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

#[cfg(test)]
mod tests {
    //! Memory's counted model call, tested against small fakes of its two ports: no database.
    use super::*;
    use std::sync::Mutex;

    /// A ledger in memory: a budget in thousandths of a cent, what was spent, and whether reads fail.
    struct Ledger {
        budget: u64,
        spent: Mutex<Vec<Spend>>,
        broken: bool,
    }

    #[async_trait]
    impl SpendLedger for Ledger {
        async fn spend_day(&self, now: DateTime<Utc>) -> Result<String, StoreError> {
            Ok(now.date_naive().to_string())
        }
        async fn budget_left(&self, day: &str) -> Result<bool, StoreError> {
            if self.broken {
                return Err(StoreError::Backend("the ledger is down".into()));
            }
            let spent: u64 =
                self.spent.lock().unwrap().iter().filter(|s| s.local_date == day).map(|s| s.millicents).sum();
            Ok(spent < self.budget)
        }
        async fn count_spend(&self, spend: &Spend) -> Result<(), StoreError> {
            self.spent.lock().unwrap().push(spend.clone());
            Ok(())
        }
    }

    /// A model that answers (at a price) or fails, and counts its calls.
    struct Model {
        answer: Result<u64, ModelError>,
        calls: Mutex<u32>,
    }

    #[async_trait]
    impl ChatModel for Model {
        fn name(&self) -> String {
            "test/cheap".into()
        }
        async fn chat(&self, _: &str, _: &str) -> Result<String, ModelError> {
            unreachable!("memory's calls are priced")
        }
        async fn chat_priced(&self, _: &str, user: &str) -> Result<Priced, ModelError> {
            *self.calls.lock().unwrap() += 1;
            self.answer.clone().map(|millicents| Priced { text: format!("drafted from {user}"), millicents })
        }
    }

    struct OneModel(Arc<Model>);

    impl Models for OneModel {
        fn resolve(&self, _: &str) -> ModelChoice {
            ModelChoice::Use(self.0.clone())
        }
        fn describe(&self) -> String {
            "test/cheap".into()
        }
    }

    fn setup(budget: u64, answer: Result<u64, ModelError>, broken: bool) -> (Ledger, Arc<Model>) {
        (Ledger { budget, spent: Mutex::new(Vec::new()), broken }, Arc::new(Model { answer, calls: Mutex::new(0) }))
    }

    async fn call(ledger: &Ledger, model: &Arc<Model>, carried: DataLabel) -> Option<String> {
        let now = DateTime::parse_from_rfc3339("2026-12-05T10:00:00Z").unwrap().with_timezone(&Utc);
        memory_call(ledger, &OneModel(model.clone()), now, "shape drafting", carried, "system", "the shapes").await
    }

    #[tokio::test]
    async fn a_call_within_the_budget_is_made_and_counted_and_one_past_it_is_not_made() {
        let (ledger, model) = setup(1_000, Ok(600), false);
        assert_eq!(call(&ledger, &model, DataLabel::Internal).await.as_deref(), Some("drafted from the shapes"));
        let spent = ledger.spent.lock().unwrap().clone();
        assert_eq!(spent.len(), 1);
        assert_eq!(
            (spent[0].local_date.as_str(), spent[0].purpose.as_str(), spent[0].model.as_str(), spent[0].millicents),
            ("2026-12-05", "shape drafting", "test/cheap", 600)
        );
        // 600 of 1,000 spent: one more call fits, and then the budget is spent.
        assert!(call(&ledger, &model, DataLabel::Internal).await.is_some());
        assert_eq!(call(&ledger, &model, DataLabel::Internal).await, None);
        assert_eq!(*model.calls.lock().unwrap(), 2, "a spent budget asks no model");
        assert_eq!(ledger.spent.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_failed_model_an_unread_ledger_or_data_above_the_clearance_is_skipped_and_nothing_counted() {
        let (ledger, model) = setup(1_000, Err(ModelError::Timeout(30)), false);
        assert_eq!(call(&ledger, &model, DataLabel::Internal).await, None);
        assert_eq!((*model.calls.lock().unwrap(), ledger.spent.lock().unwrap().len()), (1, 0));

        let (ledger, model) = setup(1_000, Ok(1), true);
        assert_eq!(call(&ledger, &model, DataLabel::Internal).await, None);
        assert_eq!(*model.calls.lock().unwrap(), 0, "a ledger that cannot be read spends nothing");

        let (ledger, model) = setup(1_000, Ok(1), false);
        assert_eq!(call(&ledger, &model, DataLabel::Confidential).await, None);
        assert_eq!(*model.calls.lock().unwrap(), 0, "no model of memory's is cleared for confidential data");
        assert!(ledger.spent.lock().unwrap().is_empty());
    }
}
