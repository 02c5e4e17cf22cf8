//! Person memory against the running server and a real Acme ATS over HTTP: refresh, removal,
//! a source that is down, the key-mode switch, Keep cards, Forget, Prepare my day and who may read.

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
    ats_task: tokio::task::JoinHandle<std::io::Result<()>>,
    pub(crate) connector: i64,
}

pub(crate) async fn spawn_cards() -> Cards {
    spawn_cards_with(crate::model_server::no_models()).await
}

pub(crate) async fn spawn_cards_with(models: server::llm::ModelSettings) -> Cards {
    let app = spawn_app_with_models(models).await;
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
    app.memory.my_cards(who).await.unwrap().into_iter().find(|c| c.record_id == record).map(|c| c.card)
}

async fn admin(ats: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> StatusCode {
    let mut req = Client::new().request(method, format!("{ats}{path}")).header("X-Admin-Key", "acme-ats-admin");
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.unwrap().status()
}

async fn lead(ats: &str, id: &str) -> Value {
    let r = Client::new()
        .post(format!("{ats}/tools/get_lead"))
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
    assert_eq!(c.app.memory.refresh(&alice, l2).await.unwrap(), RefreshOutcome::NoChange);

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
    assert_eq!(c.app.memory.refresh(&alice, l2).await.unwrap(), RefreshOutcome::Gone("Acme ATS".into()));
    assert!(card_of(&c.app, &alice, "L-1002").await.is_none(), "gone at the source, gone here");
    let removed = audited(&c.app, "card.remove").await;
    assert!(removed.iter().any(|e| e.subject == format!("card:{l2}") && e.detail == "gone at Acme ATS"), "{removed:?}");

    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.ats_task.abort();
    let _ = c.ats_task.await;
    match c.app.memory.refresh(&alice, l1).await.unwrap() {
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
    let removed = c.app.memory.set_key_mode(&ada, c.connector, KeyMode::Company, &lead_tools).await.unwrap();
    assert_eq!(removed, 0, "the company key is still in use for tickets");
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none(), "the field is no longer shown");
    assert!(card_of(&c.app, &sue, "T-4411").await.is_some());
    // Refresh of a company-key card that would now need another key is not checked.
    let (kept, _) = c.app.store.kept(alice.id).await.map(|k| (k.len(), ())).unwrap();
    assert!(kept > 0, "hidden, not removed");

    // Back to the company key, the cards show again: nothing was lost.
    c.app.memory.set_key_mode(&ada, c.connector, KeyMode::Company, &[]).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some());

    // Every tool to the acting-for header: no tool reads with the company key, so its cards go.
    let removed = c.app.memory.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    assert!(removed >= 3, "{removed}");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (0, 0));
    let alice_denied = c.app.memory.set_key_mode(&alice, c.connector, KeyMode::Company, &[]).await.unwrap_err();
    assert_eq!(alice_denied.to_string(), "Only an admin can change a connector");

    // Read again as Alice with the acting-for header: the card is hers alone.
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").expect("Sales has it");
    assert!(c.app.memory.run_query(&alice, open_deals).await.unwrap() >= 1);
    let sam = person(&c.app, "sam").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    assert!(c.app.memory.my_cards(&sam).await.unwrap().iter().all(|c| c.card != card));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_cards_off_removes_the_connectors_cards_at_once() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let ada = person(&c.app, "ada").await;
    assert!(c.app.store.counts(alice.id).await.unwrap().0 > 0);
    let removed = c.app.memory.set_keep_cards(&ada, c.connector, false).await.unwrap();
    assert!(removed >= 4, "{removed}");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (0, 0));
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    assert_eq!(c.app.memory.run_query(&alice, &q[0]).await.unwrap(), 0, "nothing is kept while it is off");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_record_is_not_kept_again_for_30_days() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.app.memory.forget(&alice, card).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none());
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    c.app.memory.run_query(&alice, open_deals).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none(), "read again within 30 days: not kept");
    c.app.clock.advance(chrono::Duration::days(31));
    c.app.memory.run_query(&alice, open_deals).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some(), "after 30 days it may be kept again");
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepare_my_day_runs_at_the_local_time_across_a_dst_change() {
    let c = spawn_cards().await;
    let sam = person(&c.app, "sam").await;
    c.app.memory.set_time_zone(&sam, "Europe/London").await.unwrap();
    c.app.memory.set_prepare(&sam, true, "08:30").await.unwrap();
    let (_, line) = c.app.memory.prepare_status(&sam).await.unwrap();
    assert_eq!(line, "On: at 08:30 your time (Europe/London)");
    let calls = || async {
        let r =
            Client::new().get(format!("{}/admin/calls", c.ats)).header("X-Admin-Key", "acme-ats-admin").send().await;
        r.unwrap().json::<Value>().await.unwrap()["tool_calls"].as_i64().unwrap()
    };
    let ran = |v: Vec<(engine::org::PersonId, usize)>| v.iter().any(|(p, _)| *p == sam.id);

    // Saturday 28 March: GMT, so 08:30 is 08:30 UTC.
    c.app.clock.set(at("2026-03-28T08:29:00Z"));
    assert!(!ran(c.app.memory.prepare_due().await.unwrap()));
    c.app.clock.set(at("2026-03-28T08:31:00Z"));
    let before = calls().await;
    assert!(ran(c.app.memory.prepare_due().await.unwrap()));
    assert_eq!(calls().await - before, 2, "Sales has two my-work queries");
    assert!(!ran(c.app.memory.prepare_due().await.unwrap()), "once per local day");

    // Sunday 29 March: the clocks went forward, so 08:30 is 07:30 UTC.
    c.app.clock.set(at("2026-03-29T07:29:00Z"));
    assert!(!ran(c.app.memory.prepare_due().await.unwrap()));
    c.app.clock.set(at("2026-03-29T07:31:00Z"));
    assert!(ran(c.app.memory.prepare_due().await.unwrap()));

    // Monday, more than two hours late: it waits for Tuesday.
    c.app.clock.set(at("2026-03-30T09:31:00Z"));
    assert!(!ran(c.app.memory.prepare_due().await.unwrap()));

    // Off means no call is made for that person.
    c.app.memory.set_prepare(&sam, false, "08:30").await.unwrap();
    c.app.clock.set(at("2026-03-31T07:31:00Z"));
    let before = calls().await;
    c.app.memory.prepare_due().await.unwrap();
    assert_eq!(calls().await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_are_for_their_person_in_a_session_and_an_admin_sees_counts_only() {
    let c = spawn_cards().await;
    let alice = c.app.sign_in("alice").await;
    let r = alice.post(c.app.url("/api/tokens")).json(&json!({"name": "cli"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = Client::new().get(c.app.url("/api/memory/cards")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");
    let (s, cards) = c.app.get_json(&alice, "/api/memory/cards").await;
    assert_eq!(s, StatusCode::OK);
    assert!(cards.as_array().unwrap().iter().any(|c| c["record_id"] == "L-1001"));

    let ada = c.app.sign_in("ada").await;
    let alice_p = person(&c.app, "alice").await;
    let (_, html) = c.app.page(&ada, &format!("/company/people?person={}", alice_p.id.0)).await;
    assert!(
        html.contains("Memory: 2 records kept (1 pinned), 0 lessons in use. What they say is theirs alone."),
        "counts"
    );
    assert!(!html.contains("Nimbus Logistics"), "never what it says");
    let (_, mine) = c.app.page(&ada, "/profile/memory").await;
    assert!(!mine.contains("Nimbus Logistics"), "Ada's own page holds only her cards");

    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "alice".into(), person: None };
    server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("L-1001 lead · Acme ATS · read") && text.contains("(pinned)"), "{text}");
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "ada".into(), person: Some("alice".into()) };
    server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "Alice Chen has 2 cards kept (1 pinned) and 2 lists. What they say is theirs alone.\n"
    );
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "sam".into(), person: Some("alice".into()) };
    let refused = server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap_err();
    assert_eq!(refused, "Only an admin sees another person's counts");
}

async fn ats_calls(ats: &str) -> i64 {
    let r = Client::new().get(format!("{ats}/admin/calls")).header("X-Admin-Key", "acme-ats-admin").send().await;
    r.unwrap().json::<Value>().await.unwrap()["tool_calls"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_sheet_drafts_shapes_once_in_ten_minutes_and_checks_queries() {
    let c = spawn_cards().await;
    let ada = c.app.sign_in("ada").await;
    let (s, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("Some systems&#x27; terms do not allow keeping copies, for example Slack&#x27;s API terms")
            || html.contains("Some systems' terms do not allow keeping copies, for example Slack's API terms")
    );
    assert!(html.contains("search_contacts") && html.contains("What it returns"));
    let (_, bob_page) = c.app.page(&c.app.sign_in("bob").await, "/company/connectors/1").await;
    assert!(bob_page.contains("Only an admin can change a connector"));

    let tick =
        c.app.form_post(&ada, "/fn/tick_tool", &[("id", "1"), ("tool", "search_contacts"), ("on", "true")]).await;
    assert!(tick.status().is_redirection());
    let before = ats_calls(&c.ats).await;
    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    let made = ats_calls(&c.ats).await - before;
    assert_eq!(made, 8, "one call per ticked read tool");
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Drafted 8 shapes from one sample each"), "the notice says so");
    assert!(html.contains("notes: free text"), "lead notes are drafted as free text");

    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    assert_eq!(ats_calls(&c.ats).await - before, 8, "asked again within 10 minutes: no call");
    c.app.clock.advance(chrono::Duration::minutes(11));
    c.app.form_post(&ada, "/fn/draft_shapes", &[("id", "1")]).await;
    assert_eq!(ats_calls(&c.ats).await - before, 16, "after 10 minutes it samples again");

    let r = c
        .app
        .form_post(
            &ada,
            "/fn/confirm_shape",
            &[
                ("id", "1"),
                ("tool", "search_contacts"),
                ("kind", "contact"),
                ("id_field", "id"),
                ("version_field", "updated_at"),
                ("get_tool", "get_contact"),
                ("fields", "name: structured\nemail: structured\ncompany: structured"),
            ],
        )
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Confirmed what search_contacts returns: cards of kind contact"));

    let q = |args: &'static str, tool: &'static str| {
        [("id", "1"), ("role", "4"), ("tool", tool), ("arguments", args), ("label", "My contacts")]
    };
    c.app.form_post(&ada, "/fn/add_my_work_query", &q("owner {me}", "list_leads")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("The arguments must be a JSON object"), "checked when saved");
    c.app.form_post(&ada, "/fn/add_my_work_query", &q(r#"{"query": "{me}"}"#, "update_lead")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("update_lead is not a ticked read tool of Acme ATS"));
    c.app.form_post(&ada, "/fn/add_my_work_query", &q(r#"{"query": "{me}"}"#, "search_contacts")).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("Added “My contacts”"), "{}", html.len());

    // Keep cards off from the sheet removes the cards at once and says how many.
    let alice = person(&c.app, "alice").await;
    let fields = [
        ("id", "1"),
        ("key_mode", "company"),
        ("label", "internal"),
        ("structured_soft", "60"),
        ("structured_hard", "20160"),
        ("free_text_soft", "30"),
        ("free_text_hard", "10080"),
        ("hourly_limit", "600"),
    ];
    c.app.form_post(&ada, "/fn/save_connector", &fields).await;
    let (_, html) = c.app.page(&ada, "/company/connectors/1").await;
    assert!(html.contains("cards were removed at once"), "the notice counts them");
    assert_eq!(c.app.memory.my_cards(&alice).await.unwrap().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_a_connector_and_a_person_gives_their_own_key() {
    let c = spawn_cards().await;
    let ada = c.app.sign_in("ada").await;
    let add = |key: &'static str| {
        [("name", "Second ATS"), ("base_url", ""), ("company_key", key)].map(|(k, v)| (k, v.to_string()))
    };
    let mut wrong = add("not-the-key");
    wrong[1].1 = c.ats.clone();
    let fields: Vec<(&str, &str)> = wrong.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = c.app.form_post(&ada, "/fn/create_connector", &fields).await;
    assert_eq!(r.headers()["location"], "/company/connectors");
    let (_, html) = c.app.page(&ada, "/company/connectors").await;
    assert!(html.contains("refused that key; nothing was saved"), "the key is checked");
    let mut right = add("acme-ats-company-key");
    right[1].1 = c.ats.clone();
    let fields: Vec<(&str, &str)> = right.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = c.app.form_post(&ada, "/fn/create_connector", &fields).await;
    assert_eq!(r.headers()["location"], "/company/connectors/2");
    let (_, html) = c.app.page(&ada, "/company/connectors/2").await;
    assert!(html.contains("Added Second ATS; tick its read tools below"));
    assert!(!html.contains("acme-ats-company-key"), "the key is never shown again");

    // Lead tools on people's own keys: the page asks for Alice's, and keeps it unseen.
    let ada_p = person(&c.app, "ada").await;
    let lead_tools: Vec<String> = ["list_leads", "get_lead"].iter().map(|s| s.to_string()).collect();
    c.app.memory.set_key_mode(&ada_p, c.connector, KeyMode::Company, &lead_tools).await.unwrap();
    let alice = c.app.sign_in("alice").await;
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Acme ATS (given; not shown again)"), "the demo gave Alice's key");
    c.app.form_post(&alice, "/fn/set_own_key", &[("connector", "1"), ("key", "acme-ats-key-alice")]).await;
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Saved your key; it is not shown again") && !html.contains("acme-ats-key-alice"));
    let alice_p = person(&c.app, "alice").await;
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    assert!(c.app.memory.run_query(&alice_p, open_deals).await.unwrap() >= 1, "read with her own key");
    let own = c.app.memory.my_cards(&alice_p).await.unwrap();
    assert!(own.iter().any(|c| c.record_id == "L-1001"), "her own-key card reaches her own page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forgetting_job_runs_once_a_day_from_two_in_the_companys_zone() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let (kept, pinned) = c.app.store.counts(alice.id).await.unwrap();
    assert_eq!((kept, pinned), (2, 1));
    // Fifteen days on (past the 14-day hard limit), at 01:59 in Kolkata: not yet.
    let base = engine::Clock::now(c.app.clock.as_ref()).date_naive() + chrono::Duration::days(15);
    c.app.clock.set(base.and_hms_opt(20, 29, 0).unwrap().and_utc());
    assert_eq!(c.app.memory.forgetting_due().await.unwrap(), None);
    c.app.clock.set(base.and_hms_opt(20, 31, 0).unwrap().and_utc());
    let (uses, cards) = c.app.memory.forgetting_due().await.unwrap().expect("due at 02:01");
    assert!(uses >= 1 && cards >= 1, "{uses} uses, {cards} cards");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (1, 1), "the pinned card stays");
    assert!(audited(&c.app, "card_use.remove").await.iter().any(|e| e.detail.ends_with("hard limit")));
    assert_eq!(audited(&c.app, "card.remove_unkept").await.len(), 1, "what went is audited");
    assert_eq!(c.app.memory.forgetting_due().await.unwrap(), None, "once a day");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_goes_through_the_kill_switch_and_the_hourly_limit() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let ada = person(&c.app, "ada").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    let mut sheet = c.app.memory.sheet(&ada, c.connector).await.unwrap().connector;
    sheet.killed = true;
    c.app.memory.save_settings(&ada, &sheet).await.unwrap();
    let before = ats_calls(&c.ats).await;
    assert_eq!(
        c.app.memory.refresh(&alice, card).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS is switched off".into())
    );
    assert_eq!(ats_calls(&c.ats).await, before, "no call under the kill switch");
    sheet.killed = false;
    sheet.hourly_limit = 1;
    c.app.memory.save_settings(&ada, &sheet).await.unwrap();
    // The demo's first reads used this hour already.
    assert_eq!(
        c.app.memory.refresh(&alice, card).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS's hourly limit of 1 reads is spent".into())
    );
    c.app.clock.advance(chrono::Duration::minutes(61));
    assert_eq!(c.app.memory.refresh(&alice, card).await.unwrap(), RefreshOutcome::NoChange);

    // A run's selection sees the same decision: an agent not cleared for the label gets nothing.
    let sel = c.app.memory.select_for(&alice, "What stage is Nimbus Logistics at?", None).await.unwrap();
    assert!(sel.cards.iter().any(|s| s.record_id == "L-1001"));
    let uncleared = engine::cards::access::RunningAgent {
        holds_toolsets: vec![c.connector],
        cleared_for: engine::cards::access::DataLabel::Public,
    };
    let sel = c.app.memory.select_for(&alice, "What stage is Nimbus Logistics at?", Some(&uncleared)).await.unwrap();
    assert!(sel.cards.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_given_only_the_cards_their_toolsets_and_clearance_allow() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let dir = c.app.org.directory().await.unwrap();
    let agent = |name: &str| dir.agents.iter().find(|a| a.name == name).unwrap().id;
    let sales = c.app.memory.running_agent(agent("Sales Assistant")).await.unwrap();
    let support = c.app.memory.running_agent(agent("Support Agent")).await.unwrap();
    let q = "What stage is Nimbus Logistics at?";
    assert!(!c.app.memory.select_for(&alice, q, Some(&sales)).await.unwrap().cards.is_empty());
    assert!(c.app.memory.select_for(&alice, q, Some(&support)).await.unwrap().cards.is_empty(), "cleared for public");

    let ada = c.app.sign_in("ada").await;
    let (_, html) = c.app.page(&ada, "/company/agents").await;
    assert!(html.contains("Holds Acme ATS · cleared for internal data"));
    assert!(html.contains("Holds Acme ATS · cleared for public data"));
    let bob = person(&c.app, "bob").await;
    let refused = c.app.org.set_agent_toolsets(&bob, agent("Sales Assistant"), &[1]).await.unwrap_err();
    assert_eq!(refused.to_string(), "Only Sales Assistant's owner or an admin can change its toolsets");
    let refused = c.app.org.set_agent_clearance(&bob, agent("Sales Assistant"), "personal").await.unwrap_err();
    assert_eq!(refused.to_string(), "Only an admin can change an agent's clearance");

    // Prepare my day's form: a zone that does not exist changes nothing.
    let sam = c.app.sign_in("sam").await;
    c.app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Mars/Olympus")])
        .await;
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("Mars/Olympus is not a time zone name, such as Asia/Kolkata"));
    assert!(html.contains("Off. When on, it runs at 08:30 your time (Asia/Kolkata)."));
    c.app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Europe/London")])
        .await;
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("Prepare my day saved. On: at 07:45 your time (Europe/London)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shapes_are_drafted_by_the_model_when_there_is_one_else_by_plain_rules() {
    use crate::model_server::{ModelServer, Script};
    let model = ModelServer::start().await;
    let shape = json!({"kind": "lead", "id_field": "id", "version_field": "updated_at",
        "fields": [{"name": "company", "free_text": false}, {"name": "stage", "free_text": false}]});
    model.script([Script::Reply(shape.to_string()), Script::Status(500)]);
    let c = spawn_cards_with(model.openai_settings()).await;
    let ada = person(&c.app, "ada").await;
    let (drafts, reused) = c.app.memory.draft_shapes(&ada, c.connector).await.unwrap();
    assert!(!reused);
    let by_model = drafts.iter().find(|d| d.tool == "list_leads").unwrap();
    assert_eq!(by_model.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec!["company", "stage"]);
    let by_rules = drafts.iter().find(|d| d.tool == "search_leads").expect("the model failed: rules drafted it");
    assert!(by_rules.fields.iter().any(|f| f.name == "notes" && f.free_text));
    assert_eq!(model.asked().len(), drafts.len(), "one model call per draft");
    let user = model.asked()[0]["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(user.contains("<data source=\"one sample answer of list_leads\">"), "the sample is quoted data");
}

async fn counts(app: &TestApp, who: &Person) -> (u32, u32) {
    app.store.counts(who.id).await.unwrap()
}

async fn audited(app: &TestApp, action: &str) -> Vec<engine::org::AuditEntry> {
    app.store.audit_log(500).await.unwrap().into_iter().filter(|e| e.action == action).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_loses_access_loses_their_use_rows() {
    let c = spawn_cards().await;
    let (alice, sam, sue, ada) = (
        person(&c.app, "alice").await,
        person(&c.app, "sam").await,
        person(&c.app, "sue").await,
        person(&c.app, "ada").await,
    );
    assert!(counts(&c.app, &alice).await.0 > 0 && counts(&c.app, &sam).await.0 > 0);
    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    let mut conn = c.app.store.connector(c.connector).await.unwrap().unwrap();
    conn.admits_roles = vec!["support".into()];
    c.app.memory.save_settings(&ada, &conn).await.unwrap();
    assert_eq!(
        c.app.memory.refresh(&alice, l1).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS does not admit your role".into()),
        "no read is made for her, even of a card she still holds"
    );

    // Read as Alice: the toolset no longer admits Sales, so her place on its cards goes, pinned or not.
    assert!(c.app.memory.my_cards(&alice).await.unwrap().is_empty());
    assert_eq!(counts(&c.app, &alice).await, (0, 0), "removed, not hidden");
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let refused = c.app.memory.run_query(&alice, &q[0]).await.unwrap_err();
    assert_eq!(refused, "Acme ATS does not admit your role", "nothing is read for her");
    let removed = audited(&c.app, "card_use.remove").await;
    assert!(
        removed
            .iter()
            .any(|e| e.subject == format!("person:{}", alice.id.0)
                && e.detail.ends_with("no longer admitted to Acme ATS")),
        "{removed:?}"
    );

    // Sam never opens his page: the daily job drops his uses all the same. Support keeps theirs.
    let tomorrow = engine::Clock::now(c.app.clock.as_ref()).date_naive() + chrono::Duration::days(1);
    c.app.clock.set(tomorrow.and_hms_opt(20, 31, 0).unwrap().and_utc());
    let sue_before = counts(&c.app, &sue).await;
    assert!(sue_before.0 > 0);
    c.app.memory.forgetting_due().await.unwrap().expect("due at 02:01 in Kolkata");
    assert_eq!(counts(&c.app, &sam).await, (0, 0));
    assert_eq!(counts(&c.app, &sue).await, sue_before, "Support is still admitted, within the hard limit");

    // Admitted again, nothing comes back by itself: the uses went, they were not hidden.
    conn.admits_roles = vec![];
    c.app.memory.save_settings(&ada, &conn).await.unwrap();
    assert!(c.app.memory.my_cards(&alice).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_leaves_is_signed_out_and_their_memory_goes() {
    let c = spawn_cards().await;
    let (alice, sam, ada) = (person(&c.app, "alice").await, person(&c.app, "sam").await, person(&c.app, "ada").await);
    // Cards read as Alice herself, with the acting-for header: her card readership.
    c.app.memory.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    assert!(c.app.memory.run_query(&alice, open_deals).await.unwrap() >= 1);
    let hers = card_of(&c.app, &alice, "L-1001").await.expect("read as her");
    assert!(counts(&c.app, &alice).await.0 >= 1);

    let browser = c.app.sign_in("alice").await;
    let r = browser.post(c.app.url("/api/tokens")).json(&json!({"name": "cli"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();

    let refused = c.app.org.person_leaves(&sam, alice.id).await.unwrap_err();
    assert_eq!(refused.to_string(), "Only an admin can mark someone as left");
    let refused = c.app.org.person_leaves(&ada, ada.id).await.unwrap_err();
    assert_eq!(refused.to_string(), "You cannot mark yourself as left; ask another admin");

    // Through the drawer, as an admin confirms it.
    let admin = c.app.sign_in("ada").await;
    let drawer = format!("/company/people?person={}", alice.id.0);
    let (_, html) = c.app.page(&admin, &format!("{drawer}&leave=1")).await;
    assert!(html.contains("Mark Alice Chen as left? They are signed out"), "the confirmation");
    let r = c.app.form_post(&admin, "/fn/mark_left", &[("person", &alice.id.0.to_string())]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&admin, &drawer).await;
    assert!(html.contains("Alice Chen has left: they can no longer sign in, 1 token revoked, and "), "{html}");
    assert!(html.contains("Memory: 0 records kept (0 pinned)"), "the counts follow");
    assert!(html.contains("Left on "));

    assert_eq!(counts(&c.app, &alice).await, (0, 0), "her use rows went");
    assert!(c.app.store.card(hers).await.unwrap().is_none(), "the card read as her went");
    assert_eq!(audited(&c.app, "person.left").await.len(), 1);

    // Her session, her password and her token no longer work.
    let r = browser.get(c.app.url("/profile/memory")).send().await.unwrap();
    assert!(r.status().is_redirection(), "signed out: {}", r.status());
    let r = c.app.post_sign_in(&client(), &demo::company::demo_email("alice"), demo::company::DEMO_PASSWORD).await;
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/signin"), "sign-in refused");
    let r = Client::new().get(c.app.url("/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "alice".into(), person: None };
    let refused = server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap_err();
    assert_eq!(refused, "Alice Chen has left and can no longer act here");

    let again = c.app.org.person_leaves(&ada, alice.id).await.unwrap_err();
    assert_eq!(again.to_string(), "Alice Chen has already left");
    let team = c.app.org.directory().await.unwrap().teams[0].id;
    let refused = c.app.org.set_team_lead(&ada, team, Some(alice.id)).await.unwrap_err();
    assert_eq!(refused.to_string(), "Alice Chen has left and cannot lead a team");
    // History still names her.
    assert_eq!(c.app.store.person(alice.id).await.unwrap().unwrap().name, "Alice Chen");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_record_can_be_pinned_back_within_its_30_days() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let card = card_of(&c.app, &alice, "L-1002").await.unwrap();
    c.app.memory.forget(&alice, card).await.unwrap();
    let forgotten = c.app.memory.forgotten(&alice).await.unwrap();
    assert_eq!(forgotten.len(), 1);
    assert!(forgotten[0].line.starts_with("lead L-1002 · Acme ATS · forgotten just now · kept out until "));
    assert_eq!(audited(&c.app, "card.forget").await.len(), 1);

    // The source changed meanwhile: pinning back reads it again, as her.
    let mut rec = lead(&c.ats, "L-1002").await;
    rec["stage"] = json!("Proposal");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    let browser = c.app.sign_in("alice").await;
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains("Pin it back"));
    let r = c
        .app
        .form_post(&browser, "/fn/pin_back", &[("connector", "1"), ("kind", "lead"), ("record_id", "L-1002")])
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains("Pinned lead L-1002 back, read again from Acme ATS"), "{html}");
    let back = c.app.memory.my_cards(&alice).await.unwrap();
    let l2 = back.iter().find(|c| c.record_id == "L-1002").expect("kept again");
    assert!(l2.pinned, "pinned");
    assert!(l2.fields.iter().any(|f| f.name == "stage" && f.value == "Proposal"), "read again");
    assert!(c.app.memory.forgotten(&alice).await.unwrap().is_empty(), "the forget is closed");
    assert_eq!(audited(&c.app, "card.forget_lifted").await.len(), 1);

    // A record gone at the source cannot be pinned back: it stays forgotten, nothing changes.
    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.app.memory.forget(&alice, l1).await.unwrap();
    assert_eq!(admin(&c.ats, reqwest::Method::DELETE, "/admin/leads/L-1001", None).await, StatusCode::NO_CONTENT);
    let refused = c.app.memory.pin_back(&alice, 1, "lead", "L-1001").await.unwrap_err();
    assert_eq!(refused.to_string(), "Not pinned: lead L-1001 is no longer at Acme ATS; it stays forgotten");
    assert_eq!(c.app.memory.forgotten(&alice).await.unwrap().len(), 1);
    let refused = c.app.memory.pin_back(&alice, 1, "lead", "L-1003").await.unwrap_err();
    assert_eq!(refused.to_string(), "You have not forgotten that record, or its 30 days are over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_prepare_my_day_keeps_what_was_typed() {
    let c = spawn_cards().await;
    let sam = c.app.sign_in("sam").await;
    let r = c
        .app
        .form_post(&sam, "/fn/save_prepare", &[("enabled", "on"), ("at_time", "07:45"), ("zone", "Mars/Olympus")])
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&sam, "/profile/memory").await;
    assert!(html.contains("value=\"Mars/Olympus\""), "the zone typed stays in the form");
    assert!(html.contains("value=\"07:45\""), "and the time");
    let p = person(&c.app, "sam").await;
    let (setting, _) = c.app.memory.prepare_status(&p).await.unwrap();
    assert!(!setting.enabled, "nothing was saved");
    let (_, again) = c.app.page(&sam, "/profile/memory").await;
    assert!(!again.contains("Mars/Olympus"), "shown once, then the stored values");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_selection_says_how_fresh_each_card_is_against_its_limits() {
    use engine::cards::source::FreshnessNow::*;
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let fresh = |q: &'static str| {
        let (memory, alice) = (c.app.memory.clone(), alice.clone());
        async move {
            let sel = memory.select_for(&alice, q, None).await.unwrap();
            sel.cards.into_iter().find(|s| s.record_id == "L-1001").map(|s| s.freshness).expect("L-1001 selected")
        }
    };
    // The demo's connector: structured fields 60 min soft, 14 days hard; free text 30 min, 7 days.
    assert_eq!(fresh("Where is L-1001?").await, WithinSoft);
    c.app.clock.advance(chrono::Duration::minutes(45));
    assert_eq!(fresh("Where is L-1001?").await, WithinSoft, "structured fields only");
    assert_eq!(fresh("What do the notes on L-1001 say?").await, PastSoft, "free text ages faster");
    c.app.clock.advance(chrono::Duration::days(8));
    assert_eq!(fresh("Where is L-1001?").await, PastSoft);
    assert_eq!(fresh("What do the notes on L-1001 say?").await, PastHard, "read the source first");
}

/// What `engram memory …` could change, read without writing.
async fn memory_state(url: &str, who: &Person) -> ((u32, u32), usize, Vec<u8>) {
    use engine::cards::store::KeptCardStore;
    use engine::store::OrgStore;
    let store = server::store::SqliteStore::open_read_only(url).await.unwrap();
    let counts = store.counts(who.id).await.unwrap();
    let audit = store.audit_log(10_000).await.unwrap().len();
    store.pool().close().await;
    let path = url.strip_prefix("sqlite://").unwrap();
    (counts, audit, std::fs::read(path).unwrap())
}

async fn memory_cli(url: &str, cmd: server::cli::Memory) -> String {
    let mut out = Vec::new();
    server::cli::run_memory(&cmd, Some(url.to_string()), &mut out).await.unwrap();
    String::from_utf8(out).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_memory_command_reads_without_changing_the_database() {
    use server::cli::Memory;
    // This one compares the SQLite file byte for byte; the read-only opening of a PostgreSQL
    // database is tested in postgres.rs.
    if crate::helpers::postgres_backend() {
        return;
    }
    let c = spawn_cards().await;
    let (alice, ada) = (person(&c.app, "alice").await, person(&c.app, "ada").await);
    // The toolset no longer admits Sales: a read that may write drops Alice's uses.
    let mut conn = c.app.store.connector(c.connector).await.unwrap().unwrap();
    conn.admits_roles = vec!["support".into()];
    c.app.memory.save_settings(&ada, &conn).await.unwrap();
    let url = c.app.database_url.clone();
    let _dir = c.app.stop().await;
    // Everything the server wrote is in the main file, so the file's bytes can be compared.
    let store = server::store::SqliteStore::open(&url).await.unwrap();
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(store.pool()).await.unwrap();
    store.pool().close().await;
    let path = url.strip_prefix("sqlite://").unwrap().to_string();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();

    let before = memory_state(&url, &alice).await;
    assert!(before.0 .0 > 0, "Alice still has use rows to lose");

    let mine = memory_cli(&url, Memory::Cards { who: "alice".into(), person: None }).await;
    assert_eq!(mine, "Alice Chen has no cards kept\n", "what may not be shown is left out");
    let counts = memory_cli(&url, Memory::Cards { who: "ada".into(), person: Some("alice".into()) }).await;
    assert_eq!(counts, "Alice Chen has 0 cards kept (0 pinned) and 2 lists. What they say is theirs alone.\n");
    assert!(memory_cli(&url, Memory::Roles).await.contains("Sales (role:sales)"));
    memory_cli(&url, Memory::Core { scope: "company:role:sales".into() }).await;

    let after = memory_state(&url, &alice).await;
    assert_eq!(after.0, before.0, "no use row went");
    assert_eq!(after.1, before.1, "nothing was audited");
    assert!(after.2 == before.2, "the database file is byte for byte the same");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_the_source_forbids_is_not_checked_and_the_use_goes() {
    let c = spawn_cards().await;
    let (alice, ada) = (person(&c.app, "alice").await, person(&c.app, "ada").await);
    // Read as each person, so the source decides what each may see.
    c.app.memory.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    for query in &q {
        assert!(c.app.memory.run_query(&alice, query).await.unwrap() >= 1, "{}", query.label);
    }
    let l1 = card_of(&c.app, &alice, "L-1001").await.expect("kept as Alice");
    let l2 = card_of(&c.app, &alice, "L-1002").await.expect("kept as Alice");
    c.app.memory.forget(&alice, l2).await.unwrap();

    // The leads move to Sam: they still exist, but Alice may no longer read them.
    let mut rec = lead(&c.ats, "L-1002").await;
    rec["owner"] = json!("sam@acme.example");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    let refused = c.app.memory.pin_back(&alice, c.connector, "lead", "L-1002").await.unwrap_err();
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
struct Partial {
    base: String,
    leave_out: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Partial {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Partial {
    fn leave_out(&self, field: Option<&str>) {
        *self.leave_out.lock().unwrap() = field.map(String::from);
    }
}

async fn spawn_partial(ats: &str) -> Partial {
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
        text.contains(&format!("stage: {stage} (unknown: not returned by Acme ATS)")),
        "the stored value stays, marked unknown: {text}"
    );
    let card = app.store.card(l2).await.unwrap().unwrap();
    assert!(card.fields.iter().any(|f| f.name == "stage" && f.value == stage), "{:?}", card.fields);
    let (_, cards) = app.get_json(&browser, "/api/memory/cards").await;
    let shown = cards.as_array().unwrap().iter().find(|c| c["record_id"] == "L-1002").unwrap().clone();
    assert_eq!(shown["not_returned"], json!(["stage"]), "{shown}");

    // A later read that returns the field clears the mark, and an unchanged value is no change.
    partial.leave_out(None);
    assert_eq!(app.memory.refresh(&alice, l2).await.unwrap(), RefreshOutcome::NoChange);
    let (_, html) = app.page(&browser, "/profile/memory").await;
    assert!(!plain(&html).contains("not returned by"), "{}", plain(&html));
    let (_, cards) = app.get_json(&browser, "/api/memory/cards").await;
    let shown = cards.as_array().unwrap().iter().find(|c| c["record_id"] == "L-1002").unwrap().clone();
    assert_eq!(shown["not_returned"], json!([]), "{shown}");
}
