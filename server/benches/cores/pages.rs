//! Page latency under an open-loop load: the real server on port 0 with the demo company, one
//! signed-in person, and for each route 200 requests a second for 20 seconds, each sent at its
//! scheduled time whether or not earlier ones have been answered. Latency is counted from the
//! scheduled time, so a server that falls behind shows it (no coordinated omission).

use crate::{percentile, report, BenchDatabase};
use demo::company::{demo_email, seed_if_empty, DEMO_PASSWORD};
use reqwest::Client;
use server::{Application, Settings};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

const RATE_PER_SECOND: u32 = 200;
const SECONDS: u32 = 20;
/// The stylesheet every page loads, as the site serves it from `/pkg`.
const STATIC: &str = "/pkg/engram.css";
const ROUTES: [&str; 3] = ["/company/roles/sales", "/profile/memory", STATIC];

struct Outcome {
    latency: Duration,
    ok: bool,
}

async fn serve(db: &BenchDatabase) -> (String, tokio::task::JoinHandle<Result<(), std::io::Error>>, tempfile::TempDir) {
    let site = tempfile::tempdir().expect("a site folder");
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("make the pkg folder");
    let css = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../style/main.css")).expect("read style/main.css");
    std::fs::write(pkg.join("engram.css"), css).expect("write the stylesheet");

    let mut settings = Settings::from_env();
    settings.database_url = db.url.clone();
    settings.vault = None;
    settings.run_jobs = false;
    // No model is asked for a page; the start-up probe should not wait on one either.
    settings.models.ollama_host = "http://127.0.0.1:9".to_string();
    settings.leptos.site_root = site.path().display().to_string().into();
    // A database that is not a file has no folder for a key file: a key made for this run.
    if settings.secret_key == server::secrets::KeySetting::BesideDatabase && !db.url.starts_with("sqlite:") {
        settings.secret_key = server::secrets::KeySetting::File(site.path().join("engram.key"));
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
    let app = Application::build(settings, listener).await.expect("build the server");
    seed_if_empty(app.store().as_ref()).await.expect("seed the demo company");
    let base = format!("http://127.0.0.1:{}", app.port());
    (base, tokio::spawn(app.run_until_stopped()), site)
}

async fn signed_in(base: &str) -> Client {
    let client = Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a client");
    let r = client
        .post(format!("{base}/auth/sign-in"))
        .form(&[("email", demo_email("alice").as_str()), ("password", DEMO_PASSWORD), ("next", "/")])
        .send()
        .await
        .expect("sign in");
    assert_eq!(r.status(), reqwest::StatusCode::SEE_OTHER, "alice signs in");
    client
}

async fn load(client: &Client, url: String) -> Vec<Outcome> {
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let period = Duration::from_secs(1) / RATE_PER_SECOND;
    let total = RATE_PER_SECOND * SECONDS;
    let start = tokio::time::Instant::now();
    let mut tasks = Vec::with_capacity(total as usize);
    for i in 0..total {
        let scheduled = start + period * i;
        tokio::time::sleep_until(scheduled).await;
        let (client, url, outcomes) = (client.clone(), url.clone(), outcomes.clone());
        let scheduled: Instant = scheduled.into_std();
        tasks.push(tokio::spawn(async move {
            let ok = match client.get(&url).send().await {
                Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                Err(_) => false,
            };
            outcomes.lock().await.push(Outcome { latency: scheduled.elapsed(), ok });
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let mut outcomes = outcomes.lock().await;
    std::mem::take(&mut *outcomes)
}

pub async fn bench_pages(db: &BenchDatabase) {
    let (base, server, _site) = serve(db).await;
    let client = signed_in(&base).await;
    for route in ROUTES {
        // One warm-up request, so the first timed one does not pay for a cold cache or connection.
        let first = client.get(format!("{base}{route}")).send().await.expect("warm-up request");
        assert!(first.status().is_success(), "{route} answers {}", first.status());
        let outcomes = load(&client, format!("{base}{route}")).await;
        let errors = outcomes.iter().filter(|o| !o.ok).count();
        let mut latencies: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
        latencies.sort();
        report(format_args!(
            "page {route} on {}, {RATE_PER_SECOND}/s for {SECONDS} s open loop: {} requests, p50 {:?}, p99 {:?}, \
             max {:?}, {errors} errors",
            db.label,
            outcomes.len(),
            percentile(&latencies, 0.50),
            percentile(&latencies, 0.99),
            latencies.last().copied().unwrap_or_default(),
        ));
    }
    server.abort();
    let _ = server.await;
}
