//! Pages at the organisation's size: for each size (the demo company alone, then with 10,000 and
//! 100,000 people imported), `scripts/seed-org` seeds a fresh database through the product (the
//! demo, the API and `engram people import`), the real `engram` binary serves it as `engram demo`,
//! and every signed-in page is driven open loop: requests sent on a fixed schedule (500 a second
//! unless set), each whether or not earlier ones were answered, its latency counted from its
//! scheduled time (so a server falling behind shows, with no coordinated omission). Before the pages,
//! an ask: sequential asks through `POST /api/ask`, each timed to its answer. It prints p50, p99 and
//! the bytes of each page at each size, side by side.
//!
//! Settings (environment):
//! - `ENGRAM_BENCH_BACKEND`: `sqlite` (default) or `postgres`, whose databases are made on
//!   `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`, an admin URL) and dropped after;
//! - `ENGRAM_BIN`: the binary (default `target/release/engram` under `CARGO_TARGET_DIR`);
//! - `ENGRAM_BENCH_PEOPLE`: the sizes, default `0,10000,100000`;
//! - `ENGRAM_BENCH_RATE` (default 500) and `ENGRAM_BENCH_SECONDS` (default 8) per page;
//! - `ENGRAM_BENCH_ASKS`: asks timed per size (default 30);
//! - `ENGRAM_BENCH_ROUNDS` (default 3): every size is seeded and served at once, and each round
//!   measures each page at every size in turn, so a size and its baseline meet the same noise; the
//!   table gives the medians over the rounds, and each page's p99 over the demo's in the same round
//!   (the median of the rounds' ratios);
//! - `ENGRAM_BENCH_WARM_UP` (default 1): untimed rounds before the timed ones, each page at every
//!   size for a second, so no timed round is the first to read a page after seeding (the first
//!   rounds had been the slowest at every size, the demo's included);
//! - `ENGRAM_BENCH_PAGES`: only the pages whose names contain one of these comma-separated words
//!   (ignoring case), to study a few; every page unless set.

use sqlx::{Connection, Executor, PgConnection};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

const ADMIN: &str = "ada@acme.example";
const PASSWORD: &str = "engram-demo";

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn engram_bin() -> PathBuf {
    if let Ok(b) = std::env::var("ENGRAM_BIN") {
        return PathBuf::from(b);
    }
    let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| repo().join("target"));
    target.join("release/engram")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// A fresh database for one size: a SQLite file in the size's folder, or a new PostgreSQL database.
struct Database {
    url: String,
    postgres: Option<(String, String)>,
}

impl Database {
    async fn create(backend: &str, dir: &Path, size: u32) -> Self {
        if backend == "sqlite" {
            return Self { url: format!("sqlite://{}/engram.db", dir.display()), postgres: None };
        }
        let admin = std::env::var("ENGRAM_BENCH_POSTGRES_URL")
            .or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL"))
            .expect("set ENGRAM_BENCH_POSTGRES_URL (or ENGRAM_TEST_POSTGRES_URL) to a PostgreSQL admin URL");
        let name = format!("pages_{size}_{}", std::process::id());
        let mut conn = PgConnection::connect(&admin).await.expect("connect to PostgreSQL");
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the database");
        let mut url = reqwest::Url::parse(&admin).expect("a URL");
        url.set_path(&format!("/{name}"));
        Self { url: url.to_string(), postgres: Some((admin, name)) }
    }

    /// After seeding, what the database would have done on its own before anyone measured: on
    /// PostgreSQL, autovacuum analyses the freshly imported tables within a minute or so, and would
    /// otherwise do it in the middle of the timed requests. SQLite keeps no statistics unasked.
    async fn settle(&self) {
        if self.postgres.is_some() {
            let mut conn = PgConnection::connect(&self.url).await.expect("connect to the seeded database");
            conn.execute("VACUUM ANALYZE").await.expect("VACUUM ANALYZE");
        }
    }

