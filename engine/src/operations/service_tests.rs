//! Operations' rules, tried against the in-memory directory and a small store of runs, reads,
//! spend, tables and cards that answers the aggregates as the database would: who may see the
//! report, the day each figure lands on in the company's zone, how layers sum their tables, the
//! oldest card past its hard limit, and the projection from the people measured. No database.

use super::*;
use crate::cards::access::DataLabel;
use crate::cards::facts::FactLimits;
use crate::cards::pins::{Listed, ToolCopy, ToolPin};
use crate::cards::source::{Connector, Freshness, KeyMode, RecordShape};
use crate::cards::store::{ConnectorStore, NewConnector, OpenWhen};
use crate::clock::ManualClock;
use crate::kernel::model::Spend;
use crate::kernel::{Actor, PersonId, RunId};
use crate::learning::nightly::{BudgetStop, NightlyStore, Queued, WorkKind};
use crate::lessons::Evidence;
use crate::operations::{CostDay, DaySpend, OldestCard, OperationsStore, RunDay, Sizes, TableFigures};
use crate::org::fake::{person, FakeOrg, WithOrg};
use crate::org::{Company, TimeZoneName};
use crate::runs::cost::RunCost;
use crate::runs::Run;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// A run as the store keeps it: when it began, whether its answer was checked, what it cost.
struct KeptRun {
    at: DateTime<Utc>,
    checked: bool,
    cost: Option<RunCost>,
}

#[derive(Default)]
struct Rows {
    tables: Vec<TableFigures>,
    people: u64,
    runs: Vec<KeptRun>,
    reads: Vec<(&'static str, DateTime<Utc>)>,
    spend: Vec<(&'static str, &'static str, u64)>,
    connectors: Vec<Connector>,
    /// (connector, card, read at)
    cards: Vec<(i64, i64, DateTime<Utc>)>,
    budget: Option<u32>,
    /// How many times every table was counted, the measures kept, and the daily runs claimed.
    counted: std::sync::atomic::AtomicU32,
    measures: std::sync::Mutex<Vec<(DateTime<Utc>, Sizes)>>,
    claims: std::sync::Mutex<Vec<(String, String)>>,
}

type Fake = WithOrg<Rows>;

#[async_trait]
impl crate::kernel::JobClaims for Fake {
    async fn claim_daily_run(&self, job: &str, local_date: &str) -> Result<bool, StoreError> {
        let mut claims = self.rows.claims.lock().expect("the claims");
        let claim = (job.to_string(), local_date.to_string());
        let first = !claims.contains(&claim);
        claims.push(claim);
        Ok(first)
    }
}

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

/// Which of the spans side by side `at` falls in.
fn span_of(bounds: &[DateTime<Utc>], at: DateTime<Utc>) -> Option<usize> {
    bounds.windows(2).position(|w| w[0] <= at && at < w[1])
}

/// The value at rank ⌈p × n⌉ of the sorted values.
fn nearest_rank(sorted: &[u32], p: f64) -> Option<u32> {
    let n = sorted.len();
    (n > 0).then(|| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1])
}

