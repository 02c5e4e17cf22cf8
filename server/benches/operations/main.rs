//! What memory costs, checked: an organisation where every person keeps memory of the same shape is
//! seeded at 500 people and measured by Operations, whose projection to 10,000 people is then
//! compared with the same organisation seeded at 10,000 people and measured again. It prints each
//! layer's rows and bytes projected and measured, the figures a day, and how long the report took
//! at each size (the report reads aggregates, so its rows do not grow with the organisation; the
//! database's own counting does).
//!
//! Each person: a team of 50 with its team core, 20 cards with their use and match terms (the block
//! benchmark's bulk writes, `bench-seed`), 2 lessons, 1 list snapshot and 1 who's-who entry; one in
//! ten asks one run a day on each of the last 3 days (its block and model cost kept, its answer
//! checked with one read), and the nightly job spends on each of them. The bots' rows are a few
//! episodes whatever the size.
//!
//! Run with `cargo bench -p server --bench operations --features bench-seed` (or build it with
//! `cargo build` and run the binary from target/debug/deps, as the figures in BENCHMARKS.md were);
//! the backend is `ENGRAM_BENCH_BACKEND` (`sqlite`, the default, or `postgres`), or `sqlite`/`postgres`
//! after `--`. PostgreSQL gets new databases on `ENGRAM_BENCH_POSTGRES_URL` (else
//! `ENGRAM_TEST_POSTGRES_URL`), dropped at the end. Figures are printed, never asserted.

use chrono::{DateTime, Duration, Utc};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::activation::{Use, UseSummary};
use engine::cards::snapshots::NewSnapshot;
use engine::cards::source::{CardField, FactLimits, Freshness, KeyMode};
use engine::cards::store::{Card, CardUse, NewConnector};
use engine::cores::{CoreScope, NewCoreVersion};
use engine::kernel::model::Spend;
use engine::lessons::{LessonScope, NewLesson};
use engine::operations::words::{bytes, count};
use engine::operations::{Layer, Operations, OperationsReport};
use engine::org::{Company, PersonId, RoleSlug, TimeZoneName};
use engine::persona::backlog::{NewEpisode, Outcome};
use engine::runs::check::CheckState;
use engine::runs::cost::RunCost;
use engine::runs::whoswho::ListEntry;
use engine::runs::{Author, NewRun, RunEnd, RunKind, RunState};
use engine::store::{Actor, NewAgent, NewPerson, Store};
use engine::{ManualClock, SystemClock};
use server::store::bench_seed::SeedPerson;
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::sync::Arc;
use std::time::Instant;

const SMALL: i64 = 500;
const LARGE: i64 = 10_000;
const TEAM_SIZE: i64 = 50;
const CARDS_EACH: i64 = 20;
const LESSONS_EACH: i64 = 2;
/// One person in this many asks a run on each of the last `RUN_DAYS` days.
const ASKS_ONE_IN: i64 = 10;
const RUN_DAYS: i64 = 3;

fn report(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
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
        let name = format!("bench_{:016x}", rand::random::<u64>());
        let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL server");
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the bench database");
        let version: String =
            sqlx::query_scalar("SHOW server_version").fetch_one(&mut conn).await.expect("read the version");
        let mut url = reqwest::Url::parse(&admin).expect("the PostgreSQL URL is a URL");
        url.set_path(&format!("/{name}"));
        Self { url: url.to_string(), label: format!("PostgreSQL {version}"), dir, postgres: Some((admin, name)) }
    }

    async fn drop_database(self) {
        if let Some((admin, name)) = &self.postgres {
            let mut conn = PgConnection::connect(admin).await.expect("connect to the PostgreSQL server");
            conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.expect("drop the bench database");
        }
        drop(self.dir);
    }
}

