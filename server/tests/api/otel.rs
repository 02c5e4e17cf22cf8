//! OpenTelemetry traces, received by a collector stand-in: a real HTTP server that takes
//! `POST /v1/traces` and decodes the protobuf bodies with `opentelemetry-proto`. An ask exports
//! its request, run, model-call and memory spans, with ids and counts and never stored text; the
//! `engram` binary sends its spans when told where, flushes them on shutdown, and sends nothing
//! when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{admin, card_of, lead, person, spawn_cards_with};
use crate::helpers::*;
use crate::runs::ask;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::Router;
use demo::company::{demo_email, DEMO_PASSWORD};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use reqwest::Method;
use server::telemetry::{Telemetry, ENDPOINT, TRACES_ENDPOINT};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The tests whose own spans are exported (`crate::global_tracing`) take turns, so each reads its
/// own.
static ONE_TRACED_TEST: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The collector stand-in. It runs on a thread and runtime of its own, so it answers while a
/// test's thread waits on the exporter's flush.
pub(crate) struct Collector {
    pub(crate) base: String,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Collector {
    pub(crate) fn start() -> Self {
        let bodies: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
        let (tx, rx) = std::sync::mpsc::channel();
        let kept = bodies.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
                tx.send(listener.local_addr().expect("an address")).expect("send the address");
                let app = Router::new().route("/v1/traces", post(receive)).with_state(kept);
                axum::serve(listener, app).await.expect("serve");
            });
        });
        let addr = rx.recv().expect("the collector's address");
        Collector { base: format!("http://{addr}"), bodies }
    }

    /// Every body received, as sent.
    fn bodies(&self) -> Vec<Vec<u8>> {
        self.bodies.lock().unwrap().clone()
    }

    /// Every span received, decoded.
    fn spans(&self) -> Vec<Span> {
        decoded(&self.bodies())
    }

    /// The bodies received after the first `from`: what one test's spans were sent in.
    fn bodies_since(&self, from: usize) -> Vec<Vec<u8>> {
        self.bodies().into_iter().skip(from).collect()
    }

    /// The service name every batch was sent under.
    fn service_names(&self) -> Vec<String> {
        self.bodies()
            .iter()
            .map(|b| ExportTraceServiceRequest::decode(b.as_slice()).expect("an OTLP protobuf body"))
            .flat_map(|r| r.resource_spans)
            .filter_map(|r| r.resource)
            .filter_map(|r| attrs(&r.attributes).remove("service.name"))
            .collect()
    }
}

/// The spans in OTLP protobuf bodies.
fn decoded(bodies: &[Vec<u8>]) -> Vec<Span> {
    bodies
        .iter()
        .map(|b| ExportTraceServiceRequest::decode(b.as_slice()).expect("an OTLP protobuf body"))
        .flat_map(|r| r.resource_spans)
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect()
}

async fn receive(State(bodies): State<Arc<Mutex<Vec<Vec<u8>>>>>, body: Bytes) -> &'static str {
    bodies.lock().unwrap().push(body.to_vec());
    // An empty ExportTraceServiceResponse: every span accepted.
    ""
}