#[async_trait]
impl OperationsStore for Fake {
    async fn memory_sizes(&self, _: DateTime<Utc>) -> Result<Sizes, StoreError> {
        self.rows.counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Sizes { tables: self.rows.tables.clone(), database_bytes: 1_000_000, measure: "as the fake says".into() })
    }
    async fn people_count(&self) -> Result<u64, StoreError> {
        Ok(self.rows.people)
    }
    async fn run_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<RunDay>, StoreError> {
        let mut days = vec![RunDay::default(); bounds.len() - 1];
        for r in &self.rows.runs {
            if let Some(i) = span_of(bounds, r.at) {
                days[i].runs += 1;
                days[i].checks += u64::from(r.checked);
            }
        }
        Ok(days)
    }
    async fn cost_days(&self, bounds: &[DateTime<Utc>]) -> Result<Vec<CostDay>, StoreError> {
        let mut days = vec![CostDay::default(); bounds.len() - 1];
        let mut tokens: Vec<Vec<u32>> = vec![vec![]; days.len()];
        for r in &self.rows.runs {
            let (Some(i), Some(c)) = (span_of(bounds, r.at), r.cost) else { continue };
            let d = &mut days[i];
            d.runs += 1;
            if c.block_tokens > 0 {
                d.with_block += 1;
                d.block_tokens += u64::from(c.block_tokens);
                tokens[i].push(c.block_tokens);
            }
            d.model_calls += u64::from(c.model_calls);
            d.model_tokens += c.model_tokens;
            d.model_millicents += c.model_millicents;
        }
        for (d, mut t) in days.iter_mut().zip(tokens) {
            t.sort_unstable();
            d.block_p50 = nearest_rank(&t, 0.5);
            d.block_p95 = nearest_rank(&t, 0.95);
        }
        Ok(days)
    }
    async fn reads_by_day(&self, purpose: &str, bounds: &[DateTime<Utc>]) -> Result<Vec<u64>, StoreError> {
        let mut days = vec![0; bounds.len() - 1];
        for (p, at) in &self.rows.reads {
            if let (true, Some(i)) = (*p == purpose, span_of(bounds, *at)) {
                days[i] += 1;
            }
        }
        Ok(days)
    }
    async fn spend_by_day(&self, from: &str, through: &str) -> Result<Vec<DaySpend>, StoreError> {
        let mut out: Vec<DaySpend> = vec![];
        for (day, purpose, m) in &self.rows.spend {
            if *day < from || *day > through {
                continue;
            }
            match out.iter_mut().find(|s| s.local_date == *day && s.purpose == *purpose) {
                Some(s) => {
                    s.calls += 1;
                    s.millicents += m;
                }
                None => out.push(DaySpend {
                    local_date: day.to_string(),
                    purpose: purpose.to_string(),
                    calls: 1,
                    millicents: *m,
                }),
            }
        }
        Ok(out)
    }
    async fn oldest_card(&self, connector: i64) -> Result<Option<OldestCard>, StoreError> {
        let of = self.rows.cards.iter().filter(|(c, _, _)| *c == connector);
        Ok(of.min_by_key(|(_, _, at)| *at).map(|(_, card, at)| OldestCard { card: *card, read_at: *at }))
    }
    async fn cards_read_before(&self, connector: i64, before: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self.rows.cards.iter().filter(|(c, _, at)| *c == connector && *at < before).count() as u64)
    }
    async fn keep_measure(&self, at: DateTime<Utc>, sizes: &Sizes) -> Result<(), StoreError> {
        self.rows.measures.lock().expect("the measures").push((at, sizes.clone()));
        Ok(())
    }
    async fn last_measure(&self) -> Result<Option<(DateTime<Utc>, Sizes)>, StoreError> {
        Ok(self.rows.measures.lock().expect("the measures").last().cloned())
    }
}

#[async_trait]
impl ConnectorStore for Fake {
    async fn connectors(&self) -> Result<Vec<Connector>, StoreError> {
        Ok(self.rows.connectors.clone())
    }
    async fn connector(&self, id: i64) -> Result<Option<Connector>, StoreError> {
        Ok(self.rows.connectors.iter().find(|c| c.id == id).cloned())
    }
    async fn create_connector(&self, _: &NewConnector, _: Option<&str>, _: Actor) -> Result<Connector, StoreError> {
        Err(unsupported("add connectors"))
    }
    async fn company_key(&self, _: i64) -> Result<Option<String>, StoreError> {
        Err(unsupported("hold keys"))
    }
    async fn set_company_key(&self, _: i64, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("hold keys"))
    }
    async fn person_key(&self, _: i64, _: PersonId) -> Result<Option<String>, StoreError> {
        Err(unsupported("hold keys"))
    }
    async fn set_person_key(&self, _: i64, _: PersonId, _: &str, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("hold keys"))
    }
    async fn shapes(&self, _: i64) -> Result<Vec<RecordShape>, StoreError> {
        Err(unsupported("hold shapes"))
    }
    async fn save_shape(&self, _: &RecordShape, _: Option<&OpenWhen>, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("hold shapes"))
    }
    async fn open_when(&self, _: i64, _: &str) -> Result<Option<OpenWhen>, StoreError> {
        Err(unsupported("hold shapes"))
    }
    async fn set_keep_cards(&self, _: i64, _: bool, _: Actor) -> Result<u32, StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn set_key_mode(&self, _: i64, _: KeyMode, _: &[String], _: Actor) -> Result<u32, StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn set_killed(&self, _: i64, _: bool, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn update_connector(&self, _: &Connector, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("change connectors"))
    }
    async fn tool_pins(&self, _: i64) -> Result<Vec<ToolPin>, StoreError> {
        Err(unsupported("pin tools"))
    }
    async fn pin_tool(&self, _: i64, _: &ToolCopy, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("pin tools"))
    }
    async fn note_listing(&self, _: i64, _: &str, _: Option<&Listed>, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("pin tools"))
    }
    async fn claim_read(
        &self,
        _: i64,
        _: &str,
        _: DateTime<Utc>,
        _: u32,
        _: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Err(unsupported("read connected systems"))
    }
    async fn agent_access(&self, _: crate::org::AgentId) -> Result<Option<(DataLabel, Vec<i64>)>, StoreError> {
        Err(unsupported("hold agents' access"))
    }
    async fn set_agent_access(
        &self,
        _: crate::org::AgentId,
        _: DataLabel,
        _: &[i64],
        _: Actor,
    ) -> Result<(), StoreError> {
        Err(unsupported("hold agents' access"))
    }
}