/// Seeds an organisation of `people`, each keeping memory of the same shape, as of `now`.
async fn seed(store: &AnyStore, people: i64, now: DateTime<Utc>) {
    let db: Arc<dyn Store> = store.shared();
    let system = Actor { person: None, at: now - Duration::days(60) };
    let company = Company {
        name: "Bench".into(),
        time_zone: TimeZoneName::parse("Asia/Kolkata").unwrap(),
        locale: Default::default(),
    };
    db.create_company(&company, system).await.expect("the company");
    let role = db.create_role(&RoleSlug::parse("sales").unwrap(), "Sales", 2_000, system).await.expect("a role");
    let admin = NewPerson {
        name: "Admin".into(),
        email: "admin@bench.example".into(),
        password_hash: "unused".into(),
        is_admin: true,
        main_team: None,
    };
    let admin = db.create_person(&admin, system).await.expect("the admin");
    let mut teams = Vec::new();
    for t in 0..people / TEAM_SIZE {
        let team = db.create_team(&format!("Sales team {t:03}"), Some(role.id), system).await.expect("a team");
        let text = format!("Team {t:03} covers its own territory; hand-offs go through the lead. ").repeat(4);
        let core = NewCoreVersion {
            scope: CoreScope::Team(team.id),
            based_on: 0,
            tokens: engine::tokens::count_tokens(&text),
            text,
            author: admin.id,
            note: String::new(),
            restored_from: None,
            at: now - Duration::days(40),
        };
        db.append_core_version(&core).await.expect("a team core");
        teams.push(team.id);
    }
    let first = admin.id.0 + 1;
    let ids: Vec<i64> = (first..first + people).collect();
    let seed: Vec<SeedPerson> = ids
        .iter()
        .map(|&id| SeedPerson {
            id,
            name: format!("Person {id}"),
            email: format!("p{id}@bench.example"),
            main_team: Some(teams[((id - first) / TEAM_SIZE) as usize].0),
        })
        .collect();
    store.bench_insert_people(&seed, system.at).await.expect("the people");
    let connector = NewConnector {
        name: "Acme ATS".into(),
        base_url: "http://127.0.0.1:9".into(),
        key_mode: KeyMode::Company,
        ticked: vec!["list_leads".into()],
        label: DataLabel::Internal,
        admits_roles: vec!["sales".into()],
        keep_cards: true,
        facts: FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 60, hard_mins: 24 * 60 },
        hourly_limit: 1_000_000,
    };
    let acme = db.create_connector(&connector, None, system).await.expect("the connector");
    let agent = NewAgent {
        name: "Sales Assistant".into(),
        template: "sales-assistant".into(),
        role: Some(role.id),
        owner: admin.id,
        team_copy: None,
    };
    let agent = db.create_agent(&agent, system).await.expect("the agent");

    // Cards, read over the last 45 days (some past the 30 days of their hard limit), each used by
    // its person.
    let mut card_id = 1;
    for batch in ids.chunks(500) {
        let (mut cards, mut uses) = (Vec::new(), Vec::new());
        for &person in batch {
            for n in 0..CARDS_EACH {
                let i = person * CARDS_EACH + n;
                let f = |name: &str, value: String| CardField { name: name.into(), value, free_text: false };
                let read_at = now - Duration::hours(i % (45 * 24));
                cards.push(Card {
                    id: card_id,
                    connector: acme.id,
                    tool: "list_leads".into(),
                    kind: "lead".into(),
                    record_id: format!("L-{}", 100_000 + i),
                    version: Some(format!("{}", i % 97)),
                    fields: vec![
                        f("company", format!("Company {}", i % 5_000)),
                        f("stage", ["New", "Qualified", "Proposal", "Won"][(i % 4) as usize].into()),
                        f("value_inr", format!("{}", 50_000 + (i * 7_919) % 5_000_000)),
                        f("owner", format!("p{person}@bench.example")),
                    ],
                    read_with: KeyKind::Company,
                    read_as: None,
                    label_when_read: DataLabel::Internal,
                    open_work: i % 4 == 2,
                    read_at,
                    not_returned: vec![],
                });
                let mut summary = UseSummary::default();
                summary.record(Use { at: read_at, weight: 1.0 });
                uses.push(CardUse {
                    person: PersonId(person),
                    card: card_id,
                    summary,
                    pinned: false,
                    last_use: read_at,
                });
                card_id += 1;
            }
        }
        store.bench_insert_cards(&cards).await.expect("cards");
        store.bench_insert_uses(&uses).await.expect("uses");
    }

    // Lessons, lists and who's who, through the product's own writes.
    let mut entries = Vec::new();
    for &person in &ids {
        let p = PersonId(person);
        for k in 0..LESSONS_EACH {
            let at = now - Duration::days((person + k) % 50);
            let text = format!("Company {} prefers calls before {}:00 on weekdays", person % 5_000, 9 + k);
            let lesson = NewLesson::in_own_words(p, LessonScope::Personal, text, at);
            db.add_lesson(&lesson, Actor { person: Some(p), at }).await.expect("a lesson");
        }
        let list = NewSnapshot {
            person: p,
            connector: acme.id,
            tool: "list_leads".into(),
            arguments: serde_json::json!({"owner": format!("p{person}@bench.example")}),
            asked: "my follow-ups today".into(),
            records: (0..5).map(|n| format!("L-{}", 100_000 + person * CARDS_EACH + n)).collect(),
            taken_at: now - Duration::days(person % 40),
        };
        db.keep_snapshot(&list).await.expect("a list");
        entries.push(ListEntry {
            connector: acme.id,
            source: "Acme ATS".into(),
            list: "list_team_members".into(),
            id: Some(format!("M-{person}")),
            values: vec![("territory".into(), format!("T-{}", person % 40))],
            names: vec![format!("p{person}@bench.example")],
            fetched_at: now - Duration::hours(2),
        });
    }
    db.set_whos_who(acme.id, true, system).await.expect("who's who");
    db.save_list(acme.id, "list_team_members", &entries, now - Duration::hours(2)).await.expect("the list");

    // One in ten asks a run a day; each keeps its cost and its check's read, and the nightly job
    // spends on them.
    let zone: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap();
    for (k, &person) in ids.iter().enumerate().filter(|(k, _)| (*k as i64) % ASKS_ONE_IN == 0) {
        let p = PersonId(person);
        for day in 0..RUN_DAYS {
            let at = now - Duration::days(day) - Duration::minutes(k as i64 % 60);
            let (thread, message) =
                db.create_thread(agent.id, Some(p), "q", &Author::Person(p), "q", at).await.expect("a thread");
            let new = NewRun {
                thread: thread.id,
                message: message.id,
                agent: agent.id,
                for_person: Some(p),
                kind: RunKind::Ask,
                unwatched: false,
                retry_of: None,
            };
            let run = db.create_run(&new, at).await.expect("a run");
            let end = RunEnd {
                state: RunState::Answered,
                answer: Some("a".into()),
                failure: None,
                model: Some("bench".into()),
                data_label: DataLabel::Internal,
                sources: vec![],
                review_mode: false,
                check: Some(CheckState::Checked),
                checked_only: false,
            };
            db.end_run(run.id, &end, at).await.expect("the run's end");
            let block = 500 + ((person * 37 + day * 11) % 3_500) as u32;
            let cost = RunCost {
                block_tokens: block,
                model_calls: 2,
                model_tokens: u64::from(block) * 2 + 800,
                model_millicents: (u64::from(block) * 2 + 800) * 60 / 1_000,
            };
            db.record_run_cost(run.id, at, &cost).await.expect("the run's cost");
            db.claim_read(acme.id, "check", at - Duration::hours(1), 1_000_000, at).await.expect("a check's read");
            let spend = Spend {
                local_date: at.with_timezone(&zone).date_naive().to_string(),
                purpose: "nightly job".into(),
                model: "bench".into(),
                millicents: 30,
                at,
            };
            db.add_spend(&spend).await.expect("the nightly job's spend");
        }
    }

    // The bots' rows: a few episodes, whatever the size.
    for n in 0..20 {
        let episode = NewEpisode {
            agent: "dealbot".into(),
            wake: format!("run-{n}"),
            trigger: "wakeup".into(),
            task: None,
            outcome: Outcome::Done,
            turns: Some(3),
            cost_usd: None,
            duration_s: None,
            summary: "I finished the follow-ups".into(),
            log_path: None,
            transcript_path: None,
            at: now - Duration::days(n),
        };
        db.insert_episode(&episode).await.expect("an episode");
    }
}

