//! Who's-who toolsets against the running server: an admin marks one in a session, and its
//! reference lists are fetched from the demo's Acme ATS behind a stand-in that records every
//! request it is sent. Only structured values are kept, an entry joins only the person it names
//! exactly, and no fetch is made under the kill switch, with people's keys or the acting-for header.

use crate::cards::person;
use crate::helpers::*;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use demo::acme_ats::AtsConfig;
use demo::acme_lists::TERRITORY_NOTE;
use engine::cards::source::KeyMode;
use engine::runs::whoswho::ListEntry;
use engine::store::NewPerson;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const CONNECTOR: i64 = 1;

/// One request the stand-in received.
#[derive(Debug, Clone, PartialEq)]
struct Received {
    method: &'static str,
    path: String,
    authorization: Option<String>,
    acting_for: Option<String>,
}

/// Acme ATS behind a stand-in that records each request before passing it on.
struct Recorder {
    base: String,
    received: Arc<Mutex<Vec<Received>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Recorder {
    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The tool calls received, by tool name.
    fn calls(&self) -> Vec<String> {
        self.received().into_iter().filter(|r| r.method == "POST").map(|r| r.path.replace("/tools/", "")).collect()
    }

    fn forget(&self) {
        self.received.lock().unwrap().clear();
    }
}

type Shared = (String, Arc<Mutex<Vec<Received>>>);

async fn forward(
    s: &Shared,
    method: &'static str,
    path: String,
    req: reqwest::RequestBuilder,
    headers: &HeaderMap,
) -> axum::response::Response {
    let header = |h: &str| headers.get(h).map(|v| String::from_utf8_lossy(v.as_bytes()).to_string());
    s.1.lock().unwrap().push(Received {
        method,
        path,
        authorization: header("authorization"),
        acting_for: header("x-acting-for"),
    });
    let mut req = req;
    for h in ["authorization", "x-acting-for"] {
        if let Some(v) = headers.get(h) {
            req = req.header(h, v.as_bytes());
        }
    }
    let resp = req.send().await.unwrap();
    let status = axum::http::StatusCode::from_u16(resp.status().as_u16()).unwrap();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    (status, axum::Json(body)).into_response()
}

async fn spawn_recorder() -> Recorder {
    let (ats, ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    let shared: Shared = (ats, Default::default());
    let router = axum::Router::new()
        .route(
            "/tools",
            axum::routing::get(|State(s): State<Shared>, headers: HeaderMap| async move {
                let req = Client::new().get(format!("{}/tools", s.0));
                forward(&s, "GET", "/tools".into(), req, &headers).await
            }),
        )
        .route(
            "/tools/{name}",
            axum::routing::post(
                |State(s): State<Shared>, Path(name): Path<String>, headers: HeaderMap, body: String| async move {
                    let req = Client::new()
                        .post(format!("{}/tools/{name}", s.0))
                        .header("content-type", "application/json")
                        .body(body);
                    forward(&s, "POST", format!("/tools/{name}"), req, &headers).await
                },
            ),
        )
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    let ats_task = tokio::spawn(async move {
        let _ = ats_task.await;
    });
    Recorder { base, received: shared.1, tasks: vec![task, ats_task] }
}

/// The demo company with Acme ATS connected through the recorder, which is then cleared of the
/// demo's first reads.
async fn spawn_lists() -> (TestApp, Recorder) {
    let app = spawn_app().await;
    let recorder = spawn_recorder().await;
    demo::cards::seed(&*app.store, &app.memory, app.clock.clone() as Arc<dyn engine::Clock>, &recorder.base)
        .await
        .expect("connect the source");
    recorder.forget();
    (app, recorder)
}

async fn mark(app: &TestApp, on: bool) {
    let ada = person(app, "ada").await;
    app.lists.set_whos_who(&ada, CONNECTOR, on).await.expect("ada marks the toolset");
}

async fn stored(app: &TestApp) -> Vec<ListEntry> {
    app.store.list_entries().await.unwrap()
}

fn entry<'e>(entries: &'e [ListEntry], list: &str, id: &str) -> &'e ListEntry {
    entries
        .iter()
        .find(|e| e.list == list && e.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no {list} {id} in {entries:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marking_a_toolset_needs_an_admin_in_a_session() {
    let (app, _recorder) = spawn_lists().await;
    let path = format!("/api/connectors/{CONNECTOR}/whos-who");

    let alice = app.sign_in("alice").await;
    let r = alice.post(app.url(&path)).json(&json!({"on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let b = body(r).await;
    assert_eq!(
        (b["error"].as_str(), b["message"].as_str()),
        (Some("not_allowed"), Some("Only an admin can mark a toolset as who's who"))
    );

    // An admin's API token is not the admin acting as themselves.
    let ada = app.sign_in("ada").await;
    let r = ada.post(app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = Client::new().post(app.url(&path)).bearer_auth(&token).json(&json!({"on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");
    assert!(app.store.whos_who_connectors().await.unwrap().is_empty(), "refusals change nothing");

    let r = ada.post(app.url("/api/connectors/999/whos-who")).json(&json!({"on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    let r = ada.post(app.url(&path)).json(&json!({"on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await, json!({"connector": CONNECTOR, "whos_who": true}));
    assert_eq!(app.store.whos_who_connectors().await.unwrap(), vec![CONNECTOR]);
    let audit = app.store.audit_log(50).await.unwrap();
    let ada_id = person(&app, "ada").await.id;
    assert!(
        audit.iter().any(|e| e.actor == Some(ada_id) && e.action.contains("whos_who")),
        "the mark is audited as ada's: {audit:?}"
    );

    // On the connector page, with JavaScript off: a form post, then the page says so.
    let page = format!("/company/connectors/{CONNECTOR}");
    let (_, html) = app.page(&ada, &page).await;
    assert!(plain(&html).contains("This toolset is marked as who's who."), "{}", plain(&html));
    let r = app.form_post(&ada, "/fn/set_whos_who", &[("id", "1"), ("on", "false")]).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    let (_, html) = app.page(&ada, &page).await;
    let text = plain(&html);
    assert!(text.contains("No longer who's who"), "{text}");
    assert!(text.contains("This toolset is not marked as who's who."), "{text}");
    assert!(text.contains("Mark as who's who"), "{text}");
    assert!(text.contains("list_territories"), "the reference lists are listed: {text}");
    assert!(app.store.whos_who_connectors().await.unwrap().is_empty());

    let r = app.form_post(&alice, "/fn/set_whos_who", &[("id", "1"), ("on", "true")]).await;
    assert!(r.status().is_redirection() || r.status().is_client_error(), "{}", r.status());
    assert!(app.store.whos_who_connectors().await.unwrap().is_empty(), "alice may not mark it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_fetch_keeps_only_structured_values_with_the_company_key_alone() {
    let (app, recorder) = spawn_lists().await;
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 0, "nothing is marked");
    assert!(recorder.received().is_empty());

    mark(&app, true).await;
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 3);
    let mut calls = recorder.calls();
    calls.sort();
    assert_eq!(calls, vec!["list_lead_sources", "list_team_members", "list_territories"]);
    for r in recorder.received() {
        assert_eq!(r.authorization.as_deref(), Some("Bearer acme-ats-company-key"), "{r:?}");
        assert_eq!(r.acting_for, None, "{r:?}");
    }

    let entries = stored(&app).await;
    let south = entry(&entries, "list_territories", "T-SOUTH");
    assert_eq!(south.source, "Acme ATS");
    assert!(south.names.contains(&"alice@acme.example".to_string()), "{south:?}");
    let value = |name: &str| south.values.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    assert_eq!(value("code"), Some("IN-S"));
    assert_eq!(value("name"), Some("South India"));
    assert_eq!(value("since"), Some("2024-04-01"));
    assert_eq!(value("note"), None, "the free-text note is not kept: {south:?}");
    let all = serde_json::to_string(&entries).unwrap();
    for outside in ["ignore their earlier", "partners@outside.example", "Handed over", &TERRITORY_NOTE[..40]] {
        assert!(!all.contains(outside), "{outside:?} was kept: {all}");
    }
    let member = entry(&entries, "list_team_members", "TM-101");
    assert!(member.values.iter().any(|(n, v)| n == "name" && v == "Alice Chen"), "{member:?}");

    // Once a day, across restarts of the check; the next local day fetches again.
    recorder.forget();
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 0);
    assert!(recorder.received().is_empty(), "{:?}", recorder.received());
    app.clock.advance(chrono::Duration::days(1));
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_joins_only_the_person_it_names_exactly() {
    let (app, _recorder) = spawn_lists().await;
    mark(&app, true).await;
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 3);

    let alice = person(&app, "alice").await;
    let ids = |entries: Vec<ListEntry>| {
        let mut ids: Vec<String> = entries.into_iter().filter_map(|e| e.id).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(app.lists.entries_for(&alice, &[]).await.unwrap()), vec!["LS-WEB", "T-SOUTH", "TM-101"]);
    let sam = person(&app, "sam").await;
    let for_sam = ids(app.lists.entries_for(&sam, &[]).await.unwrap());
    assert!(for_sam.contains(&"T-WEST".to_string()) && for_sam.contains(&"TM-102".to_string()), "{for_sam:?}");
    let bob = person(&app, "bob").await;
    assert_eq!(ids(app.lists.entries_for(&bob, &[]).await.unwrap()), vec!["TM-202"]);
    // An id given for the person names them too.
    let by_id = ids(app.lists.entries_for(&bob, &["LS-REF".to_string()]).await.unwrap());
    assert_eq!(by_id, vec!["LS-REF", "TM-202"]);

    // Someone whose email holds alice's, and one that differs by a letter, are not named.
    for email in ["malice@acme.example", "alice@acme.example.org", "alice@acme.exampel"] {
        let near = app
            .store
            .create_person(
                &NewPerson {
                    name: "Near Miss".into(),
                    email: email.into(),
                    password_hash: "x".into(),
                    is_admin: false,
                    main_team: None,
                },
                engine::store::Actor { person: None, at: chrono::Utc::now() },
            )
            .await
            .unwrap();
        assert_eq!(app.lists.entries_for(&near, &[]).await.unwrap(), vec![], "{email} is named by no entry");
    }

    // Unmarked, its lists speak for no one.
    mark(&app, false).await;
    assert_eq!(app.lists.entries_for(&alice, &[]).await.unwrap(), vec![]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_fetch_under_the_kill_switch_with_peoples_own_keys_or_the_acting_for_header() {
    let (app, recorder) = spawn_lists().await;
    let ada = person(&app, "ada").await;
    mark(&app, true).await;

    // Read from the store: the setup sheet would list the source's tools.
    let mut sheet = app.store.connector(CONNECTOR).await.unwrap().unwrap();
    sheet.killed = true;
    app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 0);
    assert!(!app.lists.refetch_for_unknown("T-NEW").await.unwrap());
    sheet.killed = false;
    app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();

    for mode in [KeyMode::OwnKeys, KeyMode::ActingFor] {
        app.memory.connectors.set_key_mode(&ada, CONNECTOR, mode, &[]).await.unwrap();
        assert_eq!(app.lists.fetch_daily().await.unwrap(), 0, "{mode:?}");
        assert!(!app.lists.refetch_for_unknown("T-NEW").await.unwrap(), "{mode:?}");
    }
    assert!(recorder.received().is_empty(), "the source received {:?}", recorder.received());
    assert!(stored(&app).await.is_empty());

    // One list set to people's own keys is left out; the others read with the company key.
    app.memory
        .connectors
        .set_key_mode(&ada, CONNECTOR, KeyMode::Company, &["list_territories".to_string()])
        .await
        .unwrap();
    assert_eq!(app.lists.fetch_daily().await.unwrap(), 2);
    assert!(!recorder.calls().contains(&"list_territories".to_string()), "{:?}", recorder.calls());
    assert!(recorder.received().iter().all(|r| r.acting_for.is_none()));
    assert!(stored(&app).await.iter().all(|e| e.list != "list_territories"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fetch_counts_in_the_hourly_limit_and_an_unknown_id_refetches_once_an_hour() {
    let (app, recorder) = spawn_lists().await;
    let ada = person(&app, "ada").await;
    mark(&app, true).await;
    // Past the hour of the demo's first reads, with a limit of one read an hour.
    app.clock.advance(chrono::Duration::minutes(61));
    let mut sheet = app.memory.connectors.sheet(&ada, CONNECTOR).await.unwrap().connector;
    sheet.hourly_limit = 1;
    app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();
    recorder.forget();

    assert_eq!(app.lists.fetch_daily().await.unwrap(), 1, "a limit of 1 allows one fetch");
    assert_eq!(recorder.calls().len(), 1, "{:?}", recorder.calls());
    assert!(!app.lists.refetch_for_unknown("T-NEW").await.unwrap(), "the limit is spent");
    assert_eq!(recorder.calls().len(), 1);

    // The fetch took the read: a person's refresh finds the limit spent too.
    let alice = person(&app, "alice").await;
    let card = crate::cards::card_of(&app, &alice, "L-1001").await.unwrap();
    assert_eq!(
        app.memory.reads.refresh(&alice, card).await.unwrap(),
        engine::cards::service::RefreshOutcome::NotChecked("Acme ATS's hourly limit of 1 reads is spent".into())
    );

    // A new hour and room to read: a run meeting an unknown id fetches the lists again, once
    // per id and hour.
    app.clock.advance(chrono::Duration::minutes(61));
    sheet.hourly_limit = 600;
    app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();
    assert!(app.lists.refetch_for_unknown("T-NEW").await.unwrap());
    assert_eq!(recorder.calls().len(), 4);
    assert!(!app.lists.refetch_for_unknown("T-NEW").await.unwrap(), "T-NEW was fetched for this hour already");
    assert_eq!(recorder.calls().len(), 4);
    assert!(app.lists.refetch_for_unknown("LS-NEW").await.unwrap(), "another id");
    assert_eq!(recorder.calls().len(), 7);
    assert!(recorder.received().iter().all(|r| r.authorization.as_deref() == Some("Bearer acme-ats-company-key")));
    let refused = app.lists.refetch_for_unknown("  ").await.unwrap_err();
    assert_eq!(refused.to_string(), "Give the id the lists do not name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_database_fetch_once() {
    let (app, recorder) = spawn_lists().await;
    mark(&app, true).await;
    let other = spawn_app_on(&app.database_url).await;
    other.clock.set(engine::Clock::now(app.clock.as_ref()));

    let (a, b) = tokio::join!(app.lists.fetch_daily(), other.lists.fetch_daily());
    let mut fetched = [a.unwrap(), b.unwrap()];
    fetched.sort();
    assert_eq!(fetched, [0, 3]);
    assert_eq!(recorder.calls().len(), 3, "{:?}", recorder.calls());
    assert_eq!(recorder.received().iter().filter(|r| r.method == "GET").count(), 1);

    let (a, b) = tokio::join!(app.lists.refetch_for_unknown("T-NEW"), other.lists.refetch_for_unknown("T-NEW"));
    assert!(a.unwrap() ^ b.unwrap(), "exactly one server refetches");
    assert_eq!(recorder.calls().len(), 6, "{:?}", recorder.calls());
}
