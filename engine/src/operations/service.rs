//! Operations, the use case: the report of what memory costs, for admins who have not left, and
//! for whoever runs `engram ops report` on the host, who holds the database itself.

use super::days::company_days;
use super::projection::{project, PROJECTED_PEOPLE};
use super::{
    CoreBlockFiles, CostDay, DayFigures, Layer, LayerFigures, OperationsPorts, OperationsReport, PastLimit, Sizes,
    TableFigures, WindowFigures, WINDOW_DAYS,
};
use crate::cards::service::CHECK_READ;
use crate::clock::Clock;
use crate::kernel::StoreError;
use crate::learning::nightly::{DEFAULT_BUDGET_CENTS, NIGHTLY_PURPOSE};
use crate::org::Person;
use chrono::{DateTime, Duration, NaiveTime, Utc};
use std::sync::Arc;

pub const ADMINS_ONLY: &str = "Only an admin sees what memory costs";

/// The hour, in the company's zone, from which memory's tables are measured each day: after the
/// forgetting job's, so the measure sees what it removed.
pub const MEASURE_HOUR: u32 = 3;
/// The name the daily measure is claimed under.
pub const MEASURE_JOB: &str = "operations_measure";
/// A report reads the measure kept last while it is this young; an older one (the job did not run,
/// or the company is new) is measured again when the report is asked for, and kept.
pub const MEASURE_KEPT_HOURS: i64 = 25;

/// Why the report was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OperationsError {
    #[error("{0}")]
    NotAllowed(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

impl From<StoreError> for OperationsError {
    fn from(e: StoreError) -> Self {
        OperationsError::Internal(e.to_string())
    }
}

impl crate::error::UserSafe for OperationsError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            OperationsError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            OperationsError::Internal(_) => crate::error::ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            OperationsError::NotAllowed(_) => "not_allowed",
            OperationsError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            OperationsError::Internal(detail) => Some(detail.clone()),
            OperationsError::NotAllowed(_) => None,
        }
    }
}

/// The Operations page, `GET /api/ops/report` and `engram ops report`.
#[derive(Clone)]
pub struct Operations {
    store: Arc<dyn OperationsPorts>,
    clock: Arc<dyn Clock>,
    /// The bots' core blocks on disk; without a vault there are none.
    core_blocks: Option<Arc<dyn CoreBlockFiles>>,
}

