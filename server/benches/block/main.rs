//! Prints p50 and p99 of assembling one run's memory block from the store (`Runs::block_for`: the
//! cores, the cards selected for the question, who's who), for a person among 10,000 people with
//! 300 cards each, and in the same run the same block by a naive baseline that reads every use row
//! and computes the exact activation sum. Nothing calls a model; nothing is recorded.
//!
//! Run with `cargo bench -p server --bench block --features bench-seed`; the backend is
//! `ENGRAM_BENCH_BACKEND` (`sqlite`, the default, or `postgres`), or `sqlite`/`postgres` after `--`.
//! PostgreSQL gets a new database on `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`),
//! dropped at the end. With `ENGRAM_BENCH_KEEP` set, the seeded database is kept and its folder
//! (SQLite) or name (PostgreSQL) printed, and `ENGRAM_BENCH_REUSE=<folder or name>` times that one
//! again instead of seeding. Figures are printed, never asserted.

mod naive;
mod seed;

use engine::cards::select::{question_terms, READ_PADS_BELOW};
use engine::cards::service::PersonMemory;
use engine::cards::source::Source;
use engine::org::Agent;
use engine::runs::lists::ReferenceLists;
use engine::runs::model::AgentModelChoice;
use engine::runs::service::{AgentModels, Runs};
use engine::runs::{MemoryRef, RunKind};
use engine::tokens::count_tokens;
use engine::{Clock, SystemClock};
use server::connector::HttpSource;
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Assembling a block never asks a model.
struct NoModel;
impl AgentModels for NoModel {
    fn for_agent(&self, _agent: &Agent) -> AgentModelChoice {
        AgentModelChoice::Off("the benchmark asks no model".into())
    }
}

fn report(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A new, empty database: its URL, its label, and what removes it afterwards.
struct BenchDatabase {
    url: String,
    label: String,
    dir: tempfile::TempDir,
    postgres: Option<(String, String)>,
}

impl BenchDatabase {
    async fn create(postgres: bool) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        if let (false, Some(kept)) = (postgres, std::env::var_os("ENGRAM_BENCH_REUSE")) {
            let kept = std::path::PathBuf::from(kept);
            return Self {
                url: format!("sqlite://{}/bench.db", kept.display()),
                label: format!("SQLite (WAL, synchronous=NORMAL), kept in {}", kept.display()),
                dir,
                postgres: None,
            };
        }
        if !postgres {
            return Self {
                url: format!("sqlite://{}/bench.db", dir.path().display()),
                label: "SQLite (WAL, synchronous=NORMAL)".to_string(),
                dir,
                postgres: None,
            };
        }
        let admin = std::env::var("ENGRAM_BENCH_POSTGRES_URL")
            .or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL"))
            .expect("set ENGRAM_BENCH_POSTGRES_URL (or ENGRAM_TEST_POSTGRES_URL) to a PostgreSQL admin URL");
        let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL server");
        let kept = std::env::var("ENGRAM_BENCH_REUSE").ok();
        let name = match &kept {
            Some(name) => name.clone(),
            None => {
                let name = format!("bench_{:016x}", rand::random::<u64>());
                conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the bench database");
                name
            }
        };
        let version: String =
            sqlx::query_scalar("SHOW server_version").fetch_one(&mut conn).await.expect("read the version");
        let fsync: String = sqlx::query_scalar("SHOW fsync").fetch_one(&mut conn).await.expect("read fsync");
        let mut url = reqwest::Url::parse(&admin).expect("the PostgreSQL URL is a URL");
        url.set_path(&format!("/{name}"));
        let label = match kept {
            Some(_) => format!("PostgreSQL {version} (fsync={fsync}), kept in {name}"),
            None => format!("PostgreSQL {version} (fsync={fsync})"),
        };
        Self { url: url.to_string(), label, dir, postgres: Some((admin, name)) }
    }

    async fn drop_database(self) {
        let keep = std::env::var_os("ENGRAM_BENCH_KEEP").is_some();
        if let Some((admin, name)) = &self.postgres {
            if keep || self.label.contains("kept in") {
                report(format_args!("kept the seeded database {name}"));
                return;
            }
            let mut conn = PgConnection::connect(admin).await.expect("connect to the PostgreSQL server");
            conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.expect("drop the bench database");
        }
        // Kept on request, to look at the seeded database's plans afterwards.
        if self.postgres.is_none() && keep {
            report(format_args!("kept the seeded database in {}", self.dir.keep().display()));
        } else {
            drop(self.dir);
        }
    }
}

