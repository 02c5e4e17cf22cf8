//! Operations: what memory costs. For admins (and the host's `engram ops report`): per layer of
//! memory the rows, the bytes on disk and what was written in the last 30 days; per day in the
//! company's zone the runs, the block's tokens, the checks and their reads, the nightly job's
//! calls and spend and what runs spent on their model; the oldest card past its hard limit; the
//! storage per person; and a projection of all of it to 10,000 people from the figures measured
//! per person.
//!
//! An admin sees that memory exists, never what it says: the report holds counts, sizes and ids,
//! never a value. Every figure is read as an aggregate the database computes (counts, sums and
//! ranks by day over indexed times), so the rows a report reads do not grow with the organisation.

pub mod days;
pub mod projection;
pub mod service;
pub mod words;

use crate::kernel::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use projection::{ProjectedLayer, Projection, PROJECTED_PEOPLE};
pub use service::{Operations, OperationsError};

/// How many days the report reads: the growth of each layer and the figures per day.
pub const WINDOW_DAYS: u32 = 30;

/// The layers of memory, as the seed names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// Role and team cores, their versions and suggested changes.
    Cores,
    /// Who's who: the reference lists' kept entries and what each names.
    WhosWho,
    /// Cards, each person's use of them, their match terms, forgotten records and what checks found.
    Cards,
    /// List snapshots.
    Lists,
    /// Lessons, with their evidence.
    Lessons,
    /// The bots' rows: episodes, memory lines, core blocks, improve cards, self-edits, memory audits.
    Bots,
}

crate::string_enum!(Layer {
    Cores => "cores",
    WhosWho => "whos_who",
    Cards => "cards",
    Lists => "lists",
    Lessons => "lessons",
    Bots => "bots",
});

impl Layer {
    pub const ALL: [Layer; 6] = [Layer::Cores, Layer::WhosWho, Layer::Cards, Layer::Lists, Layer::Lessons, Layer::Bots];

    pub fn words(&self) -> &'static str {
        match self {
            Layer::Cores => "Cores",
            Layer::WhosWho => "Who's who",
            Layer::Cards => "Cards",
            Layer::Lists => "Lists",
            Layer::Lessons => "Lessons",
            Layer::Bots => "Bots' rows",
        }
    }

    /// Whether the layer grows with the people. The bots' rows grow with the bots and their wakes,
    /// whatever the company's size, so a projection holds them as they are.
    pub fn grows_with_people(&self) -> bool {
        !matches!(self, Layer::Bots)
    }
}

/// One table of a layer (or one kind of row in a table), as the store measured it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableFigures {
    pub layer: Layer,
    /// As the store names it: "cards", "tasks (improve cards)", "core blocks (files in the vault)".
    pub table: String,
    pub rows: u64,
    /// On disk, its indexes included, as [`Sizes::measure`] says.
    pub bytes: u64,
    /// What of those it takes with no rows at all: the first page of each of its b-trees. Only
    /// what is past it grows with the rows.
    pub fixed_bytes: u64,
    /// Rows written since the window began; `None` for rows that carry no time of their own.
    pub added: Option<u64>,
}

/// What memory's tables hold and take on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sizes {
    pub tables: Vec<TableFigures>,
    /// The whole database: every table and index, memory or not.
    pub database_bytes: u64,
    /// How the bytes were measured, in words for the page.
    pub measure: String,
}

/// What the runs that began within one span did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunDay {
    pub runs: u64,
    /// Of them, those whose answer was checked after it (checked, changed or not checked).
    pub checks: u64,
}

/// What the runs that began within one span cost, from what each kept when it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostDay {
    /// Runs that kept a cost.
    pub runs: u64,
    /// Of them, those given a block (more than 0 tokens).
    pub with_block: u64,
    /// The tokens of those blocks, summed.
    pub block_tokens: u64,
    /// The block's tokens at the 50th and 95th percentile over the runs given one, by nearest
    /// rank: the value at rank ⌈p × n⌉ of the n sorted; `None` when no run was given one.
    pub block_p50: Option<u32>,
    pub block_p95: Option<u32>,
    pub model_calls: u64,
    pub model_tokens: u64,
    pub model_millicents: u64,
}

/// Memory's model calls on one day in the company's zone, for one purpose ("nightly job").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaySpend {
    pub local_date: String,
    pub purpose: String,
    pub calls: u64,
    pub millicents: u64,
}

/// A connector's card read longest ago.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OldestCard {
    pub card: i64,
    pub read_at: DateTime<Utc>,
}

