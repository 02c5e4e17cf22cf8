//! `Idempotency-Key` on the API's POSTs: a retry gets the first answer and creates nothing.

use crate::helpers::*;
use reqwest::{Client, Response, StatusCode};
use serde_json::{json, Value};

async fn team_scope(app: &TestApp, c: &Client) -> String {
    let (_, roles) = app.get_json(c, "/api/memory/roles").await;
    let team = roles["teams"].as_array().unwrap().iter().find(|t| t["team"]["name"] == "Sales Bengaluru").unwrap()
        ["team"]["id"]
        .as_i64()
        .unwrap();
    format!("team:{team}")
}

async fn save(app: &TestApp, c: &Client, scope: &str, key: Option<&str>, based_on: u32, text: &str) -> Response {
    let mut req = c
        .post(app.url(&format!("/api/memory/cores/{scope}")))
        .json(&json!({ "based_on": based_on, "text": text, "note": "" }));
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    req.send().await.expect("save request")
}

async fn versions(app: &TestApp, c: &Client, scope: &str) -> Vec<(i64, String)> {
    let (_, v) = app.get_json(c, &format!("/api/memory/cores/{scope}/versions")).await;
    v["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["version"].as_i64().unwrap(), v["author"].to_string()))
        .collect()
}

async fn status_and_body(r: Response) -> (StatusCode, Option<String>, Value) {
    let replayed = r.headers().get("idempotent-replayed").map(|v| v.to_str().unwrap().to_owned());
    (r.status(), replayed, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_save_gets_the_first_answer_and_makes_one_version() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let scope = team_scope(&app, &ada).await;
    let (status, replayed, first) = status_and_body(save(&app, &ada, &scope, Some("save-1"), 0, "one").await).await;
    assert_eq!((status, replayed), (StatusCode::CREATED, None));
    assert_eq!(first["version"], 1);

    let (status, replayed, again) = status_and_body(save(&app, &ada, &scope, Some("save-1"), 0, "one").await).await;
    assert_eq!((status, replayed.as_deref()), (StatusCode::CREATED, Some("true")));
    assert_eq!(again, first, "the first answer, byte for byte");
    assert_eq!(versions(&app, &ada, &scope).await.len(), 1, "the retry made no second version");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_key_with_another_body_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let scope = team_scope(&app, &ada).await;
    assert_eq!(save(&app, &ada, &scope, Some("save-1"), 0, "one").await.status(), StatusCode::CREATED);
    let (status, _, b) = status_and_body(save(&app, &ada, &scope, Some("save-1"), 1, "two").await).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["error"], "idempotency_key_reused");
    assert_eq!(b["message"], server::idempotency::KEY_REUSED);
    assert_eq!(versions(&app, &ada, &scope).await.len(), 1);

    let r = save(&app, &ada, &scope, Some("bad key with spaces"), 1, "two").await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(body(r).await["message"], server::idempotency::BAD_KEY);
    assert_eq!(versions(&app, &ada, &scope).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_key_every_save_is_new_and_a_refusal_frees_the_key() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let scope = team_scope(&app, &ada).await;
    assert_eq!(save(&app, &ada, &scope, None, 0, "one").await.status(), StatusCode::CREATED);
    let r = save(&app, &ada, &scope, None, 1, "one").await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert!(r.headers().get("idempotent-replayed").is_none());
    assert_eq!(versions(&app, &ada, &scope).await.len(), 2);

    // Refused (based on an old version): the key is not kept, so the corrected retry runs.
    assert_eq!(save(&app, &ada, &scope, Some("k"), 1, "three").await.status(), StatusCode::CONFLICT);
    let (status, replayed, b) = status_and_body(save(&app, &ada, &scope, Some("k"), 2, "three").await).await;
    assert_eq!((status, replayed), (StatusCode::CREATED, None));
    assert_eq!(b["version"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_persons_same_key_is_their_own() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let sam = app.sign_in("sam").await;
    let scope = team_scope(&app, &ada).await;
    assert_eq!(save(&app, &ada, &scope, Some("shared"), 0, "one").await.status(), StatusCode::CREATED);
    let (status, replayed, b) = status_and_body(save(&app, &sam, &scope, Some("shared"), 0, "one").await).await;
    assert_eq!((status, replayed), (StatusCode::CONFLICT, None), "sam's request ran, and met ada's version");
    assert_eq!(b["error"], "changed");
    let (status, replayed, b) = status_and_body(save(&app, &sam, &scope, Some("shared"), 1, "two").await).await;
    assert_eq!((status, replayed), (StatusCode::CREATED, None));
    assert_eq!(b["version"], 2);
    assert_eq!(versions(&app, &ada, &scope).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_24_hours_a_key_is_fresh_again() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let scope = team_scope(&app, &ada).await;
    assert_eq!(save(&app, &ada, &scope, Some("daily"), 0, "one").await.status(), StatusCode::CREATED);
    app.clock.advance(chrono::Duration::hours(23));
    let (status, replayed, _) = status_and_body(save(&app, &ada, &scope, Some("daily"), 0, "one").await).await;
    assert_eq!((status, replayed.as_deref()), (StatusCode::CREATED, Some("true")), "still kept after 23 hours");

    app.clock.advance(chrono::Duration::hours(2));
    let ada = app.sign_in("ada").await;
    let (status, replayed, b) = status_and_body(save(&app, &ada, &scope, Some("daily"), 1, "two").await).await;
    assert_eq!((status, replayed), (StatusCode::CREATED, None), "forgotten after 24 hours");
    assert_eq!(b["version"], 2);
    assert_eq!(versions(&app, &ada, &scope).await.len(), 2);
}