#[async_trait]
impl NightlyStore for Fake {
    async fn nightly_queue(&self) -> Result<Vec<Queued>, StoreError> {
        Err(unsupported("queue the night's work"))
    }
    async fn runs_to_read(&self, _: PersonId, _: RunId, _: u32) -> Result<Vec<Run>, StoreError> {
        Err(unsupported("read runs"))
    }
    async fn mark_read(&self, _: PersonId, _: &[WorkKind], _: RunId) -> Result<(), StoreError> {
        Err(unsupported("mark runs read"))
    }
    async fn record_budget_stop(&self, _: &BudgetStop, _: &[PersonId]) -> Result<(), StoreError> {
        Err(unsupported("record stops"))
    }
    async fn budget_stops(&self, _: u32) -> Result<Vec<BudgetStop>, StoreError> {
        Err(unsupported("record stops"))
    }
    async fn add_spend(&self, _: &Spend) -> Result<(), StoreError> {
        Err(unsupported("count spend"))
    }
    async fn spent_on(&self, _: &str) -> Result<u64, StoreError> {
        Err(unsupported("sum a day's spend"))
    }
    async fn memory_budget(&self) -> Result<Option<u32>, StoreError> {
        Ok(self.rows.budget)
    }
    async fn set_memory_budget(&self, _: u32, _: Actor) -> Result<(), StoreError> {
        Err(unsupported("set the budget"))
    }
    async fn confirm_lesson(&self, _: i64, _: &[Evidence], _: DateTime<Utc>) -> Result<(), StoreError> {
        Err(unsupported("confirm lessons"))
    }
}

/// Two core blocks of 300 and 500 bytes.
struct TwoCoreBlocks;

#[async_trait]
impl CoreBlockFiles for TwoCoreBlocks {
    async fn core_blocks(&self) -> Result<(u64, u64), String> {
        Ok((2, 800))
    }
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("a time").with_timezone(&Utc)
}

/// 20:00 UTC on 16 December: already 17 December in Kolkata.
const NOW: &str = "2026-12-16T20:00:00Z";

fn connector(id: i64, name: &str, hard_days: u32) -> Connector {
    let days = |d: u32| Freshness { soft_mins: 60, hard_mins: d * 1_440 };
    Connector {
        id,
        name: name.into(),
        base_url: "http://source.invalid".into(),
        key_mode: KeyMode::Company,
        own_key_tools: vec![],
        ticked: vec![],
        acting: vec![],
        write_targets: vec![],
        label: DataLabel::Internal,
        admits_roles: vec![],
        keep_cards: true,
        facts: FactLimits { reference: days(hard_days), state: days(1), moving: days(1) },
        free_text: Freshness { soft_mins: 30, hard_mins: 720 },
        hourly_limit: 600,
        killed: false,
        has_company_key: true,
    }
}

fn cost(block_tokens: u32, calls: u32, millicents: u64) -> Option<RunCost> {
    Some(RunCost {
        block_tokens,
        model_calls: calls,
        model_tokens: u64::from(calls) * 1_000,
        model_millicents: millicents,
    })
}

