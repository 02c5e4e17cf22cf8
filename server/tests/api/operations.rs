//! Operations against the running server, on either backend: only admins see what memory costs (a
//! member is refused on the page and the API, a stranger is asked to sign in); a real ask keeps
//! its block's tokens and its model's spend on the day it was asked; a known set of rows written
//! through the store (spend, check reads, lessons, a list, an old card) moves exactly the figures
//! it should; and the page shows counts and sizes, never what memory says. `engram ops report` is
//! tried in `cli.rs`.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::runs::{ask, messages, write_sales_core};
use chrono::Duration;
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::snapshots::NewSnapshot;
use engine::cards::source::{CardField, FactLimits, Freshness, KeyMode};
use engine::cards::store::{NewCard, NewConnector};
use engine::kernel::model::Spend;
use engine::lessons::{LessonScope, NewLesson};
use engine::operations::service::ADMINS_ONLY;
use engine::operations::{OperationsReport, PROJECTED_PEOPLE};
use engine::runs::block::AGENT_SYSTEM;
use engine::store::Actor;
use engine::tokens::count_tokens;
use engine::Clock;
use reqwest::StatusCode;

/// The demo company; its agents answer through the stand-in, priced at 1,000 cents a million
/// tokens, so a run's spend in thousandths of a cent is its tokens.
async fn app(model: &AgentModelServer) -> TestApp {
    let mut models = model.openai_settings();
    models.openai_price = 1_000;
    spawn_app_with_models(models).await
}