/// A span's attributes, each value written as text.
fn attrs(kv: &[KeyValue]) -> HashMap<String, String> {
    kv.iter()
        .map(|a| {
            let v = match a.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(AnyValue::StringValue(s)) => s.clone(),
                Some(AnyValue::IntValue(i)) => i.to_string(),
                Some(AnyValue::BoolValue(b)) => b.to_string(),
                Some(AnyValue::DoubleValue(d)) => d.to_string(),
                other => format!("{other:?}"),
            };
            (a.key.clone(), v)
        })
        .collect()
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn has(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Waits (up to 15 s) until the collector has received, after body `from`, the span of a request to
/// `path`: a request's span ends after its answer has gone out, and a batch goes out every five
/// seconds, so everything inside it has ended too.
async fn request_exported(collector: &Collector, from: usize, path: &str) {
    for _ in 0..150 {
        let sent = decoded(&collector.bodies_since(from))
            .iter()
            .any(|s| s.name == "request" && attrs(&s.attributes).get("path").map(String::as_str) == Some(path));
        if sent {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// An exporter to `collector`, set up as `engram` sets it up, from the variables given.
pub(crate) fn exporter_to(collector: &Collector) -> Telemetry {
    let base = collector.base.clone();
    Telemetry::from_lookup(|k| (k == ENDPOINT).then(|| base.clone()))
        .expect("a valid configuration")
        .expect("export is on when the endpoint is set")
}

// One thread for the test, its servers and the run it answers: the spans of this thread alone are
// exported while it runs (`crate::global_tracing`).
#[tokio::test(flavor = "current_thread")]
async fn an_ask_exports_its_spans_with_ids_and_counts_and_never_stored_text() {
    const QUESTION_MARK: &str = "QMARK7c1e";
    const LESSON_MARK: &str = "LMARK93ad";
    const CARD_MARK: &str = "CMARK5b20";
    const ANSWER_MARK: &str = "AMARKe81b";

    let _turn = ONE_TRACED_TEST.lock().await;
    let exported = crate::global_tracing::install();
    let from = exported.collector.bodies().len();
    let tracing_here = crate::global_tracing::TracingThisThread::start();

    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer(&format!("L-1001 is at Proposal ({ANSWER_MARK}).")));
    let c = spawn_cards_with(model.openai_settings()).await;
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;

    // A card whose stored fields hold a marker: the source says so, and a Refresh keeps it.
    let mut rec = lead(&c.ats, "L-1001").await;
    rec["company"] = serde_json::json!(format!("Nimbus {CARD_MARK}"));
    assert!(admin(&c.ats, Method::PUT, "/admin/leads/L-1001", Some(rec.clone())).await.is_success());
    let card = card_of(&c.app, &p, "L-1001").await.expect("Alice's card of L-1001");
    c.app.memory.reads.refresh(&p, card).await.expect("a refresh");
    // A lesson of Alice's own with a marker, that the question's words find.
    let r = alice
        .post(c.app.url("/api/knowledge"))
        .json(&serde_json::json!({"scope": "private", "text": format!("L-1001 prefers calls before 10 {LESSON_MARK}")}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED);
    // Past the stage's soft limit, with a new stage at the source: the check reads it and shows
    // its change line under the answer.
    rec["stage"] = serde_json::json!("Won");
    assert!(admin(&c.ats, Method::PUT, "/admin/leads/L-1001", Some(rec)).await.is_success());
    c.app.clock.advance(chrono::Duration::minutes(61));

    let asked = ask(&c.app, &alice, "Sales Assistant", &format!("Where is L-1001? {QUESTION_MARK}")).await;
    let run = &asked["run"];
    let (run_id, thread) = (run["id"].as_i64().unwrap(), run["thread"].as_i64().unwrap());
    // The markers did reach the run: the block, the check's line and the answer hold them.
    let shown = run.to_string();
    for shows in ["Proposal → Won", ANSWER_MARK] {
        assert!(shown.contains(shows), "{shows} is not in the run: {shown}");
    }
    let sent = model.requests().iter().map(|r| r.to_string()).collect::<String>();
    for mark in [QUESTION_MARK, LESSON_MARK, CARD_MARK] {
        assert!(sent.contains(mark), "{mark} did not reach the model: {sent}");
    }
    assert_eq!(run["check"]["state"], "changed", "{run}");

    // The ask's request span ends after its answer has gone out: wait until the exporter has sent
    // it (a batch goes out every five seconds), so that everything inside it has ended too.
    request_exported(&exported.collector, from, "/api/ask").await;
    drop(tracing_here);
    tokio::task::spawn_blocking(|| exported.telemetry.flush()).await.expect("the flush");
    let bodies = exported.collector.bodies_since(from);
    let spans = decoded(&bodies);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(exported.collector.service_names().first().map(String::as_str), Some("engram"));

    // The request that asked, with its status.
    let asked_request = spans
        .iter()
        .find(|s| s.name == "request" && attrs(&s.attributes).get("path").map(String::as_str) == Some("/api/ask"))
        .unwrap_or_else(|| panic!("no request span for /api/ask: {names:?}"));
    let a = attrs(&asked_request.attributes);
    assert_eq!((a["method"].as_str(), a["http.response.status_code"].as_str()), ("POST", "201"));
    assert_eq!(asked_request.kind, 2, "a server span");

    // The run, with its ids, kind and end.
    // Other requests of this test may assemble a block of their own (a page's preview): what is
    // asserted is this run's, found by its id and then by parentage.
    let runs: Vec<&Span> = named(&spans, "invoke_agent")
        .into_iter()
        .filter(|s| attrs(&s.attributes).get("engram.run.id") == Some(&run_id.to_string()))
        .collect();
    assert_eq!(runs.len(), 1, "{names:?}");
    let r = attrs(&runs[0].attributes);
    assert_eq!(r["gen_ai.conversation.id"], thread.to_string());
    assert_eq!(r["gen_ai.operation.name"], "invoke_agent");
    assert_eq!((r["engram.run.kind"].as_str(), r["engram.run.state"].as_str()), ("ask", "answered"));
    assert!(r["gen_ai.agent.id"].parse::<i64>().is_ok(), "{r:?}");
    let run_span = runs[0];
    // An ask answered within its request is that request's child.
    assert_eq!(
        (run_span.trace_id.as_slice(), run_span.parent_span_id.as_slice()),
        (asked_request.trace_id.as_slice(), asked_request.span_id.as_slice())
    );

    // The model call, with the GenAI conventions' attributes, inside the run.
    let under = |name: &str, parent: &[u8]| -> Vec<&Span> {
        named(&spans, name).into_iter().filter(|s| s.parent_span_id.as_slice() == parent).collect()
    };
    let call = under("chat stand-in", &run_span.span_id);
    assert_eq!(call.len(), 1, "{names:?}");
    let m = attrs(&call[0].attributes);
    assert_eq!(m["gen_ai.operation.name"], "chat");
    assert_eq!((m["gen_ai.provider.name"].as_str(), m["gen_ai.system"].as_str()), ("openai", "openai"));
    assert_eq!(m["gen_ai.request.model"], "stand-in");
    assert_eq!(m["gen_ai.response.finish_reasons"], "stop");
    assert!(m["gen_ai.usage.input_tokens"].parse::<u64>().unwrap() > 0, "{m:?}");
    assert!(m["gen_ai.usage.output_tokens"].parse::<u64>().unwrap() > 0, "{m:?}");
    assert_eq!(call[0].kind, 3, "a client span");
    assert_eq!(call[0].trace_id, run_span.trace_id);
    assert_eq!(call[0].parent_span_id, run_span.span_id);

    // The memory spans: block assembly with its counts, and within it the card read and the
    // lesson search; the check after the answer.
    let block = under("memory.block", &run_span.span_id);
    assert_eq!(block.len(), 1, "{names:?}");
    let b = attrs(&block[0].attributes);
    assert_eq!(block[0].parent_span_id, run_span.span_id);
    assert_eq!(b["engram.run.kind"], "ask");
    let count = |v: &HashMap<String, String>, k: &str| v[k].parse::<u32>().unwrap_or_else(|_| panic!("{k}: {v:?}"));
    assert!(count(&b, "engram.memory.cards") >= 1 && count(&b, "engram.memory.lessons") >= 1, "{b:?}");
    assert!(b["engram.memory.block_tokens"].parse::<u32>().unwrap() > 0, "{b:?}");
    let cards = under("memory.card_read", &block[0].span_id);
    assert_eq!(cards.len(), 1, "{names:?}");
    assert_eq!(cards[0].parent_span_id, block[0].span_id);
    assert!(count(&attrs(&cards[0].attributes), "engram.cards.read") >= 1);
    let lessons = under("memory.lesson_search", &block[0].span_id);
    assert_eq!(lessons.len(), 1, "{names:?}");
    assert_eq!(lessons[0].parent_span_id, block[0].span_id);
    let l = attrs(&lessons[0].attributes);
    assert!(count(&l, "engram.lessons.readable") >= count(&l, "engram.lessons.loaded"), "{l:?}");
    assert!(count(&l, "engram.lessons.loaded") >= 1, "{l:?}");
    assert_eq!(l["engram.lessons.question_embedded"], "false", "no embedding model is set up");
    let check = under("memory.check", &run_span.span_id);
    assert_eq!(check.len(), 1, "{names:?}");
    assert_eq!(check[0].parent_span_id, run_span.span_id);
    let k = attrs(&check[0].attributes);
    assert_eq!(k["engram.check.state"], "changed", "{k:?}");
    assert_eq!(k["engram.run.id"], run_id.to_string());
    assert!(count(&k, "engram.check.cards") >= 1 && count(&k, "engram.check.changed") >= 1, "{k:?}");

    // Only spans go out, never log lines: no span carries an event.
    assert!(spans.iter().all(|s| s.events.is_empty()), "{:?}", spans.iter().find(|s| !s.events.is_empty()));
    // And nothing stored is anywhere in what was sent: not the question, the lesson, the card's
    // field, the check's change line or the answer.
    for body in &bodies {
        for mark in [QUESTION_MARK, LESSON_MARK, CARD_MARK, ANSWER_MARK] {
            assert!(!has(body, mark), "{mark} was exported");
        }
        for text in ["Nimbus", "prefers calls", "Proposal", "→ Won", "Where is"] {
            assert!(!has(body, text), "{text:?} was exported");
        }
    }
}

// An outside agent's tool call is traced as a run's own: a span of the tool's name and the call's
// id inside the request that made it, never its arguments or what it read.
#[tokio::test(flavor = "current_thread")]
async fn an_external_runs_tool_call_exports_its_span_and_never_what_it_read() {
    let _turn = ONE_TRACED_TEST.lock().await;
    let exported = crate::global_tracing::install();
    let from = exported.collector.bodies().len();
    let tracing_here = crate::global_tracing::TracingThisThread::start();

    let c = spawn_cards_with(crate::model_server::no_models()).await;
    let token = token_for(&c.app, "alice").await;
    let start = serde_json::json!({"agent": "Sales Assistant", "question": "Who is C-2001?"});
    let (status, started) = bearer_post(&c.app, &token, "/api/runs/external", start).await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{started}");
    let run = started["run"].as_i64().unwrap();
    let path = format!("/api/runs/{run}/tools/acme_ats__get_contact");
    let (status, read) = bearer_post(&c.app, &token, &path, serde_json::json!({"id": "C-2001"})).await;
    assert_eq!((status, read["kind"].as_str()), (reqwest::StatusCode::OK, Some("tool_call")), "{read}");
    assert!(read["result"].as_str().unwrap().contains("Priya Raman"), "{read}");

    request_exported(&exported.collector, from, &path).await;
    drop(tracing_here);
    tokio::task::spawn_blocking(|| exported.telemetry.flush()).await.expect("the flush");
    let bodies = exported.collector.bodies_since(from);
    let spans = decoded(&bodies);
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let request = spans
        .iter()
        .find(|s| s.name == "request" && attrs(&s.attributes).get("path").map(String::as_str) == Some(path.as_str()))
        .unwrap_or_else(|| panic!("no request span for the tool call: {names:?}"));
    let tools = named(&spans, "execute_tool acme_ats__get_contact");
    assert_eq!(tools.len(), 1, "{names:?}");
    let t = attrs(&tools[0].attributes);
    assert_eq!(
        (t["gen_ai.operation.name"].as_str(), t["gen_ai.tool.name"].as_str()),
        ("execute_tool", "acme_ats__get_contact")
    );
    assert_eq!(t["gen_ai.tool.call.id"], "external-1");
    assert_eq!(tools[0].trace_id, request.trace_id, "inside the request that made it");
    for body in &bodies {
        for text in ["Priya", "priya.raman", "C-2001", "Who is"] {
            assert!(!has(body, text), "{text:?} was exported");
        }
    }
}

/// `engram serve` on a fresh SQLite file at a free port, with the environment given; the port.
fn serve(dir: &std::path::Path, env: &[(&str, &str)]) -> (std::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("an address").port();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("serve")
        .env("ENGRAM_DATABASE_URL", format!("sqlite://{}/engram.db", dir.display()))
        .env("ENGRAM_ADDR", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "error")
        .env_remove(ENDPOINT)
        .env_remove(TRACES_ENDPOINT)
        .env_remove("OTEL_SERVICE_NAME")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    (cmd.spawn().expect("run engram"), port)
}

/// Asks the server for a page until it answers, then once more with a known request id.
async fn request_until_up(port: u16, id: &str) {
    let c = client();
    for _ in 0..200 {
        if c.get(format!("http://127.0.0.1:{port}/api/me")).send().await.is_ok() {
            let r = c.get(format!("http://127.0.0.1:{port}/api/me")).header("X-Request-Id", id).send().await;
            assert_eq!(r.expect("a response").headers()["x-request-id"], id);
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("engram serve did not start");
}

// Each timed job is a root span with the job's name and a run id of its own, and carries nothing
// stored.
#[tokio::test(flavor = "current_thread")]
async fn each_timed_job_is_a_root_span_of_its_own() {
    let _turn = ONE_TRACED_TEST.lock().await;
    let exported = crate::global_tracing::install();
    let from = exported.collector.bodies().len();
    let tracing_here = crate::global_tracing::TracingThisThread::start();

    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let ada = app.sign_in("ada").await;
    const LESSON_MARK: &str = "LMARK2d7c0";
    let r = ada
        .post(app.url("/api/knowledge"))
        .json(&serde_json::json!({"scope": "private", "text": format!("Quarterly reviews go to Eli first {LESSON_MARK}")}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED);
    server::jobs::run_due_jobs(&app.memory).await;
    server::jobs::measure_memory(&app.operations).await;
    server::jobs::run_nightly(&app.nightly).await;

    drop(tracing_here);
    tokio::task::spawn_blocking(|| exported.telemetry.flush()).await.expect("the flush");
    let bodies = exported.collector.bodies_since(from);
    let spans = decoded(&bodies);
    let jobs: Vec<HashMap<String, String>> = named(&spans, "job").iter().map(|s| attrs(&s.attributes)).collect();
    for job in ["prepare_my_day", "forgetting", "operations_measure", "nightly"] {
        let found = jobs.iter().filter(|j| j.get("name").map(String::as_str) == Some(job)).count();
        assert_eq!(found, 1, "the {job} job's span: {jobs:?}");
    }
    assert!(jobs.iter().all(|j| j.get("run").is_some_and(|r| !r.is_empty())), "{jobs:?}");
    assert!(named(&spans, "job").iter().all(|s| s.parent_span_id.is_empty()), "jobs are root spans");
    for body in &bodies {
        assert!(!has(body, LESSON_MARK), "a stored lesson was exported");
    }
}

/// Stops the server as ctrl-c does, and waits for it to end; its stderr.
fn interrupt(child: std::process::Child) -> String {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("interrupt engram");
    let out = child.wait_with_output().expect("engram ends");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn engram_sends_its_spans_where_told_and_flushes_them_when_stopped() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    // A batch a minute: only the flush at shutdown sends the request's span within this test.
    let env = [
        (ENDPOINT, collector.base.as_str()),
        ("OTEL_SERVICE_NAME", "engram-test"),
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
    ];
    let (child, port) = serve(dir.path(), &env);
    request_until_up(port, "otel-flush-test-1").await;
    assert!(collector.bodies().is_empty(), "nothing is sent before the batch is due");
    let stderr = tokio::task::spawn_blocking(move || interrupt(child)).await.unwrap();
    let spans = collector.spans();
    let request = spans
        .iter()
        .find(|s| {
            s.name == "request" && attrs(&s.attributes).get("id").map(String::as_str) == Some("otel-flush-test-1")
        })
        .unwrap_or_else(|| panic!("no span of the request: {spans:?} {stderr}"));
    assert!(attrs(&request.attributes)["http.response.status_code"].parse::<u16>().is_ok(), "{request:?}");
    assert!(collector.service_names().iter().all(|n| n == "engram-test"), "{:?}", collector.service_names());
}

/// A free port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("an address").port()
}

// As `engram` runs (one global subscriber), a run answered in the background is a root span in a
// trace of its own, with its block inside it, and neither carries its question or answer.
#[tokio::test]
async fn engram_exports_a_run_answered_in_the_background_as_a_root_span() {
    const QUESTION_MARK: &str = "QMARK40c7e";
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let db = format!("sqlite://{}/engram.db", dir.path().display());
    let (source, model) = (free_port().to_string(), free_port().to_string());
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.arg("demo")
        .env("ENGRAM_DATABASE_URL", &db)
        .env("ENGRAM_ADDR", format!("127.0.0.1:{port}"))
        .env("ENGRAM_VAULT", dir.path().join("vault"))
        .env("ENGRAM_SECRET_KEY_FILE", dir.path().join("engram.key"))
        .env("ENGRAM_DEMO_SOURCE_PORT", &source)
        .env("ENGRAM_DEMO_MODEL_PORT", &model)
        .env("RUST_LOG", "error")
        .env(ENDPOINT, collector.base.as_str())
        .env_remove(TRACES_ENDPOINT)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("run engram demo");
    let base = format!("http://127.0.0.1:{port}");
    let c = client();
    let mut up = false;
    for _ in 0..600 {
        if c.get(format!("{base}/signin")).send().await.is_ok_and(|r| r.status().is_success()) {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(up, "engram demo did not start");
    let r = c
        .post(format!("{base}/auth/sign-in"))
        .form(&[("email", demo_email("alice").as_str()), ("password", DEMO_PASSWORD), ("next", "/")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::SEE_OTHER);
    let question =
        serde_json::json!({"agent": "Sales Assistant", "question": format!("What is new today? {QUESTION_MARK}")});
    let r = c.post(format!("{base}/api/ask?wait=false")).json(&question).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED);
    let run_id = body(r).await["run"]["id"].as_i64().unwrap();
    let mut state = String::new();
    for _ in 0..300 {
        let run: serde_json::Value =
            c.get(format!("{base}/api/runs/{run_id}")).send().await.unwrap().json().await.unwrap();
        state = run["state"].as_str().unwrap_or_default().to_string();
        if state != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state, "answered");
    // Its task ends just after: give it a moment, then stop engram, which sends what is waiting.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stderr = tokio::task::spawn_blocking(move || interrupt(child)).await.unwrap();

    let spans = collector.spans();
    let runs: Vec<&Span> = named(&spans, "invoke_agent")
        .into_iter()
        .filter(|s| attrs(&s.attributes).get("engram.run.id") == Some(&run_id.to_string()))
        .collect();
    assert_eq!(runs.len(), 1, "{stderr}");
    let run = runs[0];
    assert!(run.parent_span_id.is_empty(), "a root span: {run:?}");
    let asked = spans
        .iter()
        .find(|s| s.name == "request" && attrs(&s.attributes).get("path").map(String::as_str) == Some("/api/ask"))
        .expect("the ask's request span");
    assert_ne!(run.trace_id, asked.trace_id, "a trace of its own");
    let blocks: Vec<&Span> = named(&spans, "memory.block").into_iter().filter(|b| b.trace_id == run.trace_id).collect();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].parent_span_id, run.span_id);
    for body in collector.bodies() {
        assert!(!has(&body, QUESTION_MARK), "the question was exported");
    }
}

#[tokio::test]
async fn with_the_endpoint_unset_nothing_is_exported() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("temp dir");
    // The traces' own URL names the collector, but without OTEL_EXPORTER_OTLP_ENDPOINT export is off.
    let traces = format!("{}/v1/traces", collector.base);
    let (child, port) = serve(dir.path(), &[(TRACES_ENDPOINT, &traces)]);
    request_until_up(port, "otel-off-test-1").await;
    tokio::task::spawn_blocking(move || interrupt(child)).await.unwrap();
    assert!(collector.bodies().is_empty(), "{} bodies were exported", collector.bodies().len());
}

#[tokio::test]
async fn a_protocol_engram_does_not_speak_stops_the_start_with_the_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (child, _) = serve(dir.path(), &[(ENDPOINT, "http://127.0.0.1:4317"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().expect("engram ends")).await.unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "OTEL_EXPORTER_OTLP_PROTOCOL is \"grpc\": Engram exports traces over http/protobuf only"
    );
}