fn table(layer: Layer, name: &str, rows: u64, bytes: u64, added: Option<u64>) -> TableFigures {
    TableFigures { layer, table: name.into(), rows, bytes, fixed_bytes: 0, added }
}

/// Ada (an admin), Max, and Gil (an admin who left), in a company in Asia/Kolkata.
fn operations(rows: Rows) -> (Operations, std::sync::Arc<Fake>) {
    let (ops, fake, _) = operations_at(rows);
    (ops, fake)
}

fn operations_at(rows: Rows) -> (Operations, std::sync::Arc<Fake>, std::sync::Arc<ManualClock>) {
    let mut gone = person(3, "Gil", true, None);
    gone.left_at = Some(utc("2026-12-01T00:00:00Z"));
    let org = FakeOrg::with(vec![person(1, "Ada", true, None), person(2, "Max", false, None), gone], vec![], vec![]);
    *org.company.lock().expect("the company") = Some(Company {
        name: "Acme".into(),
        time_zone: TimeZoneName::parse("Asia/Kolkata").expect("a zone"),
        locale: Default::default(),
    });
    let fake = std::sync::Arc::new(WithOrg { org, rows });
    let clock = std::sync::Arc::new(ManualClock::new(utc(NOW)));
    let ops = Operations::new(fake.clone(), clock.clone());
    (ops, fake, clock)
}

fn counted(fake: &Fake) -> u32 {
    fake.rows.counted.load(std::sync::atomic::Ordering::SeqCst)
}

/// Counting every row of memory costs what memory holds, so the page reads a measure a daily job
/// keeps: from 03:00 in the company's zone, once a day across servers. A report with none young
/// enough measures and keeps one; the host's report always measures.
#[tokio::test]
async fn the_layers_are_measured_once_a_day_and_the_page_reads_the_kept_measure() {
    let rows = Rows { people: 2, tables: vec![table(Layer::Cards, "cards", 10, 4096, Some(1))], ..Rows::default() };
    let (ops, fake, clock) = operations_at(rows);
    let ada = who(&fake, 1);
    let first = ops.report(&ada).await.unwrap();
    assert_eq!((counted(&fake), first.measured_at), (1, Some(utc(NOW))), "none kept: measured and kept");
    clock.advance(chrono::Duration::hours(2));
    let again = ops.report(&ada).await.unwrap();
    assert_eq!((counted(&fake), again.measured_at), (1, Some(utc(NOW))), "read from the kept measure");
    assert_eq!(again.layers, first.layers);
    assert_eq!(again.at, utc(NOW) + chrono::Duration::hours(2), "the rest is read when asked");

    // 22:00 UTC is 03:30 in Kolkata: due, once, however many servers ask.
    assert_eq!(ops.measure_due().await.unwrap(), Some(clock.now()));
    assert_eq!(counted(&fake), 2);
    assert_eq!(ops.measure_due().await.unwrap(), None, "once a day");
    assert_eq!(ops.report(&ada).await.unwrap().measured_at, Some(clock.now()), "the page reads the newest");
    // 02:30 in Kolkata the next day: not yet due.
    clock.set(utc("2026-12-17T21:00:00Z"));
    assert_eq!(ops.measure_due().await.unwrap(), None, "before 03:00 in the company's zone");
    assert_eq!(counted(&fake), 2);
    assert!(fake.rows.claims.lock().unwrap().iter().all(|(job, _)| job == MEASURE_JOB));

    // A measure older than a day (the job did not run) is taken again when a report asks.
    clock.set(utc(NOW) + chrono::Duration::hours(2 + MEASURE_KEPT_HOURS));
    let late = ops.report(&ada).await.unwrap();
    assert_eq!((counted(&fake), late.measured_at), (3, Some(clock.now())));
    // The host's report (a read-only opening) measures now and keeps nothing.
    let late_at = clock.now();
    clock.advance(chrono::Duration::minutes(5));
    assert_eq!(ops.report_on_host().await.unwrap().measured_at, Some(clock.now()));
    assert_eq!(counted(&fake), 4);
    assert_eq!(ops.report(&ada).await.unwrap().measured_at, Some(late_at));
    assert_eq!(ops.measure_now().await.unwrap(), clock.now());
    assert_eq!(ops.report(&ada).await.unwrap().measured_at, Some(clock.now()));
}

