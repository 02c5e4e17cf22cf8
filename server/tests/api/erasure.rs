//! Erasing a third party against the running server (SQLite, or PostgreSQL with
//! `ENGRAM_TEST_BACKEND=postgres`): Dana Brooks, a customer at Litware, is in Alice's lessons (one
//! kept with an Idempotency-Key, so its answer is saved for a retry), her cards, a list snapshot and
//! a who's-who list. An admin erases Dana's address and number through `POST /api/erasures` (with a
//! session and with a token) and through the page with JavaScript off; afterwards no column of any
//! table holds either in any spelling, sessions included. Someone who is not an admin, a value that
//! is not one, and a colleague's address change nothing.

use crate::helpers::*;
use crate::traces::{traces, Value};
use demo::company::demo_email;
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::activation::UseSummary;
use engine::cards::snapshots::NewSnapshot;
use engine::cards::source::{CardField, Freshness, KeyMode};
use engine::cards::store::{CardUse, NewCard, NewConnector};
use engine::erasure::service::ADMIN_ONLY;
use engine::erasure::{ErasureRecord, SOURCE_MAY_KEEP_AGAIN};
use engine::lessons::LessonScope;
use engine::runs::whoswho::ListEntry;
use engine::store::Actor;
use engine::Clock;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value as Json};
use server::store::AnyStore;

pub fn dana_email() -> Value {
    Value::new("dana.brooks@litware.example", &["dana.brooks", "Dana.Brooks+q3@Litware.example"])
}

pub fn dana_phone() -> Value {
    Value::new("+1 (415) 555-0142", &["+1 (415) 555-0142", "415.555.0142", "+1 415 555 0142"])
}

/// Every place the database holds Dana's address or number, in any spelling.
pub async fn dana_traces(app: &TestApp) -> Vec<String> {
    let store = AnyStore::open(&app.database_url).await.expect("open the app's database");
    traces(&store, &[&dana_email(), &dana_phone()]).await
}

fn field(name: &str, value: &str) -> CardField {
    CardField { name: name.into(), value: value.into(), free_text: false }
}

/// Alice's memory of Dana: three lessons (one corrected since), a card she keeps, a snapshot and
/// a who's-who entry; and one lesson about Litware that names neither and must stay.
pub async fn seed_dana(app: &TestApp) -> Client {
    let alice = app.sign_in("alice").await;
    let keep = |scope: &str, text: &str, key: Option<&str>| {
        let mut r = alice.post(app.url("/api/knowledge")).json(&json!({"scope": scope, "text": text}));
        if let Some(key) = key {
            r = r.header("idempotency-key", key);
        }
        r.send()
    };
    let r = keep("private", "Dana Brooks' mobile is +1 (415) 555-0142", Some("keep-mobile")).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let mobile = body(r).await["id"].as_i64().unwrap();
    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{mobile}/correct")))
        .json(&json!({"text": "Dana Brooks has a new mobile"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = keep("team", "Write to Dana.Brooks+q3@Litware.example about renewals", None).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = keep("private", "Litware renews in March", None).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);

    let now = app.clock.now();
    let me = app.store.directory().await.unwrap().people.into_iter().find(|p| p.email == demo_email("alice")).unwrap();
    let admin = Actor { person: None, at: now };
    let crm = NewConnector {
        name: "Litware CRM".into(),
        base_url: "http://127.0.0.1:9".into(),
        key_mode: KeyMode::Company,
        ticked: vec![],
        label: DataLabel::Internal,
        admits_roles: vec![],
        keep_cards: true,
        facts: engine::cards::source::FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 30, hard_mins: 720 },
        hourly_limit: 600,
    };
    let ats = app.store.create_connector(&crm, Some("company-key"), admin).await.unwrap();
    let card = app
        .store
        .upsert_card(&NewCard {
            connector: ats.id,
            tool: "get_contact".into(),
            kind: "contact".into(),
            record_id: "C-77".into(),
            version: None,
            fields: vec![field("email", "mailto:dana.brooks@litware.example"), field("phone", "415.555.0142")],
            missing: vec![],
            read_with: KeyKind::Company,
            read_as: None,
            label_when_read: DataLabel::Internal,
            open_when: None,
            read_at: now,
        })
        .await
        .unwrap();
    let kept = CardUse { person: me.id, card: card.id, summary: UseSummary::default(), pinned: true, last_use: now };
    app.store.save_use(&kept).await.unwrap();
    app.store
        .keep_snapshot(&NewSnapshot {
            person: me.id,
            connector: ats.id,
            tool: "list_leads".into(),
            arguments: json!({"owner": "Dana.Brooks@Litware.example"}),
            asked: "Dana's open leads".into(),
            records: vec!["L-1042".into()],
            taken_at: now,
        })
        .await
        .unwrap();
    app.store.set_whos_who(ats.id, true, admin).await.unwrap();
    let entry = ListEntry {
        connector: ats.id,
        source: ats.name.clone(),
        list: "list_partner_contacts".into(),
        id: Some("CT-1".into()),
        values: vec![("phone".into(), "+1 415 555 0142".into())],
        names: vec!["dana.brooks@litware.example".into()],
        fetched_at: now,
    };
    app.store.save_list(ats.id, "list_partner_contacts", &[entry], now).await.unwrap();
    alice
}

async fn erase_as(app: &TestApp, c: &Client, value: &str) -> (StatusCode, Json, String) {
    let r = c.post(app.url("/api/erasures")).json(&json!({ "value": value })).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Json::Null), text)
}

