//! A search of People at the organisation's size, statement by statement: the store's reads for a
//! page of a search (`people_page` and `search_overflows`, what the People page asks for), beside
//! the one statement they replaced (an OR of the three index ranges, sorted by name, which a
//! search then was), timed in one run on the same seeded database, in turn.
//!
//! The replaced statement is the baseline: its cost grew with how many people a search matched,
//! or, where the planner walked the name index to find the first 50 by name, with how far into
//! the alphabet they were. The product's reads consider at most `SEARCH_CONSIDERS` people of each
//! way, so their cost is bounded whatever the search.
//!
//! Run with `cargo bench -p server --bench people_search` after `cargo build --release -p server`.
//! It seeds `ENGRAM_BENCH_PEOPLE` people (default 100,000) with `scripts/seed-org` on SQLite, and
//! on PostgreSQL when `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`) names a server
//! (a database of its own, analysed as autovacuum would, dropped after). `ENGRAM_BENCH_ORG` names
//! an already seeded database instead. Figures are printed, never asserted.

use engine::org::listing::{PrefixSearch, PEOPLE_PAGE_SIZE};
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection, SqliteConnection};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What is typed: one letter that starts many names ("a"), one that starts every team's name
/// ("o": the seeded teams are "Org Team …"), a whole team-name word, a common given name, a letter
/// late in the alphabet, and a name almost nobody has.
const SEARCHES: [&str; 6] = ["a", "o", "org", "priya", "z", "sam"];
/// Timed rounds a search (fewer when the baseline is slow: see `measure`), after `WARM` untimed.
const ROUNDS: usize = 300;
const WARM: usize = 10;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// The statement a search was before: every match of the three ranges, sorted by name.
fn replaced(postgres: bool) -> String {
    let (name, by_bytes) = if postgres {
        ("translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\"", " COLLATE \"C\"")
    } else {
        ("lower(name)", "")
    };
    format!(
        "SELECT id, name, email, is_admin, main_team_id, role_override_id, manager_id, left_at FROM people \
         WHERE ({name} >= $1 AND {name} < $2) OR (email{by_bytes} >= $1 AND email{by_bytes} < $2) \
         OR main_team_id IN (SELECT id FROM teams WHERE {name} >= $1 AND {name} < $2) \
         ORDER BY name{by_bytes}, id LIMIT $3 OFFSET 0"
    )
}

/// A seeded database: made here with `scripts/seed-org`, or named by `ENGRAM_BENCH_ORG`.
struct Seeded {
    url: String,
    /// The PostgreSQL admin URL and the database's name, to drop it after.
    made: Option<(String, String)>,
    _dir: Option<tempfile::TempDir>,
}

async fn seed(people: u32, postgres_admin: Option<&str>) -> Seeded {
    let dir = tempfile::tempdir().expect("a folder");
    let org = dir.path().join("org");
    let (url, made) = match postgres_admin {
        None => (format!("sqlite://{}/engram.db", org.display()), None),
        Some(admin) => {
            let name = format!("people_search_{}", std::process::id());
            let mut conn = PgConnection::connect(admin).await.expect("connect to PostgreSQL");
            conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the database");
            let mut url = reqwest::Url::parse(admin).expect("a URL");
            url.set_path(&format!("/{name}"));
            (url.to_string(), Some((admin.to_string(), name)))
        }
    };
    eprintln!("people_search: seeding {people} people into {url}");
    let mut seed = Command::new(repo().join("scripts/seed-org"));
    seed.arg(people.to_string()).arg(&org);
    if made.is_some() {
        seed.arg(&url);
    }
    let status = seed.status().expect("run scripts/seed-org");
    assert!(status.success(), "scripts/seed-org failed");
    if made.is_some() {
        let mut conn = PgConnection::connect(&url).await.expect("connect to the seeded database");
        conn.execute("VACUUM ANALYZE").await.expect("VACUUM ANALYZE");
    }
    Seeded { url, made, _dir: Some(dir) }
}