fn who(fake: &Fake, id: i64) -> crate::org::Person {
    fake.org.person_now(PersonId(id)).expect("in the directory")
}

#[tokio::test]
async fn only_a_current_admin_sees_what_memory_costs() {
    let (ops, fake) = operations(Rows { people: 2, ..Rows::default() });
    for id in [2, 3] {
        let refused = ops.report(&who(&fake, id)).await.unwrap_err();
        assert_eq!(refused, OperationsError::NotAllowed(ADMINS_ONLY.into()));
        assert_eq!(crate::error::UserSafe::kind(&refused), crate::error::ErrorKind::NotAllowed);
    }
    let report = ops.report(&who(&fake, 1)).await.expect("an admin reads it");
    assert_eq!((report.people, report.time_zone.as_str()), (2, "Asia/Kolkata"));
    assert_eq!(ops.report_on_host().await.expect("the host reads it").people, 2);
}

#[tokio::test]
async fn each_figure_lands_on_its_day_in_the_companys_zone() {
    let rows = Rows {
        people: 4,
        runs: vec![
            // 17 December in Kolkata (from 18:30 UTC on the 16th): three runs, two checked.
            KeptRun { at: utc("2026-12-16T19:00:00Z"), checked: true, cost: cost(1_000, 2, 30) },
            KeptRun { at: utc("2026-12-16T19:30:00Z"), checked: true, cost: cost(3_000, 1, 20) },
            KeptRun { at: utc("2026-12-16T19:45:00Z"), checked: false, cost: cost(0, 1, 10) },
            // 16 December there, though the same UTC date.
            KeptRun { at: utc("2026-12-16T10:00:00Z"), checked: false, cost: cost(2_000, 1, 5) },
            // Ended before its cost was known (a server stopped under it).
            KeptRun { at: utc("2026-12-15T10:00:00Z"), checked: false, cost: None },
            // Before the 30 days.
            KeptRun { at: utc("2026-11-01T10:00:00Z"), checked: true, cost: cost(9_000, 9, 900) },
        ],
        reads: vec![
            ("check", utc("2026-12-16T19:01:00Z")),
            ("check", utc("2026-12-16T19:02:00Z")),
            ("run", utc("2026-12-16T19:03:00Z")),
        ],
        spend: vec![
            ("2026-12-17", "nightly job", 700),
            ("2026-12-17", "nightly job", 300),
            ("2026-12-17", "shape drafting", 40),
            ("2026-12-16", "nightly job", 100),
            ("2026-11-01", "nightly job", 5_000),
        ],
        budget: Some(150),
        ..Rows::default()
    };
    let (ops, fake) = operations(rows);
    let r = ops.report(&who(&fake, 1)).await.expect("the report");
    assert_eq!(r.days.len(), 30);
    assert_eq!((r.days[0].day.as_str(), r.days[29].day.as_str()), ("2026-11-18", "2026-12-17"));
    let today = &r.days[29];
    assert_eq!((today.runs, today.checks, today.check_reads), (3, 2, 2), "a run's own reads are not the check's");
    assert_eq!((today.with_block, today.block_tokens), (2, 4_000), "an empty memory gives no block");
    assert_eq!((today.block_p50, today.block_p95), (Some(1_000), Some(3_000)));
    assert_eq!((today.run_model_calls, today.run_model_tokens, today.run_millicents), (4, 4_000, 60));
    assert_eq!((today.nightly_calls, today.nightly_millicents, today.other_memory_millicents), (2, 1_000, 40));
    let yesterday = &r.days[28];
    assert_eq!((yesterday.runs, yesterday.block_p50, yesterday.nightly_millicents), (1, Some(2_000), 100));
    assert_eq!(r.days[27].runs, 1, "a run with no cost still counts as a run");
    assert_eq!(r.days[27].with_block, 0);

    let w = &r.window;
    assert_eq!(w.days_measured, 3, "from the first day with any work through today");
    assert_eq!((w.runs, w.checks, w.check_reads, w.with_block), (5, 2, 2, 3));
    assert_eq!((w.block_p50, w.block_p95), (Some(2_000), Some(3_000)), "ranked over the whole window");
    assert_eq!((w.nightly_calls, w.nightly_millicents, w.run_millicents), (3, 1_100, 65));
    assert_eq!(w.budget_millicents, 150_000);

    let p = r.projection.expect("a projection");
    // 5 runs over 3 days by 4 people, at 10,000 people: 4,167 a day.
    assert_eq!(p.runs_per_day, 4_167);
    assert_eq!(p.nightly_wanted_millicents, 916_667);
    assert_eq!(p.nightly_millicents_per_day, 150_000, "capped at the daily budget");
}