async fn erasure_audits(app: &TestApp) -> Vec<engine::org::AuditEntry> {
    app.store.audit_log(500).await.unwrap().into_iter().filter(|a| a.action == ErasureRecord::ACTION).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_erases_a_third_party_everywhere_and_no_trace_of_it_is_left() {
    let app = spawn_app().await;
    let alice = seed_dana(&app).await;
    let before = dana_traces(&app).await;
    for place in
        ["lessons.text", "idempotency_keys.body", "cards.fields", "list_snapshots.arguments", "list_entries.names"]
    {
        assert!(before.iter().any(|t| t.contains(&format!("{place}:"))), "{place} holds Dana: {before:#?}");
    }

    // The address, by an admin's session, spelled another way than it was kept.
    let ada = app.sign_in("ada").await;
    let (status, answer, text) = erase_as(&app, &ada, "Dana Brooks <DANA.BROOKS@litware.example>").await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(answer["kind"], "email");
    assert_eq!(
        answer["removed"],
        json!({"cards": 1, "snapshots": 1, "lessons": 1, "whos_who": 1, "forgotten": 0, "fetch_claims": 0, "saved_answers": 0})
    );
    assert_eq!(
        answer["message"],
        format!("Removed 1 card, 1 list snapshot, 1 lesson and 1 who's-who entry naming that email address. {SOURCE_MAY_KEEP_AGAIN}")
    );
    assert_eq!(answer["note"], SOURCE_MAY_KEEP_AGAIN);
    assert!(!text.to_lowercase().contains("dana") && !text.contains("litware"), "the answer never names it: {text}");

    // The number, by an admin's token, with an Idempotency-Key that keeps nothing of it.
    let token = token_for(&app, "ada").await;
    let r = Client::new()
        .post(app.url("/api/erasures"))
        .bearer_auth(&token)
        .header("idempotency-key", "erase-1")
        .json(&json!({"value": "415.555.0142"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get("idempotent-replayed").is_none());
    let answer = body(r).await;
    assert_eq!(
        answer["removed"],
        json!({"cards": 0, "snapshots": 0, "lessons": 1, "whos_who": 0, "forgotten": 0, "fetch_claims": 0, "saved_answers": 1}),
        "the first mobile lesson (its correction stays) and the answer saved for its retry"
    );

    let left = dana_traces(&app).await;
    assert!(left.is_empty(), "no trace of Dana's address or number is left: {left:#?}");

    // What names neither stays: the correction and the lesson about Litware.
    let (_, own) = app.get_json(&alice, "/api/knowledge").await;
    let texts: Vec<&str> = own.as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"Litware renews in March") && texts.contains(&"Dana Brooks has a new mobile"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("mobile is") || t.contains("Write to")), "{texts:?}");
    let (_, cards) = app.get_json(&alice, "/api/memory/cards").await;
    assert!(!cards.to_string().contains("C-77"), "{cards}");

    let audits = erasure_audits(&app).await;
    assert_eq!(audits.len(), 2);
    let ada_id = app.store.directory().await.unwrap().people.iter().find(|p| p.email == demo_email("ada")).unwrap().id;
    for a in &audits {
        assert_eq!(a.actor, Some(ada_id));
        assert!(a.subject.starts_with("hmac-sha256:") && a.subject.len() == 12 + 64, "{}", a.subject);
    }
    assert!(audits[0].detail.starts_with("phone: 0 cards, 0 list snapshots, 1 lesson,"), "{}", audits[0].detail);
    assert!(audits[1].detail.starts_with("email: 1 card, 1 list snapshot, 1 lesson, 1 who's-who entry,"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn someone_not_an_admin_a_value_that_is_not_one_and_a_colleague_change_nothing() {
    let app = spawn_app().await;
    let alice = seed_dana(&app).await;
    let before = dana_traces(&app).await;

    let (status, answer, _) = erase_as(&app, &alice, "dana.brooks@litware.example").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(answer, json!({"error": "not_allowed", "message": ADMIN_ONLY}));
    let token = token_for(&app, "alice").await;
    let (status, answer) = bearer_post(&app, &token, "/api/erasures", json!({"value": "415.555.0142"})).await;
    assert_eq!((status, answer["error"].as_str()), (StatusCode::FORBIDDEN, Some("not_allowed")));
    let r = client().post(app.url("/api/erasures")).json(&json!({"value": "415.555.0142"})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);

    let ada = app.sign_in("ada").await;
    for (given, message) in [
        ("", "Give the email address or phone number to erase. Nothing was changed."),
        (
            "Dana Brooks",
            "That is neither an email address nor a phone number: give one such as dana@example.com or +1 415 555 \
             0142. Nothing was changed.",
        ),
        (
            "dana.brooks@litware.example and +1 (415) 555-0142",
            "That holds more than one email address or phone number: give one at a time. Nothing was changed.",
        ),
    ] {
        let (status, answer, _) = erase_as(&app, &ada, given).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid")),
            "{given:?}"
        );
        assert_eq!(answer["message"], message);
    }
    let (status, answer, _) = erase_as(&app, &ada, "Alice <ALICE@acme.example>").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        answer["message"],
        "That is the email address of Alice Chen, in the company's directory: only a third party's address or number \
         is erased here. Nothing was changed."
    );

    assert_eq!(dana_traces(&app).await, before, "nothing was changed");
    assert!(erasure_audits(&app).await.is_empty(), "nothing was audited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_erases_with_javascript_off_and_says_a_source_may_keep_it_again() {
    let app = spawn_app().await;
    let alice = seed_dana(&app).await;

    // Someone who is not an admin has no link and no form, and a post of theirs is refused.
    let (_, html) = app.page(&alice, "/company/erasure").await;
    assert!(html.contains(ADMIN_ONLY) && !html.contains("name=\"value\""), "{html}");
    assert!(!html.contains("Erase a third party</a>"));
    let r = app.form_post(&alice, "/fn/erase_third_party", &[("value", "415.555.0142"), ("confirm", "yes")]).await;
    assert_eq!(r.headers()["location"], "/company/erasure");

    let ada = app.sign_in("ada").await;
    let (status, html) = app.page(&ada, "/company/erasure").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("href=\"/company/erasure\">Erase a third party</a>"), "the admin's nav links to it");
    assert!(html.contains(SOURCE_MAY_KEEP_AGAIN) && html.contains("This cannot be undone."));
    assert!(html.contains("name=\"value\"") && html.contains("name=\"confirm\""));

    // Without the box ticked nothing is erased, and the value is not kept for the page.
    let r = app.form_post(&ada, "/fn/erase_third_party", &[("value", "dana.brooks@litware.example")]).await;
    assert!(r.status().is_redirection());
    assert_eq!(r.headers()["location"], "/company/erasure");
    let (_, html) = app.page(&ada, "/company/erasure").await;
    assert!(html.contains("to erase it; nothing was changed."), "{html}");
    assert!(!html.contains("dana.brooks"), "a refused form starts empty");
    let (_, html) = app.page(&ada, "/company/erasure").await;
    assert!(!html.contains("nothing was changed"), "the notice is read once");

    let r = app
        .form_post(&ada, "/fn/erase_third_party", &[("value", "Dana.Brooks+q3@Litware.example"), ("confirm", "yes")])
        .await;
    assert_eq!(r.headers()["location"], "/company/erasure");
    let (_, html) = app.page(&ada, "/company/erasure").await;
    assert!(
        html.contains(&format!(
            "Removed 1 card, 1 list snapshot, 1 lesson and 1 who's-who entry naming that email address. {SOURCE_MAY_KEEP_AGAIN}"
        )),
        "{html}"
    );
    let r = app.form_post(&ada, "/fn/erase_third_party", &[("value", "+1 415 555 0142"), ("confirm", "yes")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&ada, "/company/erasure").await;
    assert!(html.contains("Also removed: 1 saved API answer."), "{html}");

    let left = dana_traces(&app).await;
    assert!(left.is_empty(), "no trace is left, in the sessions' flashes either: {left:#?}");
    assert_eq!(erasure_audits(&app).await.len(), 2, "Alice's post erased nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lesson_scope_of_a_private_agent_is_erased_too() {
    let app = spawn_app().await;
    let dir = app.store.directory().await.unwrap();
    let alice = dir.people.iter().find(|p| p.email == demo_email("alice")).unwrap();
    let agent = dir.agents.first().expect("a demo agent");
    let now = app.clock.now();
    let lesson = engine::lessons::NewLesson::in_own_words(
        alice.id,
        LessonScope::Agent(agent.id),
        "Dana's assistant forwards mail from dana.brooks@litware.example".into(),
        now,
    );
    app.store.add_lesson(&lesson, Actor { person: Some(alice.id), at: now }).await.unwrap();
    let token = token_for(&app, "ada").await;
    let (status, answer) =
        bearer_post(&app, &token, "/api/erasures", json!({"value": "dana.brooks@litware.example"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["removed"]["lessons"], 1);
    assert!(dana_traces(&app).await.is_empty());
}
