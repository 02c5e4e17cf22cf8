//! Prints token-count throughput, then, on one backend: core-save latency (p50, p99 over 1,000
//! sequential saves), the lost-update check (64 writers on one core, on the real save and on a
//! deliberately last-write-wins one), and page latency under an open-loop load.
//!
//! Run with `cargo bench -p server --bench cores --features bench-lww`; the backend is
//! `ENGRAM_BENCH_BACKEND` (`sqlite`, the default, or `postgres`), or `sqlite`/`postgres` after `--`.
//! PostgreSQL gets a new database on `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`),
//! dropped at the end. Figures are printed, never asserted.

mod lost_update;
mod pages;
mod saves;

use engine::tokens::count_tokens;
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn sample_text() -> String {
    // Prose, JSON and long ids, so both halves of the count are exercised.
    let prose = "Stages: New, Qualified, Proposal, Won, Lost. Discounts over 15% need the lead's approval. ";
    let json = r#"{"id":"0193f3e2-7c1a-7d2b-9f00-5a3c9e1b2d44","stage":"Qualified","owner":"alice@acme.example"} "#;
    let unicode = "Préparez le devis en INR — 請求書は月末に送付。 ";
    let mut s = String::new();
    while s.len() < 1 << 20 {
        s.push_str(prose);
        s.push_str(json);
        s.push_str(unicode);
    }
    s
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

/// Prints a figure line; the benchmark's whole output is these lines on standard output.
pub fn report(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
}

fn bench_token_count() {
    let text = sample_text();
    let chars = text.chars().count();
    let rounds = 50;
    let start = Instant::now();
    let mut total = 0u64;
    for _ in 0..rounds {
        total += u64::from(count_tokens(black_box(&text)));
    }
    let elapsed = start.elapsed();
    let mib = (text.len() * rounds) as f64 / (1024.0 * 1024.0);
    report(format_args!(
        "token count: {:.1} MiB/s, {:.1} M chars/s ({} rounds over {:.2} MiB; {} tokens a round)",
        mib / elapsed.as_secs_f64(),
        (chars * rounds) as f64 / elapsed.as_secs_f64() / 1e6,
        rounds,
        text.len() as f64 / (1024.0 * 1024.0),
        total / rounds as u64
    ));
    // A typical core: a few hundred tokens, as an editor's live meter counts it on every keystroke.
    let core = &text[..4_000];
    let n = 100_000;
    let start = Instant::now();
    for _ in 0..n {
        black_box(count_tokens(black_box(core)));
    }
    let per = start.elapsed() / n;
    report(format_args!("token count of a 4,000-byte core: {per:?} each"));
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    fn chosen() -> Self {
        let named = std::env::args()
            .skip(1)
            .find(|a| a == "sqlite" || a == "postgres")
            .or_else(|| std::env::var("ENGRAM_BENCH_BACKEND").ok())
            .unwrap_or_else(|| "sqlite".to_string());
        match named.as_str() {
            "sqlite" => Backend::Sqlite,
            "postgres" => Backend::Postgres,
            other => panic!("ENGRAM_BENCH_BACKEND must be sqlite or postgres, not {other:?}"),
        }
    }
}

/// A new, empty database of the chosen kind: its URL, and what removes it afterwards.
pub struct BenchDatabase {
    pub url: String,
    pub label: String,
    dir: tempfile::TempDir,
    postgres: Option<(String, String)>,
}

impl BenchDatabase {
    async fn create(backend: Backend) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        match backend {
            Backend::Sqlite => Self {
                url: format!("sqlite://{}/bench.db", dir.path().display()),
                label: "SQLite (WAL, synchronous=NORMAL)".to_string(),
                dir,
                postgres: None,
            },
            Backend::Postgres => {
                let admin = std::env::var("ENGRAM_BENCH_POSTGRES_URL")
                    .or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL"))
                    .expect("set ENGRAM_BENCH_POSTGRES_URL (or ENGRAM_TEST_POSTGRES_URL) to a PostgreSQL admin URL");
                let name = format!("bench_{:016x}", rand::random::<u64>());
                let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL server");
                conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the bench database");
                let fsync: String =
                    sqlx::query_scalar("SHOW fsync").fetch_one(&mut conn).await.expect("read the fsync setting");
                let commit: String = sqlx::query_scalar("SHOW synchronous_commit")
                    .fetch_one(&mut conn)
                    .await
                    .expect("read synchronous_commit");
                let version: String =
                    sqlx::query_scalar("SHOW server_version").fetch_one(&mut conn).await.expect("read the version");
                let mut url = reqwest::Url::parse(&admin).expect("the PostgreSQL URL is a URL");
                url.set_path(&format!("/{name}"));
                Self {
                    url: url.to_string(),
                    label: format!("PostgreSQL {version} (fsync={fsync}, synchronous_commit={commit})"),
                    dir,
                    postgres: Some((admin, name)),
                }
            }
        }
    }

    async fn drop_database(self) {
        if let Some((admin, name)) = &self.postgres {
            let mut conn = PgConnection::connect(admin).await.expect("connect to the PostgreSQL server");
            conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.expect("drop the bench database");
        }
        drop(self.dir);
    }
}

async fn run(backend: Backend) {
    let saves_db = BenchDatabase::create(backend).await;
    report(format_args!("backend: {}", saves_db.label));
    let store = AnyStore::open(&saves_db.url).await.expect("open the store");
    let admin = saves::company(&store).await;
    saves::bench_core_saves(&store, &admin, &saves_db.label).await;
    lost_update::bench_lost_updates(&store, &admin).await;
    drop(store);
    saves_db.drop_database().await;

    let pages_db = BenchDatabase::create(backend).await;
    pages::bench_pages(&pages_db).await;
    pages_db.drop_database().await;
}

fn main() {
    report(format_args!(
        "engram benchmarks (build profile: {})",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    ));
    bench_token_count();
    let backend = Backend::chosen();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(run(backend));
}
