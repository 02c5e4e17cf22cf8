//! The OpenAPI document at /api/openapi.json: served without sign-in, OpenAPI 3.1, naming every
//! route the `/api` and `/api/org` routers serve (read from the routers' own source, so a new
//! endpoint without a description fails here), and answers that match what it says.

use crate::helpers::*;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::collections::BTreeSet;

const METHODS: [&str; 5] = ["get", "post", "delete", "put", "patch"];

async fn document(app: &TestApp) -> Value {
    let r = Client::new().get(app.url("/api/openapi.json")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the document needs no sign-in");
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
    r.json().await.expect("the document is JSON")
}

/// Every (method, path) the document describes.
fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for m in METHODS {
            if item.get(m).is_some() {
                ops.insert((m.to_string(), path.clone()));
            }
        }
    }
    ops
}

/// The body of `pub fn <name>(` in a source file, up to its closing brace at the line's start.
fn fn_body<'a>(source: &'a str, name: &str) -> &'a str {
    let start = source.find(&format!("pub fn {name}(")).unwrap_or_else(|| panic!("no router fn {name}"));
    let rest = &source[start..];
    &rest[..rest.find("\n}\n").expect("the fn ends")]
}

/// The routes the server nests under `prefix` (`/api` or `/api/org`), read from `startup.rs` and
/// the router fns it merges there.
fn routed(prefix: &str) -> BTreeSet<(String, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let startup = std::fs::read_to_string(format!("{root}/src/startup.rs")).unwrap();
    let at = startup
        .match_indices(".nest(")
        .map(|(i, m)| i + m.len())
        .find(|&i| startup[i..].trim_start().starts_with(&format!("\"{prefix}\",")))
        .expect("the nest");
    let nest = &startup[at..];
    // The routers merged there, up to the nest's own fallback and layers.
    let end = [".fallback(", ".layer("].iter().filter_map(|m| nest.find(m)).min().expect("the nest's layers");
    let nest = &nest[..end];
    let mut routes = BTreeSet::new();
    let mut routers = 0;
    for call in nest.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).filter(|t| t.contains("::")) {
        let parts: Vec<&str> = call.split("::").collect();
        let (module, f) = (parts[parts.len() - 2], parts[parts.len() - 1]);
        routers += 1;
        let source = std::fs::read_to_string(format!("{root}/src/http/{module}.rs")).unwrap();
        for line in fn_body(&source, f).lines().filter(|l| l.contains(".route(")) {
            let path = line.split('"').nth(1).unwrap_or_else(|| panic!("a route's path is a literal: {line}"));
            let mut found = 0;
            for m in METHODS {
                let marker = format!("{m}(");
                for (i, _) in line.match_indices(&marker) {
                    let before = line[..i].chars().last().unwrap_or(' ');
                    if !(before.is_alphanumeric() || before == '_') {
                        routes.insert((m.to_string(), format!("{prefix}{path}")));
                        found += 1;
                    }
                }
            }
            assert!(found > 0, "a route with no method: {line}");
        }
    }
    assert!(routers > 0 && !routes.is_empty(), "no routers read under {prefix}");
    routes
}

/// A path with its parameters filled: a core's scope, a bot's or a tool's name, else an id.
fn filled(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').expect("a closed parameter") + open;
        out.push_str(&rest[..open]);
        out.push_str(match &rest[open + 1..close] {
            "scope" => "team:1",
            "name" => "x",
            _ => "1",
        });
        rest = &rest[close + 1..];
    }
    out + rest
}

/// The schema `reference` names, from `#/components/<kind>/<name>`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let mut at = doc;
            for part in r.trim_start_matches("#/").split('/') {
                at = &at[part];
            }
            assert!(!at.is_null(), "a dangling reference {r}");
            resolve(doc, at)
        }
        None => schema,
    }
}

