//! Person memory against the running server and a real Acme ATS over HTTP: refresh, removal,
//! a source that is down, the key-mode switch, Keep cards, the kill switch and a field left out. The
//! forgetting and leaving cases are in `cards_forgetting.rs`, setting up and reading in `cards_setup.rs`.

use crate::helpers::*;
use chrono::{DateTime, Utc};
use demo::acme_ats::AtsConfig;
use engine::cards::service::RefreshOutcome;
use engine::cards::source::KeyMode;
use engine::org::Person;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

pub(crate) struct Cards {
    pub(crate) app: TestApp,
    pub(crate) ats: String,
    pub(crate) ats_task: tokio::task::JoinHandle<std::io::Result<()>>,
    pub(crate) connector: i64,
}

pub(crate) async fn spawn_cards() -> Cards {
    spawn_cards_with(crate::model_server::no_models()).await
}

pub(crate) async fn spawn_cards_with(models: server::llm::ModelSettings) -> Cards {
    spawn_cards_configured(move |s| s.models = models).await
}

/// As `spawn_cards_with`, with the settings changed first.
pub(crate) async fn spawn_cards_configured(configure: impl FnOnce(&mut server::settings::Settings)) -> Cards {
    let app = spawn_app_with(configure).await;
    let (ats, ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    demo::cards::seed(app.store.as_ref(), &app.memory, app.clock.clone() as std::sync::Arc<dyn engine::Clock>, &ats)
        .await
        .expect("connect the source");
    Cards { app, ats, ats_task, connector: 1 }
}

pub(crate) async fn person(app: &TestApp, login: &str) -> Person {
    let (p, _) = app.store.credentials(&format!("{login}@acme.example")).await.unwrap().unwrap();
    p
}

pub(crate) async fn card_of(app: &TestApp, who: &Person, record: &str) -> Option<i64> {
    app.memory.mine.my_cards(who).await.unwrap().into_iter().find(|c| c.record_id == record).map(|c| c.card)
}

pub(crate) async fn admin(ats: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> StatusCode {
    let mut req = Client::new().request(method, format!("{ats}{path}")).header("X-Admin-Key", "acme-ats-admin");
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.unwrap().status()
}

pub(crate) async fn lead(ats: &str, id: &str) -> Value {
    record(ats, "lead", id).await
}

/// A record as Acme ATS holds it now, read with the company key: a `lead`, `ticket` or `contact`.
pub(crate) async fn record(ats: &str, kind: &str, id: &str) -> Value {
    let r = Client::new()
        .post(format!("{ats}/tools/get_{kind}"))
        .bearer_auth("acme-ats-company-key")
        .json(&json!({"arguments": {"id": id}}))
        .send()
        .await
        .unwrap();
    r.json::<Value>().await.unwrap()["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_sees_a_change_a_removal_and_a_source_that_is_down() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let l2 = card_of(&c.app, &alice, "L-1002").await.expect("L-1002 is kept for Alice");
    assert_eq!(c.app.memory.reads.refresh(&alice, l2).await.unwrap(), RefreshOutcome::NoChange);

    let mut rec = lead(&c.ats, "L-1002").await;
    let before = rec["stage"].as_str().unwrap().to_string();
    rec["stage"] = json!("Proposal");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    // Through the browser's form, as a person presses Refresh.
    let browser = c.app.sign_in("alice").await;
    let r = c.app.form_post(&browser, "/fn/refresh_card", &[("id", &l2.to_string()), ("record", "lead L-1002")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains(&format!("lead L-1002: changed: stage ({before} → Proposal)")), "the notice names the field");
    assert!(html.contains("open work"), "a Proposal is an open deal");

    assert_eq!(admin(&c.ats, reqwest::Method::DELETE, "/admin/leads/L-1002", None).await, StatusCode::NO_CONTENT);
    assert_eq!(c.app.memory.reads.refresh(&alice, l2).await.unwrap(), RefreshOutcome::Gone("Acme ATS".into()));
    assert!(card_of(&c.app, &alice, "L-1002").await.is_none(), "gone at the source, gone here");
    let removed = audited(&c.app, "card.remove").await;
    assert!(removed.iter().any(|e| e.subject == format!("card:{l2}") && e.detail == "gone at Acme ATS"), "{removed:?}");

    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.ats_task.abort();
    let _ = c.ats_task.await;
    match c.app.memory.reads.refresh(&alice, l1).await.unwrap() {
        RefreshOutcome::NotChecked(why) => {
            assert!(why.starts_with("Acme ATS: the source could not be reached"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some(), "a source that is down never removes anything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_mode_switch_hides_then_removes_company_key_cards() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let sue = person(&c.app, "sue").await;
    let ada = person(&c.app, "ada").await;
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some());
    assert!(card_of(&c.app, &sue, "T-4411").await.is_some());

    // Only the lead tools move to people's own keys: lead cards hide, tickets stay.
    let lead_tools: Vec<String> = ["list_leads", "get_lead", "search_leads"].iter().map(|s| s.to_string()).collect();
    let removed = c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::Company, &lead_tools).await.unwrap();
    assert_eq!(removed, 0, "the company key is still in use for tickets");
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none(), "the field is no longer shown");
    assert!(card_of(&c.app, &sue, "T-4411").await.is_some());
    // Refresh of a company-key card that would now need another key is not checked.
    let (kept, _) = c.app.store.kept(alice.id).await.map(|k| (k.len(), ())).unwrap();
    assert!(kept > 0, "hidden, not removed");

    // Back to the company key, the cards show again: nothing was lost.
    c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::Company, &[]).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some());

    // Every tool to the acting-for header: no tool reads with the company key, so its cards go.
    let removed = c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    assert!(removed >= 3, "{removed}");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (0, 0));
    let alice_denied =
        c.app.memory.connectors.set_key_mode(&alice, c.connector, KeyMode::Company, &[]).await.unwrap_err();
    assert_eq!(alice_denied.to_string(), "Only an admin can change a connector");

    // Read again as Alice with the acting-for header: the card is hers alone.
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").expect("Sales has it");
    assert!(c.app.memory.prepare.run_query(&alice, open_deals).await.unwrap() >= 1);
    let sam = person(&c.app, "sam").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    assert!(c.app.memory.mine.my_cards(&sam).await.unwrap().iter().all(|c| c.card != card));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_cards_off_removes_the_connectors_cards_at_once() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let ada = person(&c.app, "ada").await;
    assert!(c.app.store.counts(alice.id).await.unwrap().0 > 0);
    let removed = c.app.memory.connectors.set_keep_cards(&ada, c.connector, false).await.unwrap();
    assert!(removed >= 4, "{removed}");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (0, 0));
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    assert_eq!(c.app.memory.prepare.run_query(&alice, &q[0]).await.unwrap(), 0, "nothing is kept while it is off");
}

pub(crate) fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

pub(crate) async fn ats_calls(ats: &str) -> i64 {
    let r = Client::new().get(format!("{ats}/admin/calls")).header("X-Admin-Key", "acme-ats-admin").send().await;
    r.unwrap().json::<Value>().await.unwrap()["tool_calls"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_goes_through_the_kill_switch_and_the_hourly_limit() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let ada = person(&c.app, "ada").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    let mut sheet = c.app.memory.connectors.sheet(&ada, c.connector).await.unwrap().connector;
    sheet.killed = true;
    c.app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();
    let before = ats_calls(&c.ats).await;
    assert_eq!(
        c.app.memory.reads.refresh(&alice, card).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS is switched off".into())
    );
    assert_eq!(ats_calls(&c.ats).await, before, "no call under the kill switch");
    sheet.killed = false;
    sheet.hourly_limit = 1;
    c.app.memory.connectors.save_settings(&ada, &sheet).await.unwrap();
    // The demo's first reads used this hour already.
    assert_eq!(
        c.app.memory.reads.refresh(&alice, card).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS's hourly limit of 1 reads is spent".into())
    );
    c.app.clock.advance(chrono::Duration::minutes(61));
    assert_eq!(c.app.memory.reads.refresh(&alice, card).await.unwrap(), RefreshOutcome::NoChange);

    // A run's selection sees the same decision: an agent not cleared for the label gets nothing.
    let sel = c.app.memory.mine.select_for(&alice, "What stage is Nimbus Logistics at?", None).await.unwrap();
    assert!(sel.cards.iter().any(|s| s.record_id == "L-1001"));
    let uncleared = engine::cards::access::RunningAgent {
        holds_toolsets: vec![c.connector],
        cleared_for: engine::cards::access::DataLabel::Public,
    };
    let sel =
        c.app.memory.mine.select_for(&alice, "What stage is Nimbus Logistics at?", Some(&uncleared)).await.unwrap();
    assert!(sel.cards.is_empty());
}

pub(crate) async fn counts(app: &TestApp, who: &Person) -> (u32, u32) {
    app.store.counts(who.id).await.unwrap()
}

pub(crate) async fn audited(app: &TestApp, action: &str) -> Vec<engine::org::AuditEntry> {
    app.store.audit_log(500).await.unwrap().into_iter().filter(|e| e.action == action).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_the_source_forbids_is_not_checked_and_the_use_goes() {
    let c = spawn_cards().await;
    let (alice, ada) = (person(&c.app, "alice").await, person(&c.app, "ada").await);
    // Read as each person, so the source decides what each may see.
    c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    for query in &q {
        assert!(c.app.memory.prepare.run_query(&alice, query).await.unwrap() >= 1, "{}", query.label);
    }
    let l1 = card_of(&c.app, &alice, "L-1001").await.expect("kept as Alice");
    let l2 = card_of(&c.app, &alice, "L-1002").await.expect("kept as Alice");
    c.app.memory.reads.forget(&alice, l2).await.unwrap();

    // The leads move to Sam: they still exist, but Alice may no longer read them.
    let mut rec = lead(&c.ats, "L-1002").await;
    rec["owner"] = json!("sam@acme.example");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    let refused = c.app.memory.reads.pin_back(&alice, c.connector, "lead", "L-1002").await.unwrap_err();
    assert_eq!(refused.to_string(), "Not pinned: Acme ATS refused the read (forbidden); it stays forgotten");
    let mut rec = lead(&c.ats, "L-1001").await;
    rec["owner"] = json!("sam@acme.example");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1001", Some(rec)).await.is_success());
    let browser = c.app.sign_in("alice").await;
    let r = c.app.form_post(&browser, "/fn/refresh_card", &[("id", &l1.to_string()), ("record", "lead L-1001")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains("lead L-1001: not checked: Acme ATS refused the read (forbidden)"), "{}", plain(&html));
    assert!(!html.contains("no longer at"), "the record still exists at the source");

    assert!(card_of(&c.app, &alice, "L-1001").await.is_none(), "her place on the card goes");
    assert_eq!(lead(&c.ats, "L-1001").await["id"], "L-1001");
    let removed = audited(&c.app, "card_use.remove").await;
    assert!(removed.iter().any(|e| e.detail.ends_with("Acme ATS refused their read")), "{removed:?}");
}

/// Acme ATS behind a stand-in that can leave one field out of every record it answers, as a
/// source does when a field is hidden from the caller or its answer is partial.
pub(crate) struct Partial {
    pub(crate) base: String,
    leave_out: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Partial {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Partial {
    pub(crate) fn leave_out(&self, field: Option<&str>) {
        *self.leave_out.lock().unwrap() = field.map(String::from);
    }
}

pub(crate) async fn spawn_partial(ats: &str) -> Partial {
    use axum::extract::{Path, State};
    use axum::http::HeaderMap;
    use axum::response::IntoResponse;
    type Shared = (String, std::sync::Arc<std::sync::Mutex<Option<String>>>);

    async fn forward(state: &Shared, req: reqwest::RequestBuilder, headers: &HeaderMap) -> axum::response::Response {
        let mut req = req;
        for h in ["authorization", "x-acting-for"] {
            if let Some(v) = headers.get(h) {
                req = req.header(h, v.as_bytes());
            }
        }
        let resp = req.send().await.unwrap();
        let status = axum::http::StatusCode::from_u16(resp.status().as_u16()).unwrap();
        let mut body: Value = resp.json().await.unwrap_or(Value::Null);
        if let Some(field) = state.1.lock().unwrap().clone() {
            let result = &mut body["result"];
            let mut records: Vec<&mut Value> = match result.get_mut("records").and_then(Value::as_array_mut) {
                Some(list) => list.iter_mut().collect(),
                None => vec![result],
            };
            for r in records.iter_mut() {
                if let Some(o) = r.as_object_mut() {
                    o.remove(&field);
                }
            }
        }
        (status, axum::Json(body)).into_response()
    }

    let shared: Shared = (ats.to_string(), Default::default());
    let router = axum::Router::new()
        .route(
            "/tools",
            axum::routing::get(|State(s): State<Shared>, headers: HeaderMap| async move {
                forward(&s, Client::new().get(format!("{}/tools", s.0)), &headers).await
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
                    forward(&s, req, &headers).await
                },
            ),
        )
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    Partial { base, leave_out: shared.1, task }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_the_source_leaves_out_is_unknown_never_a_change() {
    let app = spawn_app().await;
    let (ats, _ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    let partial = spawn_partial(&ats).await;
    demo::cards::seed(&*app.store, &app.memory, app.clock.clone() as std::sync::Arc<dyn engine::Clock>, &partial.base)
        .await
        .expect("connect the source");
    let alice = person(&app, "alice").await;
    let l2 = card_of(&app, &alice, "L-1002").await.expect("L-1002 is kept for Alice");
    let mut rec = lead(&ats, "L-1002").await;
    let stage = rec["stage"].as_str().unwrap().to_string();
    let value = rec["value_inr"].to_string();

    // The source leaves the stage out of its answer, and the value changed meanwhile.
    partial.leave_out(Some("stage"));
    rec["value_inr"] = json!(777000);
    assert!(admin(&ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    let browser = app.sign_in("alice").await;
    let r = app.form_post(&browser, "/fn/refresh_card", &[("id", &l2.to_string()), ("record", "lead L-1002")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&browser, "/profile/memory").await;
    let text = plain(&html);
    assert!(text.contains(&format!("lead L-1002: changed: value_inr ({value} → 777000)")), "{text}");
    assert!(!text.contains("stage ("), "no change line for a field the source did not return: {text}");
    assert!(
        text.contains(&format!("Stage: {stage} (unknown: not returned by Acme ATS)")),
        "the stored value stays, marked unknown: {text}"
    );
    let card = app.store.card(l2).await.unwrap().unwrap();
    assert!(card.fields.iter().any(|f| f.name == "stage" && f.value == stage), "{:?}", card.fields);
    let (_, cards) = app.get_json(&browser, "/api/memory/cards").await;
    let shown = cards.as_array().unwrap().iter().find(|c| c["record_id"] == "L-1002").unwrap().clone();
    assert_eq!(shown["not_returned"], json!(["stage"]), "{shown}");

    // A later read that returns the field clears the mark, and an unchanged value is no change.
    partial.leave_out(None);
    assert_eq!(app.memory.reads.refresh(&alice, l2).await.unwrap(), RefreshOutcome::NoChange);
    let (_, html) = app.page(&browser, "/profile/memory").await;
    assert!(!plain(&html).contains("not returned by"), "{}", plain(&html));
    let (_, cards) = app.get_json(&browser, "/api/memory/cards").await;
    let shown = cards.as_array().unwrap().iter().find(|c| c["record_id"] == "L-1002").unwrap().clone();
    assert_eq!(shown["not_returned"], json!([]), "{shown}");
}