    async fn label(&self) -> String {
        match &self.postgres {
            None => "SQLite (WAL, synchronous=NORMAL)".to_string(),
            Some((admin, _)) => {
                let mut conn = PgConnection::connect(admin).await.expect("connect to PostgreSQL");
                let show = |what: &'static str| sqlx::query_scalar::<_, String>(what);
                let version = show("SHOW server_version").fetch_one(&mut conn).await.unwrap_or_default();
                let fsync = show("SHOW fsync").fetch_one(&mut conn).await.unwrap_or_default();
                format!("PostgreSQL {version} (fsync={fsync})")
            }
        }
    }

    async fn drop(self) {
        if let Some((admin, name)) = self.postgres {
            let mut conn = PgConnection::connect(&admin).await.expect("connect to PostgreSQL");
            let _ = conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await;
        }
    }
}

/// `engram demo` serving a seeded database, stopped when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(bin: &Path, dir: &Path, url: &str) -> Self {
        let port = free_port();
        let log = std::fs::File::create(dir.join("server.log")).expect("a log file");
        let child = Command::new(bin)
            .arg("demo")
            .env("ENGRAM_DATABASE_URL", url)
            .env("ENGRAM_VAULT", dir.join("vault"))
            .env("ENGRAM_SECRET_KEY_FILE", dir.join("engram.key"))
            .env("ENGRAM_ADDR", format!("127.0.0.1:{port}"))
            .env("ENGRAM_DEMO_SOURCE_PORT", free_port().to_string())
            .env("ENGRAM_DEMO_MODEL_PORT", free_port().to_string())
            // The figures are the pages', not the log's.
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start engram demo");
        Self { child, base: format!("http://127.0.0.1:{port}") }
    }

    async fn ready(&mut self) {
        let client = reqwest::Client::new();
        for _ in 0..600 {
            if let Ok(r) = client.get(format!("{}/signin", self.base)).send().await {
                if r.status().is_success() {
                    return;
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("engram demo stopped: {status}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("engram demo did not answer within 60 s");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn signed_in(base: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(256)
        .build()
        .expect("a client");
    let r = client
        .post(format!("{base}/auth/sign-in"))
        .form(&[("email", ADMIN), ("password", PASSWORD), ("next", "/")])
        .send()
        .await
        .expect("sign in");
    assert_eq!(r.status(), reqwest::StatusCode::SEE_OTHER, "{ADMIN} signs in");
    client
}

async fn text(client: &reqwest::Client, url: String) -> String {
    client.get(&url).send().await.expect(&url).text().await.unwrap_or_default()
}

/// The first `/prefix<something>"` link in a page, as the something.
fn first_link(html: &str, prefix: &str) -> Option<String> {
    let at = html.find(&format!("href=\"{prefix}"))? + 6 + prefix.len();
    let rest = &html[at..];
    Some(rest[..rest.find('"')?].to_string())
}

/// What every signed-in page is, at this database: its path, with the ids found by reading the
/// pages themselves (the largest team, an agent, a thread made by one ask, a connector, a bot).
async fn pages(client: &reqwest::Client, base: &str, thread: Option<i64>) -> Vec<(String, String)> {
    let roles: serde_json::Value =
        client.get(format!("{base}/api/memory/roles")).send().await.expect("roles").json().await.expect("JSON");
    let largest = roles["teams"]
        .as_array()
        .and_then(|t| t.iter().max_by_key(|t| t["members"].as_u64().unwrap_or(0)))
        .and_then(|t| t["team"]["id"].as_i64())
        .expect("a team");
    let agents = text(client, format!("{base}/company/agents")).await;
    let agent = first_link(&agents, "/company/agents/").expect("an agent");
    let connectors = text(client, format!("{base}/company/connectors")).await;
    let connector = first_link(&connectors, "/company/connectors/");
    let roster = text(client, format!("{base}/org/agents")).await;
    let bot = first_link(&roster, "/org/agents/");
    let mut out: Vec<(String, String)> = vec![
        ("People".into(), "/company/people".into()),
        ("People, page 2".into(), "/company/people?page=2".into()),
        ("People, a search (\"a\")".into(), "/company/people?q=a".into()),
        ("Teams".into(), "/company/teams".into()),
        ("The largest team".into(), format!("/company/teams/{largest}")),
        ("The largest team, page 10".into(), format!("/company/teams/{largest}?page=10")),
        ("Agents".into(), "/company/agents".into()),
        ("An agent".into(), format!("/company/agents/{agent}")),
        ("Ask".into(), "/ask".into()),
        ("Events".into(), "/company/events".into()),
        ("Inbox".into(), "/inbox".into()),
        ("Roles".into(), "/company/roles".into()),
        ("A role (Sales)".into(), "/company/roles/sales".into()),
        ("Profile → Memory".into(), "/profile/memory".into()),
        ("Profile → Tokens".into(), "/profile/tokens".into()),
        ("Profile → Password".into(), "/profile/password".into()),
        ("Import people".into(), "/company/people/import".into()),
        ("Memory settings".into(), "/company/memory".into()),
        ("Connectors".into(), "/company/connectors".into()),
        ("Bots".into(), "/org/agents".into()),
        ("Improve".into(), "/org/improve".into()),
    ];
    if let Some(t) = thread {
        out.push(("A thread".into(), format!("/threads/{t}")));
    }
    if let Some(c) = connector {
        out.push(("A connector".into(), format!("/company/connectors/{c}")));
    }
    if let Some(b) = bot {
        out.push(("A bot".into(), format!("/org/agents/{b}")));
    }
    out
}

struct Outcome {
    latency: Duration,
    bytes: usize,
    ok: bool,
}

/// One page open loop: `rate` a second for `seconds`, each request at its scheduled time.
async fn load(client: &reqwest::Client, url: &str, rate: u32, seconds: u32) -> Vec<Outcome> {
    let outcomes = Arc::new(Mutex::new(Vec::with_capacity((rate * seconds) as usize)));
    let period = Duration::from_secs(1) / rate;
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity((rate * seconds) as usize);
    for i in 0..rate * seconds {
        let scheduled = start + period * i;
        tokio::time::sleep_until(scheduled).await;
        let (client, url, outcomes) = (client.clone(), url.to_string(), outcomes.clone());
        let scheduled: Instant = scheduled.into_std();
        tasks.push(tokio::spawn(async move {
            let (ok, bytes) = match client.get(&url).send().await {
                Ok(r) => {
                    let ok = r.status().is_success();
                    match r.bytes().await {
                        Ok(b) => (ok, b.len()),
                        Err(_) => (false, 0),
                    }
                }
                Err(_) => (false, 0),
            };
            outcomes.lock().await.push(Outcome { latency: scheduled.elapsed(), bytes, ok });
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let mut outcomes = outcomes.lock().await;
    std::mem::take(&mut *outcomes)
}

#[derive(Clone, Default)]
struct Figure {
    p50: Duration,
    p99: Duration,
    bytes: usize,
    errors: usize,
    requests: usize,
}

/// Sequential asks, each to its answer: the time an ask takes, at this size.
async fn asks(client: &reqwest::Client, base: &str, n: u32) -> (Figure, Option<i64>) {
    let mut times = Vec::new();
    let mut thread = None;
    let mut errors = 0;
    for i in 0..n {
        let started = Instant::now();
        let r = client
            .post(format!("{base}/api/ask"))
            .header("origin", base)
            .json(&serde_json::json!({"agent": "Sales Assistant", "question": format!("what are our sales stages ({i})")}))
            .send()
            .await;
        match r {
            Ok(r) if r.status().is_success() => {
                let answer: serde_json::Value = r.json().await.unwrap_or_default();
                thread = thread.or(answer["thread"].as_i64());
                times.push(started.elapsed());
            }
            _ => errors += 1,
        }
    }
    times.sort();
    let figure =
        Figure { p50: percentile(&times, 0.5), p99: percentile(&times, 0.99), bytes: 0, errors, requests: n as usize };
    (figure, thread)
}

/// One size made ready: its database seeded through the product, its server up and signed in, its
/// asks timed and its pages found. Every size is made ready before any page is measured, so the
/// sizes' pages are then measured in turn, each round, under the same noise.
struct Ready {
    size: u32,
    label: String,
    client: reqwest::Client,
    base: String,
    ask: Figure,
    pages: Vec<(String, String)>,
    server: Server,
    db: Database,
    _dir: tempfile::TempDir,
}

async fn ready(backend: &str, size: u32, ask_count: u32) -> Ready {
    let bin = engram_bin();
    assert!(bin.exists(), "no engram binary at {} (build it: cargo build --release -p server)", bin.display());
    let dir = tempfile::tempdir().expect("a folder");
    let db = Database::create(backend, dir.path(), size).await;
    let label = db.label().await;
    let seeding = Instant::now();
    let seed_dir = dir.path().join("org");
    let status = Command::new(repo().join("scripts/seed-org"))
        .arg(size.to_string())
        .arg(&seed_dir)
        .arg(&db.url)
        .env("ENGRAM_BIN", &bin)
        .status()
        .expect("run scripts/seed-org");
    assert!(status.success(), "scripts/seed-org {size} failed");
    eprintln!("pages: {size} people seeded on {label} in {:.0} s", seeding.elapsed().as_secs_f64());
    db.settle().await;
    let mut server = Server::start(&bin, &seed_dir, &db.url);
    server.ready().await;
    let client = signed_in(&server.base).await;
    let (ask, thread) = asks(&client, &server.base, ask_count).await;
    eprintln!(
        "pages: {size} people, an ask (POST /api/ask to its answer, {ask_count} in turn): p50 {} ms, p99 {} ms, {} errors",
        ms(ask.p50),
        ms(ask.p99),
        ask.errors
    );
    let pages = pages(&client, &server.base, thread).await;
    let base = server.base.clone();
    Ready { size, label, client, base, ask, pages, server, db, _dir: dir }
}

/// One page at one size: a second of the same load first, so the timed requests find warm
/// connections and caches, then the timed seconds.
async fn measure(r: &Ready, path: &str, rate: u32, seconds: u32) -> Figure {
    let url = format!("{}{path}", r.base);
    load(&r.client, &url, rate, 1).await;
    let outcomes = load(&r.client, &url, rate, seconds).await;
    let mut latencies: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
    latencies.sort();
    let mut bytes: Vec<usize> = outcomes.iter().filter(|o| o.ok).map(|o| o.bytes).collect();
    bytes.sort();
    Figure {
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        bytes: bytes.get(bytes.len() / 2).copied().unwrap_or(0),
        errors: outcomes.iter().filter(|o| !o.ok).count(),
        requests: outcomes.len(),
    }
}

fn median<T: Copy + PartialOrd>(values: &[T]) -> Option<T> {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.get(v.len() / 2).copied()
}

fn main() {
    let backend = std::env::var("ENGRAM_BENCH_BACKEND").unwrap_or_else(|_| "sqlite".into());
    assert!(backend == "sqlite" || backend == "postgres", "ENGRAM_BENCH_BACKEND must be sqlite or postgres");
    let sizes: Vec<u32> = std::env::var("ENGRAM_BENCH_PEOPLE")
        .unwrap_or_else(|_| "0,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let rate = env_or("ENGRAM_BENCH_RATE", 500u32);
    let seconds = env_or("ENGRAM_BENCH_SECONDS", 8u32);
    let ask_count = env_or("ENGRAM_BENCH_ASKS", 30u32);
    let rounds = env_or("ENGRAM_BENCH_ROUNDS", 3u32).max(1);
    let warm_up = env_or("ENGRAM_BENCH_WARM_UP", 1u32);
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let readies: Vec<Ready> = sizes.iter().map(|&size| rt.block_on(ready(&backend, size, ask_count))).collect();
    let label = readies[0].label.clone();
    // The pages in the first size's order; a page one size lacks (no bot, say) is left out there.
    let wanted: Vec<String> = std::env::var("ENGRAM_BENCH_PAGES")
        .unwrap_or_default()
        .split(',')
        .map(|w| w.trim().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let names: Vec<String> = readies[0]
        .pages
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| wanted.is_empty() || wanted.iter().any(|w| n.to_lowercase().contains(w)))
        .collect();
    // figures[page][size] holds one Figure a round.
    let mut figures: Vec<Vec<Vec<Figure>>> = vec![vec![Vec::new(); readies.len()]; names.len()];
    for _ in 0..warm_up {
        for name in &names {
            for r in &readies {
                let Some((_, path)) = r.pages.iter().find(|(n, _)| n == name) else { continue };
                rt.block_on(load(&r.client, &format!("{}{path}", r.base), rate, 1));
            }
        }
        eprintln!("pages: a round of warm-up done");
    }
    for round in 1..=rounds {
        for (i, name) in names.iter().enumerate() {
            for (j, r) in readies.iter().enumerate() {
                let Some((_, path)) = r.pages.iter().find(|(n, _)| n == name) else { continue };
                let f = rt.block_on(measure(r, path, rate, seconds));
                eprintln!(
                    "pages: round {round}, {} people, {name} ({path}): p50 {} ms, p99 {} ms, {} bytes, {} errors of {}",
                    r.size,
                    ms(f.p50),
                    ms(f.p99),
                    f.bytes,
                    f.errors,
                    f.requests
                );
                figures[i][j].push(f);
            }
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nPages on {label}; driver built {build}; {rate} requests/s for {seconds} s a page, open loop; {rounds} \
         rounds after {warm_up} untimed, each page at every size in turn; medians over the rounds; load \
         average at the end: {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    let heads: Vec<String> =
        sizes.iter().map(|s| if *s == 0 { "demo".to_string() } else { format!("+{s} people") }).collect();
    let ratio_heads: Vec<String> = heads[1..].iter().map(|h| format!("{h}: p99 ÷ demo's")).collect();
    println!(
        "\n| page | {} | {} |",
        heads.iter().map(|h| format!("{h}: p50 / p99 ms, KB")).collect::<Vec<_>>().join(" | "),
        ratio_heads.join(" | ")
    );
    println!("|---|{}", "---|".repeat(sizes.len() * 2 - 1));
    for (i, name) in names.iter().enumerate() {
        let mut cells: Vec<String> = Vec::new();
        for per_size in &figures[i] {
            let p50 = median(&per_size.iter().map(|f| f.p50).collect::<Vec<_>>());
            let p99 = median(&per_size.iter().map(|f| f.p99).collect::<Vec<_>>());
            let bytes = median(&per_size.iter().map(|f| f.bytes).collect::<Vec<_>>()).unwrap_or(0);
            let errors: usize = per_size.iter().map(|f| f.errors).sum();
            let requests: usize = per_size.iter().map(|f| f.requests).sum();
            cells.push(match (p50, p99) {
                (Some(p50), Some(p99)) => {
                    let errors = if errors > 0 { format!(" ({errors} errors of {requests})") } else { String::new() };
                    format!("{} / {}, {:.1}{errors}", ms(p50), ms(p99), bytes as f64 / 1000.0)
                }
                _ => "n/a".into(),
            });
        }
        // Each round's p99 at a size over the demo's in the same round, then the median of those.
        for per_size in &figures[i][1..] {
            let ratios: Vec<f64> = per_size
                .iter()
                .zip(&figures[i][0])
                .map(|(big, demo)| big.p99.as_secs_f64() / demo.p99.as_secs_f64().max(1e-9))
                .collect();
            cells.push(median(&ratios).map(|r| format!("{r:.2}")).unwrap_or_else(|| "n/a".into()));
        }
        println!("| {name} | {} |", cells.join(" | "));
    }
    let asks: Vec<String> = readies.iter().map(|r| format!("{} / {}", ms(r.ask.p50), ms(r.ask.p99))).collect();
    println!("| An ask (POST /api/ask, to its answer; p50 / p99 ms) | {} |", asks.join(" | "));
    for r in readies {
        drop(r.server);
        rt.block_on(r.db.drop());
    }
}