/// Whether `value` matches `schema`, for what the document uses: `$ref`, `type` (one or a list),
/// `properties` with `required`, `items`, and `oneOf`/`allOf`. A mismatch is returned as a path.
fn check(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let schema = resolve(doc, schema);
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            check(doc, s, value, at)?;
        }
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
        if !one.iter().any(|s| check(doc, s, value, at).is_ok()) {
            return Err(format!("{at}: matches none of oneOf"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        });
        if !ok {
            return Err(format!("{at}: {value} is not of type {t}"));
        }
    }
    if let (Some(props), Some(obj)) = (schema.get("properties").and_then(Value::as_object), value.as_object()) {
        for r in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            let r = r.as_str().unwrap();
            if !obj.contains_key(r) {
                return Err(format!("{at}: `{r}` is required"));
            }
        }
        for (k, v) in obj {
            if let Some(s) = props.get(k) {
                check(doc, s, v, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(doc, items, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// Asserts that an answer is one the document names for the operation, with a body its schema admits.
async fn assert_matches(doc: &Value, method: &str, path: &str, r: reqwest::Response) -> Value {
    let status = r.status().as_u16().to_string();
    let op = &doc["paths"][path][method];
    assert!(!op.is_null(), "{method} {path} is not in the document");
    let response =
        op["responses"].get(&status).unwrap_or_else(|| panic!("{method} {path} answered {status}, undocumented"));
    let response = resolve(doc, response);
    let body: Value = r.json().await.unwrap_or(Value::Null);
    if let Some(schema) = response.get("content").and_then(|c| c.get("application/json")).and_then(|c| c.get("schema"))
    {
        if let Err(e) = check(doc, schema, &body, "body") {
            panic!("{method} {path} {status}: {e}\n{body}");
        }
    }
    body
}

#[tokio::test]
async fn the_document_is_served_and_describes_every_route() {
    let app = spawn_app().await;
    let doc = document(&app).await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["components"]["securitySchemes"]["session"].is_object());
    assert!(doc["components"]["securitySchemes"]["token"].is_object());

    let mut routes = routed("/api");
    routes.extend(routed("/api/org"));
    let ops = documented(&doc);
    let undocumented: Vec<_> = routes.difference(&ops).collect();
    assert!(undocumented.is_empty(), "routes without a description in the document: {undocumented:?}");
    let unrouted: Vec<_> = ops.difference(&routes).collect();
    assert!(unrouted.is_empty(), "the document describes routes no router serves: {unrouted:?}");
    assert!(ops.len() > 80, "{} operations", ops.len());

    // Each operation is really served, and without a caller answers the refusal it documents.
    for (method, path) in &ops {
        if path == "/api/openapi.json" {
            continue;
        }
        let r = Client::new()
            .request(method.to_uppercase().parse().unwrap(), app.url(&filled(path)))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{method} {path} without a caller");
        let body = assert_matches(&doc, method, path, r).await;
        // A trigger signs in with its own secret, and a post without one hears what a wrong one does.
        let expected = if path.ends_with("/trigger") { "trigger_refused" } else { "not_signed_in" };
        assert_eq!(body["error"], expected, "{method} {path}");
    }
}

#[tokio::test]
async fn answers_match_the_document() {
    let app = spawn_app().await;
    let doc = document(&app).await;
    let ada = app.sign_in("ada").await;

    let me = assert_matches(&doc, "get", "/api/me", ada.get(app.url("/api/me")).send().await.unwrap()).await;
    assert_eq!(me["is_admin"], true);

    let r = ada.post(app.url("/api/tokens")).json(&json!({"name": "openapi"})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let made = assert_matches(&doc, "post", "/api/tokens", r).await;
    let token = made["token"].as_str().unwrap();

    // A token where only a session is served: the refusal's shape.
    let r = Client::new().get(app.url("/api/memory/cards")).bearer_auth(token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let refused = assert_matches(&doc, "get", "/api/memory/cards", r).await;
    assert_eq!(refused["error"], "session_required");

    // A body the handler cannot read is refused in the same JSON shape, not axum's plain text.
    let r = ada.post(app.url("/api/tokens")).json(&json!({"name": 7})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused = assert_matches(&doc, "post", "/api/tokens", r).await;
    assert_eq!(refused["error"], "invalid");
    assert!(refused["message"].as_str().unwrap().contains("name"), "{refused}");
    let r = ada.post(app.url("/api/tokens")).body("{").header("content-type", "application/json").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(assert_matches(&doc, "post", "/api/tokens", r).await["error"], "bad_request");
    let r = ada.post(app.url("/api/tokens")).body("name=x").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(assert_matches(&doc, "post", "/api/tokens", r).await["error"], "unsupported_media_type");
    let r = ada.get(app.url("/api/threads/not-a-number")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(assert_matches(&doc, "get", "/api/threads/{id}", r).await["error"], "bad_request");

    // An ask with a token: the thread and the run.
    let alice = token_for(&app, "alice").await;
    let r = Client::new()
        .post(app.url("/api/ask"))
        .bearer_auth(&alice)
        .json(&json!({"agent": "Sales Assistant", "question": "What is our refund window?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let asked = assert_matches(&doc, "post", "/api/ask", r).await;
    assert!(asked["thread"].is_i64() && asked["run"].is_object(), "{asked}");

    // A path no route serves answers the API's 404, not a page.
    for path in ["/api/nothing", "/api/org/nothing", "/api/memory/nothing/at/all"] {
        let r = ada.get(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body(r).await["error"], "not_found", "{path}");
    }

    let r = ada.get(app.url("/api/threads/999999")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_matches(&doc, "get", "/api/threads/{id}", r).await;
}

/// An outside agent's whole run, with a person's token and with an agent token, answers as the
/// document's schemas (derived from the engine's own types) say: the start, a read, a send the gate
/// refuses, the finish and the run; and the agent tokens' own routes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_runs_answer_as_the_documents_schemas_say() {
    let m = crate::send_email::spawn_mailing_with(crate::model_server::no_models()).await;
    let app = &m.c.app;
    let doc = document(app).await;
    for schema in ["ExternalStart", "ExternalBlock", "ExternalTool", "ExternalCall", "RunView", "StepView", "MemoryRef"]
    {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} is in the document");
    }
    let alice = token_for(app, "alice").await;
    let ada = app.sign_in("ada").await;
    let sales = app.store.outline().await.unwrap().agents.iter().find(|a| a.name == "Sales Assistant").unwrap().id.0;
    let r = ada
        .post(app.url(&format!("/api/agents/{sales}/tokens/make")))
        .json(&json!({"name": "openapi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let made = assert_matches(&doc, "post", "/api/agents/{id}/tokens/make", r).await;
    let agent_token = made["secret"].as_str().unwrap().to_string();
    let listed = assert_matches(
        &doc,
        "get",
        "/api/agents/{id}/tokens",
        ada.get(app.url(&format!("/api/agents/{sales}/tokens"))).send().await.unwrap(),
    )
    .await;
    assert_eq!(listed["tokens"].as_array().unwrap().len(), 1);

    for token in [alice.as_str(), agent_token.as_str()] {
        let post = |path: String, b: Value| Client::new().post(app.url(&path)).bearer_auth(token).json(&b).send();
        let start = json!({"agent": "Sales Assistant", "question": "Where is L-1001? Then email Priya Raman"});
        let r = post("/api/runs/external".into(), start).await.unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let started = assert_matches(&doc, "post", "/api/runs/external", r).await;
        let run = started["run"].as_i64().unwrap();
        let r = post(format!("/api/runs/{run}/tools/acme_ats__get_lead"), json!({"id": "L-1001"})).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(assert_matches(&doc, "post", "/api/runs/{id}/tools/{name}", r).await["kind"], "tool_call");
        let send = json!({"to": "someone@else.example", "subject": "Hi", "body": "Hello"});
        let r = post(format!("/api/runs/{run}/tools/engram__send_email"), send).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(assert_matches(&doc, "post", "/api/runs/{id}/tools/{name}", r).await["kind"], "refused");
        let r = post(format!("/api/runs/{run}/finish"), json!({"answer": "L-1001 is at Proposal."})).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let done = assert_matches(&doc, "post", "/api/runs/{id}/finish", r).await;
        assert_eq!(done["state"], "answered", "{done}");
        // Alice reads her own run; Ada, the Sales Assistant's owner, the agent token's.
        let reader = if token == alice { app.sign_in("alice").await } else { ada.clone() };
        let r = reader.get(app.url(&format!("/api/runs/{run}"))).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(assert_matches(&doc, "get", "/api/runs/{id}", r).await["kind"], "external");
    }
    let id = listed["tokens"][0]["id"].as_i64().unwrap();
    let r = ada.post(app.url(&format!("/api/agents/{sales}/tokens/{id}/revoke"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_matches(&doc, "post", "/api/agents/{id}/tokens/{token}/revoke", r).await;
}
