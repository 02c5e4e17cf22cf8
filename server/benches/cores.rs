//! Prints token-count throughput and core-save latency (p50, p99 over 1,000 saves) on SQLite.
//! Run with `cargo bench -p server --bench cores`. Figures are printed, never asserted.

use chrono::Utc;
use engine::cores::service::CoreService;
use engine::cores::CoreScope;
use engine::org::{Company, RoleSlug, TimeZoneName};
use engine::store::{Actor, NewPerson, OrgStore};
use engine::tokens::count_tokens;
use engine::SystemClock;
use server::store::SqliteStore;
use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

fn bench_token_count(out: &mut impl Write) {
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
    let _ = writeln!(
        out,
        "token count: {:.1} MiB/s, {:.1} M chars/s ({} rounds over {:.2} MiB; {} tokens a round)",
        mib / elapsed.as_secs_f64(),
        (chars * rounds) as f64 / elapsed.as_secs_f64() / 1e6,
        rounds,
        text.len() as f64 / (1024.0 * 1024.0),
        total / rounds as u64
    );
    // A typical core: a few hundred tokens, as an editor's live meter counts it on every keystroke.
    let core = &text[..4_000];
    let n = 100_000;
    let start = Instant::now();
    for _ in 0..n {
        black_box(count_tokens(black_box(core)));
    }
    let per = start.elapsed() / n;
    let _ = writeln!(out, "token count of a 4,000-byte core: {per:?} each");
}

async fn bench_core_saves(out: &mut impl Write) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}/bench.db", dir.path().display());
    let store = SqliteStore::open(&url).await.expect("open store");
    let actor = Actor { person: None, at: Utc::now() };
    store
        .create_company(&Company { name: "Bench".into(), time_zone: TimeZoneName::parse("UTC").unwrap() }, actor)
        .await
        .unwrap();
    let slug = RoleSlug::parse("sales").unwrap();
    store.create_role(&slug, "Sales", 2_000, actor).await.unwrap();
    let admin = store
        .create_person(
            &NewPerson {
                name: "Admin".into(),
                email: "admin@bench.example".into(),
                password_hash: "unused".into(),
                is_admin: true,
                main_team: None,
            },
            actor,
        )
        .await
        .unwrap();
    let cores = CoreService::new(Arc::new(store), Arc::new(SystemClock));
    let scope = CoreScope::Company(slug);
    let base =
        "Stages: New, Qualified, Proposal, Won, Lost.\nDiscounts over 15% need the lead's approval.\n".repeat(10);
    let saves = 1_000u32;
    let mut latencies = Vec::with_capacity(saves as usize);
    let start = Instant::now();
    for v in 0..saves {
        let text = format!("{base}Revision {v}.");
        let t = Instant::now();
        cores.save_core(&admin, &scope, v, &text, "bench").await.expect("save");
        latencies.push(t.elapsed());
    }
    let total = start.elapsed();
    latencies.sort();
    let _ = writeln!(
        out,
        "core save on SQLite (WAL, synchronous=NORMAL), {saves} sequential saves: p50 {:?}, p99 {:?}, max {:?}, {:.0} saves/s",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.last().unwrap(),
        f64::from(saves) / total.as_secs_f64()
    );
}

fn main() {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "engram benchmarks (build profile: {})",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    bench_token_count(&mut out);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(bench_core_saves(&mut out));
}