/// The report, made 5 times: the last, and the median time.
async fn measure(store: &AnyStore, now: DateTime<Utc>) -> (OperationsReport, f64) {
    let ops = Operations::new(store.shared(), Arc::new(ManualClock::new(now)));
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let t = Instant::now();
        last = Some(ops.report_on_host().await.expect("the report"));
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (last.expect("a report"), times[2])
}

/// How long the layers' rows and bytes alone take (median of 5): the part that counts every row.
async fn measure_sizes(store: &AnyStore, now: DateTime<Utc>) -> f64 {
    let db = store.shared();
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        db.memory_sizes(now - Duration::days(30)).await.expect("the sizes");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    times[2]
}

fn error(projected: u64, measured: u64) -> String {
    if measured == 0 {
        return "n/a".into();
    }
    format!("{:+.1}%", (projected as f64 - measured as f64) / measured as f64 * 100.0)
}

async fn run(postgres: bool) {
    let now = engine::Clock::now(&SystemClock);
    let mut reports = Vec::new();
    for people in [SMALL, LARGE] {
        let db = BenchDatabase::create(postgres).await;
        let store = AnyStore::open(&db.url).await.expect("open the store");
        let t = Instant::now();
        seed(&store, people, now).await;
        let seeded = t.elapsed().as_secs_f64();
        let (r, ms) = measure(&store, now).await;
        let sizes = measure_sizes(&store, now).await;
        report(format_args!(
            "{}: {} people seeded in {seeded:.0} s; memory {} of a {} database ({} a person); the report took {ms:.0} ms, \
             of which the layers' rows and bytes {sizes:.0} ms (medians of 5)",
            db.label,
            count(r.people),
            bytes(r.memory_bytes),
            bytes(r.database_bytes),
            bytes(r.bytes_per_person.unwrap_or(0)),
        ));
        reports.push(r);
        db.drop_database().await;
    }
    let (small, large) = (&reports[0], &reports[1]);
    let p = small.projection.as_ref().expect("a projection from the small organisation");
    report(format_args!(
        "projected from {} people to {} | measured at {}",
        count(p.measured_people),
        count(p.people),
        count(large.people)
    ));
    for layer in Layer::ALL {
        let projected = p.layers.iter().find(|l| l.layer == layer).expect("every layer");
        let measured = large.layers.iter().find(|l| l.layer == layer).expect("every layer");
        report(format_args!(
            "  {}: rows {} projected, {} measured ({}); bytes {} projected, {} measured ({})",
            layer.words(),
            count(projected.rows),
            count(measured.rows),
            error(projected.rows, measured.rows),
            bytes(projected.bytes),
            bytes(measured.bytes),
            error(projected.bytes, measured.bytes),
        ));
    }
    report(format_args!(
        "  memory: {} projected, {} measured ({})",
        bytes(p.memory_bytes),
        bytes(large.memory_bytes),
        error(p.memory_bytes, large.memory_bytes)
    ));
    let (w, days) = (&large.window, f64::from(large.window.days_measured.max(1)));
    let per_day = |total: u64| (total as f64 / days).round() as u64;
    for (what, projected, measured) in [
        ("runs a day", p.runs_per_day, per_day(w.runs)),
        ("block tokens a day", p.block_tokens_per_day, per_day(w.block_tokens)),
        ("check reads a day", p.check_reads_per_day, per_day(w.check_reads)),
        ("runs' model spend a day (thousandths of a cent)", p.run_millicents_per_day, per_day(w.run_millicents)),
        ("nightly spend a day (thousandths of a cent)", p.nightly_wanted_millicents, per_day(w.nightly_millicents)),
    ] {
        report(format_args!(
            "  {what}: {} projected, {} measured ({})",
            count(projected),
            count(measured),
            error(projected, measured)
        ));
    }
    report(format_args!(
        "  block tokens p50 / p95 a run: {:?} / {:?} at {}, {:?} / {:?} at {}",
        small.window.block_p50,
        small.window.block_p95,
        count(small.people),
        w.block_p50,
        w.block_p95,
        count(large.people)
    ));
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let arg = std::env::args().skip(1).find(|a| a == "sqlite" || a == "postgres");
    let backend = arg.or_else(|| std::env::var("ENGRAM_BENCH_BACKEND").ok()).unwrap_or_else(|| "sqlite".into());
    run(backend == "postgres").await;
}