/// How far the product's cards and the exact ranking's agree: whole runs (in the block's order,
/// and as sets), cards, and by kind of question; and, where they differ, how far apart the cards
/// each chose alone are in exact rank score (activation units), beside the spread of the scores
/// of the cards both chose.
#[derive(Default)]
struct Agreement {
    runs: usize,
    same_order: usize,
    same_set: usize,
    /// Cards the product chose, cards the exact ranking chose, and cards both chose.
    chosen: usize,
    reference: usize,
    shared: usize,
    /// Per kind of question: runs, runs with the same set, reference cards, shared cards.
    by_kind: [(usize, usize, usize, usize); 3],
    /// Exact score of each card the exact ranking chose alone less that of the card the product
    /// chose in its place, paired strongest first.
    gaps: Vec<f64>,
    /// Per differing run: the highest less the lowest exact score among the cards both chose.
    spreads: Vec<f64>,
}

const KINDS: [&str; 3] = ["a company by name", "a record id", "a stage and a city"];

impl Agreement {
    fn add(&mut self, kind: usize, chosen: &[i64], reference: &[i64], exact: &std::collections::HashMap<i64, f64>) {
        use std::collections::HashSet;
        let (a, b): (HashSet<i64>, HashSet<i64>) =
            (chosen.iter().copied().collect(), reference.iter().copied().collect());
        let shared = a.intersection(&b).count();
        self.runs += 1;
        self.same_order += usize::from(chosen == reference);
        self.same_set += usize::from(a == b);
        self.chosen += chosen.len();
        self.reference += reference.len();
        self.shared += shared;
        let k = &mut self.by_kind[kind];
        k.0 += 1;
        k.1 += usize::from(a == b);
        k.2 += reference.len();
        k.3 += shared;
        if a != b {
            let score = |id: &i64| exact.get(id).copied().unwrap_or(f64::NAN);
            let mut only_exact: Vec<f64> = b.difference(&a).map(score).collect();
            let mut only_product: Vec<f64> = a.difference(&b).map(score).collect();
            only_exact.sort_by(|x, y| y.total_cmp(x));
            only_product.sort_by(|x, y| y.total_cmp(x));
            self.gaps.extend(only_exact.iter().zip(&only_product).map(|(e, p)| e - p));
            let both: Vec<f64> = a.intersection(&b).map(score).collect();
            let (lo, hi) = both.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), s| (l.min(*s), h.max(*s)));
            if lo.is_finite() {
                self.spreads.push(hi - lo);
            }
        }
    }

    fn report(mut self) {
        let pct = |a: usize, b: usize| a as f64 * 100.0 / b.max(1) as f64;
        report(format_args!(
            "the product and the exact ranking: the same cards in {:.1}% of runs ({:.1}% in the same order), {:.1}% of cards the same ({} of {})",
            pct(self.same_set, self.runs),
            pct(self.same_order, self.runs),
            pct(self.shared, self.reference),
            self.shared,
            self.reference
        ));
        for (name, (runs, same, cards, shared)) in KINDS.iter().zip(self.by_kind) {
            report(format_args!(
                "  questions naming {name}: the same cards in {:.1}% of {runs} runs, {:.1}% of cards the same",
                pct(same, runs),
                pct(shared, cards)
            ));
        }
        if self.gaps.is_empty() {
            return;
        }
        self.gaps.sort_by(f64::total_cmp);
        self.spreads.sort_by(f64::total_cmp);
        let at = |v: &[f64], p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
        report(format_args!(
            "  where they differ ({} cards): exact score of the exact ranking's card less the product's, median {:.4}, p90 {:.4}, max {:.4}; the spread of the shared cards' exact scores, median {:.2}",
            self.gaps.len(),
            at(&self.gaps, 0.5),
            at(&self.gaps, 0.9),
            self.gaps[self.gaps.len() - 1],
            if self.spreads.is_empty() { f64::NAN } else { at(&self.spreads, 0.5) }
        ));
    }
}