/// The baseline's connection: the same database, one connection, statements prepared once.
enum Raw {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl Raw {
    async fn search(&mut self, sql: &str, search: &PrefixSearch) -> usize {
        let limit = i64::from(PEOPLE_PAGE_SIZE + 1);
        let rows = match self {
            Raw::Sqlite(c) => {
                sqlx::query(sql).bind(&search.from).bind(&search.to).bind(limit).fetch_all(c).await.map(|r| r.len())
            }
            Raw::Postgres(c) => {
                sqlx::query(sql).bind(&search.from).bind(&search.to).bind(limit).fetch_all(c).await.map(|r| r.len())
            }
        };
        rows.expect("the replaced statement")
    }
}

async fn measure(url: &str) -> Vec<String> {
    let postgres = url.starts_with("postgres");
    let store = AnyStore::open(url).await.expect("open the store").shared();
    let mut raw = if postgres {
        Raw::Postgres(PgConnection::connect(url).await.expect("connect"))
    } else {
        Raw::Sqlite(SqliteConnection::connect(url).await.expect("connect"))
    };
    let sql = replaced(postgres);
    let mut rows = Vec::new();
    for typed in SEARCHES {
        let search = PrefixSearch::parse(typed).expect("a search");
        let (mut before, mut now) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
        let mut overflowed = false;
        let mut found = (0, 0);
        // In turn, so both meet the same machine; the first rounds warm the caches and plans. A
        // baseline that takes a quarter of a second a search stops at 15 seconds.
        let began = Instant::now();
        for round in 0..ROUNDS + WARM {
            if round >= WARM + 40 && began.elapsed() > Duration::from_secs(15) {
                break;
            }
            let t = Instant::now();
            found.0 = raw.search(&sql, &search).await;
            let old = t.elapsed();
            let t = Instant::now();
            found.1 = store.people_page(Some(&search), 0, PEOPLE_PAGE_SIZE + 1).await.expect("a page").len();
            overflowed = store.search_overflows(&search).await.expect("overflows");
            let new = t.elapsed();
            if round >= WARM {
                before.push(old);
                now.push(new);
            }
        }
        before.sort();
        now.sort();
        let row = format!(
            "| \"{typed}\" | {} | {} / {} | {} / {} | {} / {}{} |",
            now.len(),
            ms(percentile(&before, 0.5)),
            ms(percentile(&before, 0.99)),
            ms(percentile(&now, 0.5)),
            ms(percentile(&now, 0.99)),
            found.0,
            found.1,
            if overflowed { ", says more match" } else { "" },
        );
        println!("{row}");
        rows.push(row);
    }
    rows
}

fn main() {
    let people: u32 = std::env::var("ENGRAM_BENCH_PEOPLE").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    let head = "| search | rounds | replaced statement: p50 / p99 ms | the product's reads: p50 / p99 ms | rows (of 51) |\n|---|---|---|---|---|";
    if let Ok(url) = std::env::var("ENGRAM_BENCH_ORG") {
        println!("\nA search of People on {url} ({build} build)\n\n{head}");
        rt.block_on(measure(&url));
        return;
    }
    let admin = std::env::var("ENGRAM_BENCH_POSTGRES_URL").or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL")).ok();
    let mut backends = vec![None];
    backends.extend(admin.as_deref().map(Some));
    let mut tables = Vec::new();
    for backend in backends {
        let seeded = rt.block_on(seed(people, backend));
        let label = if backend.is_some() { "PostgreSQL" } else { "SQLite" };
        println!("\n{label}, {people} people and the demo's ({build} build)\n\n{head}");
        let rows = rt.block_on(measure(&seeded.url));
        tables.push((label, rows));
        if let Some((admin, name)) = &seeded.made {
            rt.block_on(async {
                let mut conn = PgConnection::connect(admin).await.expect("connect to PostgreSQL");
                let _ = conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await;
            });
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("\nload average at the end: {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    for (label, rows) in tables {
        println!("\n{label}\n\n{head}\n{}", rows.join("\n"));
    }
}