pub(crate) async fn report(app: &TestApp, c: &reqwest::Client) -> OperationsReport {
    let r = c.get(app.url("/api/ops/report")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.expect("the report as JSON")
}

fn today(r: &OperationsReport) -> &engine::operations::DayFigures {
    r.days.last().expect("30 days")
}

fn layer(r: &OperationsReport, layer: engine::operations::Layer) -> &engine::operations::LayerFigures {
    r.layers.iter().find(|l| l.layer == layer).expect("every layer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_see_what_memory_costs_on_the_page_and_the_api() {
    let app = spawn_app().await;
    let (ada, alice) = (app.sign_in("ada").await, app.sign_in("alice").await);

    let (status, html) = app.page(&ada, "/company/operations").await;
    assert_eq!(status, StatusCode::OK);
    for words in ["<h1>Operations</h1>", "Storage", "Cards", "Lessons", "Per day", "At 10,000 people"] {
        assert!(html.contains(words), "{words}: {html}");
    }
    assert!(html.contains("href=\"/company/operations\""), "admins find it in the nav");

    let (status, html) = app.page(&alice, "/company/operations").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(ADMINS_ONLY), "{html}");
    assert!(!html.contains("Per day") && !html.contains("At 10,000 people"), "{html}");
    assert!(!html.contains("href=\"/company/operations\""), "not in a member's nav");

    let (status, body) = app.get_json(&alice, "/api/ops/report").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!((body["error"].as_str(), body["message"].as_str()), (Some("not_allowed"), Some(ADMINS_ONLY)));
    let (status, body) = app.get_json(&client(), "/api/ops/report").await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("not_signed_in")));
    // An admin's token reads it, as a monitoring script would; a member's does not.
    let (status, body) = bearer_get(&app, &token_for(&app, "ada").await, "/api/ops/report").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["people"], 7);
    let (status, _) = bearer_get(&app, &token_for(&app, "alice").await, "/api/ops/report").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_and_a_known_set_of_rows_move_exactly_their_figures() {
    let model = AgentModelServer::start().await;
    model.script([AgentReply::answer("Our sales stages are New, Qualified, Proposal, Won and Lost.")]);
    let app = app(&model).await;
    write_sales_core(&app).await;
    let ada = app.sign_in("ada").await;
    let before = report(&app, &ada).await;
    assert_eq!((before.people, before.time_zone.as_str()), (7, "Asia/Kolkata"));
    assert_eq!(before.days.len(), 30);

    // A real ask: its block is what memory added to the prompt the model was sent.
    let alice = app.sign_in("alice").await;
    let question = "what are our sales stages";
    ask(&app, &alice, "Sales Assistant", question).await;
    let requests = model.requests();
    let (system, user) = messages(requests.last().expect("the run's call"));
    let memory = user.strip_suffix(&format!("\n\n{question}")).expect("the memory, then the question");
    let block = count_tokens(system.strip_prefix(AGENT_SYSTEM).unwrap().trim()) + count_tokens(memory);
    let asked = report(&app, &ada).await;
    let (was, now) = (today(&before), today(&asked));
    assert_eq!(now.runs, was.runs + 1);
    assert_eq!(now.with_block, was.with_block + 1);
    assert_eq!(was.with_block, 0, "the demo's seed asks nothing");
    assert_eq!((now.block_p50, now.block_p95), (Some(block), Some(block)), "the block's tokens, kept");
    assert_eq!(now.run_model_calls, was.run_model_calls + 1);
    let tokens = now.run_model_tokens - was.run_model_tokens;
    assert!(tokens > u64::from(block) + u64::from(count_tokens(question)), "everything sent and received: {tokens}");
    assert_eq!(now.run_millicents - was.run_millicents, tokens, "at 1,000 cents a million tokens");

    // A known set of rows, written as the product writes them, on the company's today.
    let at = app.clock.now();
    let zone: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap();
    let day = at.with_timezone(&zone).date_naive().to_string();
    for (purpose, millicents) in [("nightly job", 700), ("nightly job", 300), ("shape drafting", 40)] {
        let spend = Spend { local_date: day.clone(), purpose: purpose.into(), model: "m".into(), millicents, at };
        app.store.add_spend(&spend).await.unwrap();
    }
    let new = NewConnector {
        name: "Acme ATS".into(),
        base_url: "http://127.0.0.1:9".into(),
        key_mode: KeyMode::Company,
        ticked: vec!["list_leads".into()],
        label: DataLabel::Internal,
        admits_roles: vec!["sales".into()],
        keep_cards: true,
        facts: FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 60, hard_mins: 24 * 60 },
        hourly_limit: 10_000,
    };
    let acme = app.store.create_connector(&new, Some("key"), Actor { person: None, at }).await.unwrap();
    for _ in 0..3 {
        assert!(app.store.claim_read(acme.id, "check", at - Duration::hours(1), 10_000, at).await.unwrap());
    }
    let people = app.store.directory().await.unwrap().people;
    let alice_id = people.iter().find(|p| p.email == "alice@acme.example").unwrap().id;
    for text in ["Kaveri Foods pays in INR", "Litware renews in March"] {
        let lesson = NewLesson::in_own_words(alice_id, LessonScope::Personal, text.into(), at);
        app.store.add_lesson(&lesson, Actor { person: Some(alice_id), at }).await.unwrap();
    }
    let list = NewSnapshot {
        person: alice_id,
        connector: acme.id,
        tool: "list_leads".into(),
        arguments: serde_json::json!({"owner": "operations-test"}),
        asked: "my leads for operations".into(),
        records: vec!["L-1".into()],
        taken_at: at,
    };
    app.store.keep_snapshot(&list).await.unwrap();
    let old = NewCard {
        connector: acme.id,
        tool: "list_leads".into(),
        kind: "lead".into(),
        record_id: "L-OLD".into(),
        version: None,
        fields: vec![CardField { name: "stage".into(), value: "Won".into(), free_text: false }],
        read_with: KeyKind::Company,
        read_as: None,
        label_when_read: DataLabel::Internal,
        missing: vec![],
        open_when: None,
        read_at: at - Duration::days(400),
    };
    let old = app.store.upsert_card(&old).await.unwrap();

    // The layers are measured once a day, as counting every row of memory costs what it holds:
    // until then the page reads the measure kept when it was first asked for.
    let kept = report(&app, &ada).await;
    assert_eq!((kept.layers.clone(), kept.measured_at), (asked.layers.clone(), before.measured_at));
    let first = before.measured_at.expect("the first report measured, and kept it");
    assert!(first <= before.at && before.at - first < Duration::milliseconds(1), "when it was asked for");
    // The daily job's measure, taken now; the host's `engram ops report` measures now too.
    let measured = app.operations.measure_now().await.unwrap();
    let after = report(&app, &ada).await;
    assert_eq!(after.measured_at, Some(measured));
    assert_eq!(app.operations.report_on_host().await.unwrap().layers, after.layers);
    let (was, now) = (today(&asked), today(&after));
    assert_eq!((now.nightly_calls, now.nightly_millicents), (was.nightly_calls + 2, was.nightly_millicents + 1_000));
    assert_eq!(now.other_memory_millicents, was.other_memory_millicents + 40);
    assert_eq!(now.check_reads, was.check_reads + 3);
    assert_eq!(now.runs, was.runs, "no run was asked");
    use engine::operations::Layer;
    let (l0, l1) = (layer(&asked, Layer::Lessons), layer(&after, Layer::Lessons));
    assert_eq!((l1.rows, l1.added), (l0.rows + 2, l0.added + 2));
    let (s0, s1) = (layer(&asked, Layer::Lists), layer(&after, Layer::Lists));
    assert_eq!((s1.rows, s1.added), (s0.rows + 1, s0.added + 1));
    let (c0, c1) = (layer(&asked, Layer::Cards), layer(&after, Layer::Cards));
    let cards = |l: &engine::operations::LayerFigures| l.tables.iter().find(|t| t.table == "cards").unwrap().rows;
    assert_eq!(cards(c1), cards(c0) + 1);
    assert_eq!(c1.added, c0.added, "a card read 400 days ago was not written in the last 30");
    let past = after.oldest_past_limit.clone().expect("the old card is past its hard limit");
    assert_eq!((past.card, past.connector.as_str(), past.read_at), (old.id, "Acme ATS", old.read_at));
    assert!(past.cards_past_limit >= 1);
    assert_eq!(after.memory_bytes, after.layers.iter().map(|l| l.bytes).sum::<u64>());
    assert_eq!(after.bytes_per_person, Some((after.memory_bytes as f64 / 7.0).round() as u64));
    let p = after.projection.clone().expect("a projection");
    assert_eq!((p.people, p.measured_people), (PROJECTED_PEOPLE, 7));

    // The page shows the figures, never what memory says.
    let (_, html) = app.page(&ada, "/company/operations").await;
    assert!(html.contains(&format!("data-day=\"{day}\"")), "today's row");
    assert!(html.contains(&format!("Card {} of Acme ATS", old.id)), "{html}");
    for said in ["Kaveri Foods", "Litware renews", "my leads for operations", "L-OLD", "New, Qualified"] {
        assert!(!html.contains(said), "the page never shows what memory says: {said}");
    }
    let json = serde_json::to_string(&after).unwrap();
    for said in ["Kaveri Foods", "Litware renews", "my leads for operations", "L-OLD"] {
        assert!(!json.contains(said), "nor does the report: {said}");
    }
}