impl Operations {
    pub fn new(store: Arc<dyn OperationsPorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock, core_blocks: None }
    }

    pub fn with_core_blocks(mut self, files: Arc<dyn CoreBlockFiles>) -> Self {
        self.core_blocks = Some(files);
        self
    }

    /// The report, for an admin who has not left. It holds counts, sizes and ids, never what
    /// memory says.
    pub async fn report(&self, me: &Person) -> Result<OperationsReport, OperationsError> {
        if !me.is_admin || me.left_at.is_some() {
            return Err(OperationsError::NotAllowed(ADMINS_ONLY.into()));
        }
        self.measure(false).await
    }

    /// The report for the host's `engram ops report`: whoever runs it holds the database itself,
    /// and is given the layers measured now. It opens the database read-only, so the measure is
    /// not kept.
    pub async fn report_on_host(&self) -> Result<OperationsReport, OperationsError> {
        self.measure(true).await
    }

    /// Measures memory's tables now and keeps the measure for the page, as the daily job does.
    pub async fn measure_now(&self) -> Result<DateTime<Utc>, OperationsError> {
        let now = measure_time(self.clock.now());
        let (_, bounds) = company_days(now, self.zone().await?, WINDOW_DAYS);
        self.measure_sizes(now, bounds[0], true).await?;
        Ok(now)
    }

    /// Measures memory's tables once a day, from [`MEASURE_HOUR`] in the company's zone, claimed
    /// once across servers; `Some` with when, when it did.
    pub async fn measure_due(&self) -> Result<Option<DateTime<Utc>>, OperationsError> {
        let now = self.clock.now();
        let zone = self.zone().await?;
        let local = now.with_timezone(&zone);
        if local.time() < NaiveTime::from_hms_opt(MEASURE_HOUR, 0, 0).unwrap_or(NaiveTime::MIN)
            || !self.store.claim_daily_run(MEASURE_JOB, &local.date_naive().to_string()).await?
        {
            return Ok(None);
        }
        let (_, bounds) = company_days(now, zone, WINDOW_DAYS);
        let at = measure_time(now);
        self.measure_sizes(at, bounds[0], true).await?;
        Ok(Some(at))
    }

    /// Counts and sizes every table of memory, the bots' core blocks in the vault with them, and
    /// keeps the measure for the report when `keep`.
    async fn measure_sizes(
        &self,
        now: DateTime<Utc>,
        since: DateTime<Utc>,
        keep: bool,
    ) -> Result<Sizes, OperationsError> {
        let mut sizes = self.store.memory_sizes(since).await?;
        if let Some(files) = &self.core_blocks {
            match files.core_blocks().await {
                Ok((n, b)) => sizes.tables.push(TableFigures {
                    layer: Layer::Bots,
                    table: "core blocks (files in the vault)".into(),
                    rows: n,
                    bytes: b,
                    fixed_bytes: 0,
                    added: None,
                }),
                Err(why) => tracing::warn!(%why, "the bots' core blocks were not measured"),
            }
        }
        if keep {
            self.store.keep_measure(now, &sizes).await?;
        }
        Ok(sizes)
    }

    async fn zone(&self) -> Result<chrono_tz::Tz, OperationsError> {
        Ok(match self.store.company().await? {
            Some(c) => c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC),
            None => chrono_tz::UTC,
        })
    }

    async fn measure(&self, fresh: bool) -> Result<OperationsReport, OperationsError> {
        let now = self.clock.now();
        let zone = self.zone().await?;
        let (dates, bounds) = company_days(now, zone, WINDOW_DAYS);
        let since = bounds[0];
        let whole_span = [bounds[0], bounds[bounds.len() - 1]];

        let (measured_at, sizes) = match self.store.last_measure().await? {
            Some((at, sizes)) if !fresh && now - at < Duration::hours(MEASURE_KEPT_HOURS) => (at, sizes),
            _ => (measure_time(now), self.measure_sizes(measure_time(now), since, !fresh).await?),
        };
        let layers: Vec<LayerFigures> = Layer::ALL
            .into_iter()
            .map(|layer| {
                let tables: Vec<TableFigures> = sizes.tables.iter().filter(|t| t.layer == layer).cloned().collect();
                LayerFigures {
                    layer,
                    rows: tables.iter().map(|t| t.rows).sum(),
                    bytes: tables.iter().map(|t| t.bytes).sum(),
                    fixed_bytes: tables.iter().map(|t| t.fixed_bytes).sum(),
                    added: tables.iter().filter_map(|t| t.added).sum(),
                    tables,
                }
            })
            .collect();
        let memory_bytes: u64 = layers.iter().map(|l| l.bytes).sum();
        let people = self.store.people_count().await?;

        let runs = self.store.run_days(&bounds).await?;
        let costs = self.store.cost_days(&bounds).await?;
        let whole = self.store.cost_days(&whole_span).await?.into_iter().next().unwrap_or_default();
        let reads = self.store.reads_by_day(CHECK_READ, &bounds).await?;
        let first = dates.first().map(|d| d.to_string()).unwrap_or_default();
        let last = dates.last().map(|d| d.to_string()).unwrap_or_default();
        let spend = self.store.spend_by_day(&first, &last).await?;
        let days: Vec<DayFigures> = dates
            .iter()
            .enumerate()
            .map(|(i, date)| {
                let day = date.to_string();
                let r = runs.get(i).copied().unwrap_or_default();
                let c: CostDay = costs.get(i).copied().unwrap_or_default();
                let on_day = spend.iter().filter(|s| s.local_date == day);
                let (nightly, other): (Vec<_>, Vec<_>) = on_day.partition(|s| s.purpose == NIGHTLY_PURPOSE);
                DayFigures {
                    runs: r.runs,
                    checks: r.checks,
                    check_reads: reads.get(i).copied().unwrap_or(0),
                    with_block: c.with_block,
                    block_p50: c.block_p50,
                    block_p95: c.block_p95,
                    block_tokens: c.block_tokens,
                    nightly_calls: nightly.iter().map(|s| s.calls).sum(),
                    nightly_millicents: nightly.iter().map(|s| s.millicents).sum(),
                    other_memory_millicents: other.iter().map(|s| s.millicents).sum(),
                    run_model_calls: c.model_calls,
                    run_model_tokens: c.model_tokens,
                    run_millicents: c.model_millicents,
                    day,
                }
            })
            .collect();
        let days_measured = days.iter().position(DayFigures::had_work).map(|i| (days.len() - i) as u32).unwrap_or(0);
        let budget_cents = self.store.memory_budget().await?.unwrap_or(DEFAULT_BUDGET_CENTS);
        let sum = |f: fn(&DayFigures) -> u64| days.iter().map(f).sum::<u64>();
        let window = WindowFigures {
            days_measured,
            runs: sum(|d| d.runs),
            checks: sum(|d| d.checks),
            check_reads: sum(|d| d.check_reads),
            with_block: whole.with_block,
            block_tokens: whole.block_tokens,
            block_p50: whole.block_p50,
            block_p95: whole.block_p95,
            nightly_calls: sum(|d| d.nightly_calls),
            nightly_millicents: sum(|d| d.nightly_millicents),
            other_memory_millicents: sum(|d| d.other_memory_millicents),
            run_model_calls: whole.model_calls,
            run_model_tokens: whole.model_tokens,
            run_millicents: whole.model_millicents,
            budget_millicents: u64::from(budget_cents) * 1_000,
        };
        let oldest_past_limit = self.oldest_past_limit(now).await?;
        let projection = project(people, &layers, &window, PROJECTED_PEOPLE);
        Ok(OperationsReport {
            at: now,
            measured_at: Some(measured_at),
            time_zone: zone.name().to_string(),
            people,
            memory_bytes,
            database_bytes: sizes.database_bytes,
            bytes_measure: sizes.measure,
            bytes_per_person: (people > 0).then(|| (memory_bytes as f64 / people as f64).round() as u64),
            layers,
            days,
            window,
            oldest_past_limit,
            projection,
        })
    }

    /// Of each connector's card read longest ago, the oldest past its connector's hard limit (the
    /// longest of its kinds'), with how many are past it over every connector. One indexed read per
    /// connector, and a count only where its oldest card is past the limit.
    async fn oldest_past_limit(&self, now: DateTime<Utc>) -> Result<Option<PastLimit>, OperationsError> {
        let mut oldest: Option<PastLimit> = None;
        let mut past = 0;
        for c in self.store.connectors().await? {
            let hard = c.hard_mins();
            let Some(card) = self.store.oldest_card(c.id).await? else { continue };
            let limit = now - Duration::minutes(i64::from(hard));
            if card.read_at >= limit {
                continue;
            }
            past += self.store.cards_read_before(c.id, limit).await?;
            if oldest.as_ref().is_none_or(|o| card.read_at < o.read_at) {
                oldest = Some(PastLimit {
                    card: card.card,
                    connector: c.name.clone(),
                    read_at: card.read_at,
                    hard_mins: hard,
                    cards_past_limit: 0,
                });
            }
        }
        Ok(oldest.map(|o| PastLimit { cards_past_limit: past, ..o }))
    }
}

/// A measure's time as both backends keep it: to the microsecond, PostgreSQL's precision.
fn measure_time(at: DateTime<Utc>) -> DateTime<Utc> {
    chrono::SubsecRound::trunc_subsecs(at, 6)
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod fake_tests;