/// A question about one of the person's own records: by company, by record id, or by stage and
/// city, as people ask.
fn question(k: usize, person: i64) -> String {
    let i = (person * seed::CARDS_EACH) as usize + (k * 37) % seed::CARDS_EACH as usize;
    match k % 3 {
        0 => format!("where are we with {} {}", seed::COMPANIES[i % 12], i / 12),
        1 => format!("what is the value of L-{}", 100_000 + i),
        _ => format!("which {} leads in {} need me", seed::STAGES[i % 5], seed::CITIES[i % 4]),
    }
}

async fn run(postgres: bool) {
    let db = BenchDatabase::create(postgres).await;
    report(format_args!("backend: {}", db.label));
    let store = AnyStore::open(&db.url).await.expect("open the store");
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let started = Instant::now();
    let seeded = if db.label.contains("kept in") {
        seed::existing(&store).await
    } else {
        seed::company(&store, clock.now()).await
    };
    report(format_args!(
        "seeded {} people, {} cards and their use summaries, and {} logged uses of {} sampled people, in {:.0?}",
        seed::PEOPLE,
        seeded.cards,
        seeded.logged,
        seeded.sampled.len(),
        started.elapsed()
    ));

    let shared = store.shared();
    let source: Arc<dyn Source> = Arc::new(HttpSource::default());
    let memory = PersonMemory::new(shared.clone(), clock.clone(), source.clone());
    let lists = ReferenceLists::new(shared.clone(), clock.clone(), source);
    let runs = Runs::new(shared.clone(), clock.clone(), memory.runs.clone(), lists.clone(), Arc::new(NoModel), 100);

    // Untimed, as a server that answers runs is warm: a block for every sampled person, with
    // questions the timed passes do not ask, and the baseline for a few. PostgreSQL plans a
    // prepared statement on each of a connection's first six executions (five custom plans, then
    // the generic one it keeps), at 0.1 to 1.5 ms each time. Over the pool's 16 connections, a
    // warm-up of 20 blocks left about one timed block in five paying for plans that a running
    // server's connections have already made.
    for (k, person) in seeded.sampled.iter().enumerate() {
        let q = question(k + 2, person.id.0);
        runs.answering.blocks.block_for(RunKind::Ask, &seeded.agent, Some(person), &q).await.expect("a block");
        if k < 20 {
            naive::block(&store, &lists, &seeded.agent, person, &q, clock.now()).await;
        }
    }

    // The product and the baseline are timed in passes of their own over the same runs: timed
    // one after the other, each block was read just after the baseline had read thousands of use
    // rows, and so with the pages every block shares (the indexes' upper levels, the agent, the
    // cores) pushed out of SQLite's cache, which a server answering runs keeps warm.
    let runs_in_order: Vec<(usize, &engine::org::Person)> =
        (0..2).flat_map(|round| seeded.sampled.iter().enumerate().map(move |(k, p)| (k + round, p))).collect();
    let card_ids = |b: &engine::runs::block::Block| -> Vec<i64> {
        b.refs
            .iter()
            .filter_map(|r| match r {
                MemoryRef::Card(id) => id.strip_prefix("card:").and_then(|n| n.parse().ok()),
                _ => None,
            })
            .collect()
    };
    let (mut product, mut baseline) = (Vec::new(), Vec::new());
    let (mut chosen, mut tokens) = (Vec::new(), 0u32);
    for (k, person) in &runs_in_order {
        let q = question(*k, person.id.0);
        let t = Instant::now();
        let block =
            runs.answering.blocks.block_for(RunKind::Ask, &seeded.agent, Some(person), &q).await.expect("a block");
        product.push(t.elapsed());
        chosen.push(card_ids(&block));
        tokens = tokens.max(count_tokens(&block.system) + block.memory.as_deref().map_or(0, count_tokens));
    }
    let mut agreement = Agreement::default();
    for ((k, person), chosen) in runs_in_order.iter().zip(&chosen) {
        let q = question(*k, person.id.0);
        let t = Instant::now();
        let (reference, exact) = naive::block(&store, &lists, &seeded.agent, person, &q, clock.now()).await;
        baseline.push(t.elapsed());
        agreement.add(k % 3, chosen, &card_ids(&reference), &exact);
    }
    product.sort();
    baseline.sort();
    let n = product.len();
    report(format_args!(
        "block for one run (Runs::block_for), {n} runs: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(percentile(&product, 0.5)),
        ms(percentile(&product, 0.99)),
        ms(product[n - 1])
    ));
    report(format_args!(
        "naive baseline (every use row read, exact sum), {n} runs: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(percentile(&baseline, 0.5)),
        ms(percentile(&baseline, 0.99)),
        ms(baseline[n - 1])
    ));
    report(format_args!(
        "ratio naive / product: p50 {:.2}x, p99 {:.2}x; {:.1} cards a run; largest block {} tokens",
        ms(percentile(&baseline, 0.5)) / ms(percentile(&product, 0.5)),
        ms(percentile(&baseline, 0.99)) / ms(percentile(&product, 0.99)),
        agreement.chosen as f64 / n as f64,
        tokens
    ));
    agreement.report();
    // Where a block's time goes: its largest parts, each timed alone over the same runs.
    let (mut agent_t, mut cards_t, mut around_t, mut lists_t) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut kept_t = Vec::new();
    for (k, person) in seeded.sampled.iter().enumerate() {
        let q = question(k, person.id.0);
        let t = Instant::now();
        let running = memory.runs.running_agent(seeded.agent.id).await.expect("the agent");
        agent_t.push(t.elapsed());
        let t = Instant::now();
        memory.runs.cards_for_run(person, &q, &running).await.expect("cards");
        cards_t.push(t.elapsed());
        let t = Instant::now();
        shared.kept_for_question(person.id, &question_terms(&q), READ_PADS_BELOW as u32).await.expect("kept");
        kept_t.push(t.elapsed());
        let t = Instant::now();
        shared.around(person.id, 60).await.expect("around");
        around_t.push(t.elapsed());
        let t = Instant::now();
        lists.entries_for(person, &[]).await.expect("list entries");
        lists_t.push(t.elapsed());
    }
    for (name, mut times) in [
        ("the agent's access", agent_t),
        ("the cards for the question", cards_t),
        ("the cards' read from the store alone", kept_t),
        ("the people around the person", around_t),
        ("who's-who list entries", lists_t),
    ] {
        times.sort();
        report(format_args!(
            "  of which {name}: p50 {:.2} ms, p99 {:.2} ms",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99))
        ));
    }
    drop(runs);
    drop(store);
    db.drop_database().await;
}

fn main() {
    report(format_args!(
        "engram block benchmark (build profile: {})",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    ));
    // The program's own path is never either word, so every argument may be looked at.
    let named = std::env::args()
        .find(|a| a == "sqlite" || a == "postgres")
        .or_else(|| std::env::var("ENGRAM_BENCH_BACKEND").ok())
        .unwrap_or_else(|| "sqlite".to_string());
    let postgres = match named.as_str() {
        "sqlite" => false,
        "postgres" => true,
        other => panic!("ENGRAM_BENCH_BACKEND must be sqlite or postgres, not {other:?}"),
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(run(postgres));
}
