//! The outbound policy and the protected-path rule against the running server: a URL a bot wrote
//! into its memory is never called on this machine, a connector's redirect to another host is not
//! followed, an answer past the cap is refused, a bot's own audits are limited to six an hour (over
//! the API and MCP alike), and a transcript path is judged as the vault opens it.

use crate::helpers::*;
use axum::http::{header, StatusCode as AxumStatus};
use axum::response::{IntoResponse, Response};
use axum::Router;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A stand-in on this machine that counts every request and answers each with `answer`.
struct StandIn {
    addr: SocketAddr,
    requests: Arc<AtomicUsize>,
}

impl StandIn {
    async fn start(answer: impl Fn(&str) -> Response + Clone + Send + Sync + 'static) -> Self {
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let router = Router::new().fallback(move |uri: axum::http::Uri| {
            let answer = answer.clone();
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                answer(uri.path())
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { addr, requests }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn tools(pad: usize) -> Response {
    axum::Json(json!({"tools": [], "pad": "x".repeat(pad)})).into_response()
}

fn redirect(to: String) -> Response {
    (AxumStatus::FOUND, [(header::LOCATION, to)]).into_response()
}

async fn admin(app: &TestApp) -> engine::org::Person {
    app.store.credentials("ada@acme.example").await.unwrap().expect("ada").0
}

async fn bot_token(app: &TestApp, bot: &str) -> String {
    app.org_cli(&["token", bot, "--as", "sam"]).await.unwrap().trim().to_string()
}

fn write_memory(app: &TestApp, bot: &str, text: &str) {
    std::fs::write(app.vault().join(".agents/org/memory").join(format!("{bot}.md")), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_dry_run_audit_never_calls_a_loopback_url_from_its_memory_and_says_why() {
    let stand_in = StandIn::start(|_| "here".into_response()).await;
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let scout = bot_token(&app, "scout").await;
    let url = format!("{}/api", stand_in.url());
    let memory = format!("# Scout\n\n- The CRM endpoint is {url}\n");
    write_memory(&app, "scout", &memory);

    let (s, r) = bearer_post(&app, &scout, "/api/org/agents/scout/memory-audit", json!({"dry_run": true})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(stand_in.requests(), 0, "the audit made no request to an address on this machine");
    let notes = r["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "{url} was not checked: 127.0.0.1 is a loopback address, and an address from memory or a bot is never \
             called there"
        )),
        "the audit says why: {r}"
    );
    assert!(!r["actions"].to_string().contains("MARK_UNVERIFIED"), "not asked is not down: {r}");
    assert_eq!(std::fs::read_to_string(app.vault().join(".agents/org/memory/scout.md")).unwrap(), memory);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stand_in_the_settings_allow_is_the_one_loopback_address_the_audit_calls() {
    let allowed = StandIn::start(|_| "here".into_response()).await;
    let other = StandIn::start(|_| "here".into_response()).await;
    let mut models = crate::model_server::no_models();
    models.outbound.stand_ins = vec![allowed.addr];
    let app = spawn_bots_app(models, 200).await;
    let scout = bot_token(&app, "scout").await;
    write_memory(
        &app,
        "scout",
        &format!(
            "# Scout\n\n- The CRM endpoint is {}/api\n- The wiki endpoint is {}/wiki\n",
            allowed.url(),
            other.url()
        ),
    );
    let (s, r) = bearer_post(&app, &scout, "/api/org/agents/scout/memory-audit", json!({"dry_run": true})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(allowed.requests(), 1, "the allowed stand-in was checked: {r}");
    assert_eq!(other.requests(), 0, "any other port on this machine was not: {r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_asks_for_at_most_six_audits_an_hour() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let scout = bot_token(&app, "scout").await;
    let sam = token_for(&app, "sam").await;
    let path = "/api/org/agents/scout/memory-audit";
    for i in 0..6 {
        let (s, r) = bearer_post(&app, &scout, path, json!({"dry_run": true})).await;
        assert_eq!(s, StatusCode::OK, "audit {i}: {r}");
    }
    let (s, r) = bearer_post(&app, &scout, path, json!({"dry_run": true})).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{r}");
    assert_eq!(r["error"], "throttled");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.starts_with("A bot may ask for at most 6 memory audits an hour; scout may ask again at "),
        "{message}"
    );
    // Over MCP, the bot's other way to ask, the same hour is spent.
    let out = crate::mcp::mcp_client(
        app.url("/mcp"),
        scout.clone(),
        json!([{"tool": "memory_audit", "arguments": {"dry_run": true}}]),
    )
    .await;
    let call = &out["calls"][0];
    assert_eq!(call["is_error"], true, "{out}");
    assert!(
        call["text"][0].as_str().unwrap().starts_with("A bot may ask for at most 6 memory audits an hour"),
        "{out}"
    );
    // The limit is on the bot's own requests: its owner still audits it.
    let (s, r) = bearer_post(&app, &sam, path, json!({"dry_run": true})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    // An hour on, it may ask again.
    app.clock.advance(chrono::Duration::minutes(61));
    let (s, r) = bearer_post(&app, &scout, path, json!({"dry_run": true})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connectors_redirect_to_another_host_is_not_followed_and_one_to_itself_is() {
    let elsewhere = StandIn::start(|_| tools(0)).await;
    let target = format!("{}/tools", elsewhere.url());
    let redirecting = StandIn::start(move |path| match path {
        "/away/tools" => redirect(target.clone()),
        "/here/tools" => redirect("/there/tools".into()),
        _ => tools(0),
    })
    .await;
    let app = spawn_app().await;
    let ada = admin(&app).await;

    let base = format!("{}/away", redirecting.url());
    let e = app.memory.connectors.create_connector(&ada, "Redirecting", &base, "company-key").await.unwrap_err();
    assert_eq!(elsewhere.requests(), 0, "the other host was never asked");
    assert_eq!(
        e.to_string(),
        format!(
            "{base}: the source could not be reached: it redirected to {}, another host than the one asked, and \
             such a redirect is not followed; nothing was saved",
            elsewhere.url()
        )
    );
    assert!(app.store.connectors().await.unwrap().iter().all(|c| c.name != "Redirecting"), "nothing was saved");

    let base = format!("{}/here", redirecting.url());
    app.memory
        .connectors
        .create_connector(&ada, "Same host", &base, "company-key")
        .await
        .expect("a redirect to itself");
    assert_eq!(redirecting.requests(), 3, "the refused call, then the same-host redirect and its target");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_answer_past_the_cap_is_refused() {
    let cap = 64 * 1024;
    let big = StandIn::start(move |_| tools(cap)).await;
    let small = StandIn::start(move |_| tools(cap / 2)).await;
    let app = spawn_app_with(move |s| s.models.outbound.max_bytes = cap).await;
    let ada = admin(&app).await;
    let e = app.memory.connectors.create_connector(&ada, "Big", &big.url(), "company-key").await.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: the source answered something unexpected: the answer is larger than 65536 bytes, the most Engram \
             reads (ENGRAM_OUTBOUND_MAX_BYTES); nothing was saved",
            big.url()
        )
    );
    app.memory
        .connectors
        .create_connector(&ada, "Small", &small.url(), "company-key")
        .await
        .expect("an answer under the cap");
}

async fn wake_done_with(app: &TestApp, token: &str, run: &str, transcript: &str) -> (StatusCode, Value) {
    let (s, w) = bearer_post(app, token, "/api/org/wake", json!({"agent": "scout", "reason": "assigned"})).await;
    assert_eq!(s, StatusCode::CREATED, "{w}");
    let done = json!({"wakeups": [w["id"]], "run": run, "exit": 0, "turns": 3, "transcript_path": transcript});
    bearer_post(app, token, "/api/org/wake-done", done).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_path_is_judged_as_the_vault_opens_it() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let sam = token_for(&app, "sam").await;
    let vault = app.vault();
    std::fs::create_dir_all(vault.join("Areas/Finance")).unwrap();
    std::fs::write(vault.join("Areas/Finance/budget.md"), "SECRET-FINANCE\n").unwrap();
    let runs = vault.join(".agents/org/runs");
    std::fs::create_dir_all(&runs).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("elsewhere.jsonl"), "{\"result\":\"SECRET-LINKED\"}\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("elsewhere.jsonl"), runs.join("linked.jsonl")).unwrap();
    std::fs::hard_link(vault.join("Areas/Finance/budget.md"), runs.join("twin.jsonl")).unwrap();
    std::fs::write(runs.join("r1.jsonl"), "{\"result\":\"done\"}\n").unwrap();

    let refused = [
        ("Areas/Finance/budget.md", "it belongs to the harness or the owner"),
        // The case, once answered 200.
        ("Areas//Finance/budget.md", "it belongs to the harness or the owner"),
        ("AREAS/finance/budget.md", "it belongs to the harness or the owner"),
        ("Areas\\Finance\\budget.md", "it belongs to the harness or the owner"),
        ("./Areas/Finance/budget.md", "it is outside the vault"),
        (".agents/org/runs//r1.jsonl", "it is not written the one way the vault opens it"),
        (".agents/org/runs/r1.jsonl/", "it is not written the one way the vault opens it"),
        (".agents/org/runs/linked.jsonl", "it is a symbolic link"),
        (".agents/org/runs/twin.jsonl", "it is a hard link"),
    ];
    for (i, (path, why)) in refused.iter().enumerate() {
        let (s, v) = wake_done_with(&app, &sam, &format!("t{i}"), path).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {v}");
        assert_eq!(v["error"], "transcript_refused", "{path}: {v}");
        let message = v["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("The transcript {path} was refused: {why}")), "{path}: {message}");
    }
    let (_, eps) = bearer_get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps, json!([]), "no refused transcript was recorded");
    let (s, v) = wake_done_with(&app, &sam, "ok", ".agents/org/runs/r1.jsonl").await;
    assert_eq!(s, StatusCode::OK, "the plain spelling of a plain file is taken: {v}");
}