/// What Operations reads. Each answer is an aggregate: counts, sums, ranks, sizes.
#[async_trait]
pub trait OperationsStore: Send + Sync {
    /// Every table of memory's layers: its rows, its bytes on disk with its indexes, and the rows
    /// written at or after `since`; and the whole database's bytes.
    async fn memory_sizes(&self, since: DateTime<Utc>) -> Result<Sizes, StoreError>;
    /// People who have not left.
    async fn people_count(&self) -> Result<u64, StoreError>;
    /// For spans side by side, whose edges are `bounds` (n + 1 ascending instants for n spans):
    /// the runs that began within each, and how many of them were checked. One per span, in order.
    async fn run_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<RunDay>, StoreError>;
    /// As `run_days`, what those runs cost, with the block's percentiles for each span.
    async fn cost_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<CostDay>, StoreError>;
    /// As `run_days`, the reads of connected systems made for `purpose` within each span.
    async fn reads_by_day(&self, purpose: &str, bounds: &[DateTime<Utc>]) -> Result<Vec<u64>, StoreError>;
    /// Memory's model calls per day and purpose in the spend ledger, `from` through `through`
    /// (dates in the company's zone, as the ledger dates them), by day.
    async fn spend_by_day(&self, from: &str, through: &str) -> Result<Vec<DaySpend>, StoreError>;
    /// The connector's card read longest ago, if it has any.
    async fn oldest_card(&self, connector: i64) -> Result<Option<OldestCard>, StoreError>;
    /// How many of the connector's cards were read before `before`.
    async fn cards_read_before(&self, connector: i64, before: DateTime<Utc>) -> Result<u64, StoreError>;
    /// Keeps a measure of memory's tables, taken at `at`, for the report to read until the next.
    async fn keep_measure(&self, at: DateTime<Utc>, sizes: &Sizes) -> Result<(), StoreError>;
    /// The measure kept last, with when it was taken.
    async fn last_measure(&self) -> Result<Option<(DateTime<Utc>, Sizes)>, StoreError>;
}

/// The bots' core blocks are files in the vault, not rows; the roof answers this from the vault.
#[async_trait]
pub trait CoreBlockFiles: Send + Sync {
    /// How many core blocks there are, and their bytes; why not, in words, when the vault could
    /// not be read.
    async fn core_blocks(&self) -> Result<(u64, u64), String>;
}

crate::port!(
    /// What Operations reads: its own aggregates, the company's zone, the connectors' hard limits
    /// and memory's daily budget.
    OperationsPorts: OperationsStore,
    crate::kernel::JobClaims,
    crate::org::store::OrgStore,
    crate::cards::store::ConnectorStore,
    crate::learning::nightly::NightlyStore
);

/// The report, as the page, the API and `engram ops report --json` give it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperationsReport {
    pub at: DateTime<Utc>,
    /// When the layers' rows and bytes were measured: once a day by a job, as counting every row
    /// of memory costs what memory holds; the rest of the report is read when it is asked for.
    #[serde(default)]
    pub measured_at: Option<DateTime<Utc>>,
    /// The zone its days are dated in: the company's.
    pub time_zone: String,
    /// People who have not left.
    pub people: u64,
    pub layers: Vec<LayerFigures>,
    /// Every layer's bytes together.
    pub memory_bytes: u64,
    /// The whole database, memory or not.
    pub database_bytes: u64,
    /// How bytes were measured, in words.
    pub bytes_measure: String,
    /// Memory's bytes per person who has not left; `None` with nobody.
    pub bytes_per_person: Option<u64>,
    /// The last 30 days, oldest first, today last.
    pub days: Vec<DayFigures>,
    /// The 30 days together.
    pub window: WindowFigures,
    pub oldest_past_limit: Option<PastLimit>,
    /// `None` with nobody to measure per person.
    pub projection: Option<Projection>,
}

/// One layer: its tables summed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerFigures {
    pub layer: Layer,
    pub rows: u64,
    pub bytes: u64,
    /// What its tables take with no rows at all.
    pub fixed_bytes: u64,
    /// Rows written in the last 30 days, in the tables whose rows carry a time.
    pub added: u64,
    pub tables: Vec<TableFigures>,
}

/// One day in the company's zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayFigures {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub runs: u64,
    pub checks: u64,
    /// Reads of connected systems the checks made.
    pub check_reads: u64,
    /// Runs given a block, and its tokens at the 50th and 95th percentile.
    pub with_block: u64,
    pub block_p50: Option<u32>,
    pub block_p95: Option<u32>,
    pub block_tokens: u64,
    pub nightly_calls: u64,
    pub nightly_millicents: u64,
    /// Memory's other model calls (drafting record shapes and cores), counted against the same budget.
    pub other_memory_millicents: u64,
    /// The runs' model calls, the tokens they sent and received, and what they cost at the agent
    /// model's price.
    pub run_model_calls: u64,
    pub run_model_tokens: u64,
    pub run_millicents: u64,
}

impl DayFigures {
    /// Whether anything ran or was spent that day.
    pub fn had_work(&self) -> bool {
        self.runs + self.check_reads + self.nightly_calls + self.other_memory_millicents + self.run_model_calls > 0
    }
}

/// The 30 days together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowFigures {
    /// From the first day with any work through today: what per-day figures are averaged over.
    pub days_measured: u32,
    pub runs: u64,
    pub checks: u64,
    pub check_reads: u64,
    pub with_block: u64,
    pub block_tokens: u64,
    pub block_p50: Option<u32>,
    pub block_p95: Option<u32>,
    pub nightly_calls: u64,
    pub nightly_millicents: u64,
    pub other_memory_millicents: u64,
    pub run_model_calls: u64,
    pub run_model_tokens: u64,
    pub run_millicents: u64,
    /// Memory's daily budget, in thousandths of a cent.
    pub budget_millicents: u64,
}

/// The card read longest ago of those past their connector's hard limit: ids and ages only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastLimit {
    pub card: i64,
    pub connector: String,
    pub read_at: DateTime<Utc>,
    /// The connector's longest hard limit, in minutes.
    pub hard_mins: u32,
    /// Cards past their connector's hard limit, over every connector.
    pub cards_past_limit: u64,
}
