//! The fuzz target for what a connector answers over HTTP: its tool listing and its tools'
//! replies, parsed by `server::connector::HttpSource`. A stand-in connector on a port of this
//! machine answers each call with a random status and body; the client must turn every answer
//! into tools, a result or a `SourceError`, never a panic, and agree with what was sent.
//! The driver is the engine's (`engine/tests/fuzz_driver`): `scripts/check` runs the short run,
//! `scripts/fuzz` a long one.

#[path = "../../engine/tests/fuzz_driver/mod.rs"]
mod fuzz_driver;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::Router;
use engine::cards::source::{ReadKey, Source, SourceError, ToolInfo};
use fuzz_driver::fuzz;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
use server::connector::HttpSource;
use std::sync::{Arc, Mutex};

/// The next answer the stand-in gives: a status and a body.
type Answer = Arc<Mutex<(u16, Vec<u8>)>>;

async fn answer(State(next): State<Answer>) -> Response {
    let (status, body) = next.lock().unwrap().clone();
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![4 => "\\PC{0,30}", 1 => any::<String>(), 1 => ("[a-z\"{}]{1,4}", 100usize..3000).prop_map(|(s, n)| s.repeat(n))]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(vec!["name", "access", "error", "result", "message"])
                            .prop_map(str::to_string),
                        text()
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn tool() -> impl Strategy<Value = Value> {
    (text(), text(), prop::sample::select(vec!["read", "write", "act"]), any::<bool>(), json_value(), any::<bool>())
        .prop_map(|(name, description, access, bulk, parameters, reference)| {
            json!({"name": name, "description": description, "access": access, "bulk": bulk,
                   "parameters": parameters, "reference": reference})
        })
}

/// A body: random bytes, random JSON, a tool listing, a result, or an error code.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let json = |v: Value| v.to_string().into_bytes();
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..64),
        2 => json_value().prop_map(json),
        2 => prop::collection::vec(tool(), 0..4).prop_map(move |t| json(json!({ "tools": t }))),
        2 => json_value().prop_map(move |r| json(json!({ "result": r }))),
        1 => prop::sample::select(vec!["not_found", "unknown_tool", "denied"])
            .prop_map(move |e| json(json!({"error": e, "message": "no"}))),
    ]
}

fn status() -> impl Strategy<Value = u16> {
    prop_oneof![4 => Just(200u16), 1 => prop::sample::select(vec![201u16, 204, 400, 401, 403, 404, 409, 429, 500, 502, 503]), 1 => 200u16..600]
}

/// What every answer means whatever the call: the status decides an error before the body does.
fn by_status(status: u16, sent: Option<&Value>) -> Option<SourceError> {
    let code = sent.and_then(|v| v.get("error")).and_then(Value::as_str).unwrap_or("");
    match status {
        200..=299 => None,
        404 if code != "unknown_tool" => Some(SourceError::NotFound),
        401 => Some(SourceError::Unauthorized),
        403 => Some(SourceError::Forbidden),
        500..=599 => Some(SourceError::Down(String::new())),
        _ => Some(SourceError::Invalid(String::new())),
    }
}

fn same_kind(a: &SourceError, b: &SourceError) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

#[test]
fn fuzz_connector_answers() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let next: Answer = Arc::new(Mutex::new((200, Vec::new())));
    let base = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = Router::new().fallback(answer).with_state(next.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        base
    });
    let source = HttpSource::default();
    fuzz("connector answers", (status(), body()), |(status, bytes)| {
        // What the client should read: the body as JSON, by the same parser, where one is sent
        // at all (HTTP gives a 204 or a 304 no body).
        let sent: Option<Value> = if matches!(status, 204 | 304) { None } else { serde_json::from_slice(&bytes).ok() };
        *next.lock().unwrap() = (status, bytes);
        let expected = by_status(status, sent.as_ref());
        let listed = rt.block_on(source.tools(&base, "company-key"));
        match (&expected, &listed) {
            (Some(want), Err(got)) => prop_assert!(same_kind(want, got), "{status}: {got:?}"),
            (Some(_), Ok(tools)) => return Err(TestCaseError::fail(format!("{status} listed {tools:?}"))),
            (None, Ok(tools)) => {
                let tools_sent = sent.as_ref().and_then(|v| v.get("tools")).cloned().unwrap_or(Value::Null);
                let wanted: Vec<ToolInfo> =
                    serde_json::from_value(tools_sent).map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(tools, &wanted);
            }
            (None, Err(got)) => prop_assert!(matches!(got, SourceError::Invalid(_)), "{got:?}"),
        }
        let called =
            rt.block_on(source.call(&base, Some("company-key"), &ReadKey::Company, "get_lead", &json!({"id": 1})));
        match (&expected, &called) {
            (Some(want), Err(got)) => prop_assert!(same_kind(want, got), "{status}: {got:?}"),
            (Some(_), Ok(v)) => return Err(TestCaseError::fail(format!("{status} answered {v}"))),
            (None, Ok(result)) => prop_assert_eq!(Some(result), sent.as_ref().and_then(|v| v.get("result"))),
            (None, Err(SourceError::NotFound)) => {
                prop_assert_eq!(sent.as_ref().and_then(|v| v.get("error")), Some(&json!("not_found")))
            }
            (None, Err(got)) => {
                prop_assert!(matches!(got, SourceError::Invalid(_)), "{got:?}");
                prop_assert!(sent.as_ref().and_then(|v| v.get("result")).is_none());
            }
        }
        Ok(())
    });
}