#[tokio::test]
async fn layers_sum_their_tables_and_the_bots_core_blocks_join_theirs() {
    let rows = Rows {
        people: 4,
        tables: vec![
            table(Layer::Cards, "cards", 100, 40_000, Some(30)),
            table(Layer::Cards, "card_terms", 900, 60_000, None),
            table(Layer::Lessons, "lessons", 10, 8_000, Some(10)),
            table(Layer::Bots, "org_agent_episodes", 5, 4_000, Some(5)),
        ],
        ..Rows::default()
    };
    let (ops, fake) = operations(rows);
    let ops = ops.with_core_blocks(std::sync::Arc::new(TwoCoreBlocks));
    let r = ops.report(&who(&fake, 1)).await.expect("the report");
    let layers: Vec<Layer> = r.layers.iter().map(|l| l.layer).collect();
    assert_eq!(layers, Layer::ALL, "every layer, in the seed's order, even an empty one");
    let cards = &r.layers[2];
    assert_eq!((cards.rows, cards.bytes, cards.added), (1_000, 100_000, 30), "undated rows add nothing");
    let bots = &r.layers[5];
    assert_eq!((bots.rows, bots.bytes), (7, 4_800));
    assert_eq!(bots.tables[1].table, "core blocks (files in the vault)");
    assert_eq!((r.layers[0].rows, r.layers[0].bytes), (0, 0));
    assert_eq!(r.memory_bytes, 112_800);
    assert_eq!(r.bytes_per_person, Some(28_200));
    assert_eq!((r.database_bytes, r.bytes_measure.as_str()), (1_000_000, "as the fake says"));
    assert_eq!(r.window.days_measured, 0, "no work yet");
    let p = r.projection.expect("a projection");
    assert_eq!(p.layers[2].bytes, 250_000_000, "cards grow with the people");
    assert_eq!(p.layers[5].bytes, 4_800, "the bots' rows are held");
    assert_eq!(p.runs_per_day, 0);
}

#[tokio::test]
async fn the_oldest_card_past_its_hard_limit_is_found_across_connectors() {
    let now = utc(NOW);
    let days_ago = |d: i64| now - chrono::Duration::days(d);
    let rows = Rows {
        people: 1,
        // Acme keeps reference data 30 days, Zen 7: a card read 20 days ago is within Acme's and
        // past Zen's.
        connectors: vec![connector(1, "Acme ATS", 30), connector(2, "Zen Desk", 7), connector(3, "Empty", 1)],
        cards: vec![
            (1, 10, days_ago(20)),
            (1, 11, days_ago(2)),
            (2, 20, days_ago(10)),
            (2, 21, days_ago(8)),
            (2, 22, days_ago(1)),
        ],
        ..Rows::default()
    };
    let (ops, fake) = operations(rows);
    let r = ops.report(&who(&fake, 1)).await.expect("the report");
    let past = r.oldest_past_limit.expect("one is past");
    assert_eq!((past.card, past.connector.as_str(), past.read_at), (20, "Zen Desk", days_ago(10)));
    assert_eq!((past.hard_mins, past.cards_past_limit), (7 * 1_440, 2));

    let (ops, fake) = operations(Rows {
        people: 1,
        connectors: vec![connector(1, "Acme ATS", 30)],
        cards: vec![(1, 10, days_ago(20))],
        ..Rows::default()
    });
    assert_eq!(ops.report(&who(&fake, 1)).await.expect("the report").oldest_past_limit, None);
}

#[tokio::test]
async fn nobody_to_measure_gives_no_figure_per_person_and_no_projection() {
    let (ops, fake) = operations(Rows::default());
    let r = ops.report(&who(&fake, 1)).await.expect("the report");
    assert_eq!((r.people, r.bytes_per_person, &r.projection), (0, None, &None));
    let lines = crate::operations::words::report_lines(&r);
    assert!(lines.contains(&"No projection: nobody to measure per person.".to_string()), "{lines:?}");
}
