//! Private agents against the running server, on either backend, with a stand-in model: one
//! person's own agent, which nobody else sees, opens or asks, admins included; it holds no company
//! toolsets; the nightly job reads its runs apart from the person's other work; and what it
//! learned loads only into its owner's private agents' runs, never a shared agent's.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::runs::{ask, messages};
use engine::learning::nightly::prompt::NIGHTLY_SYSTEM;
use engine::learning::nightly::NightlyOutcome;
use engine::lessons::{LessonScope, LessonState};
use engine::org::AgentId;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

async fn app_with(model: &AgentModelServer) -> TestApp {
    let mut models = model.openai_settings();
    models.reflect_model = Some("cheap".into());
    spawn_app_with_models(models).await
}

async fn make_private(app: &TestApp, c: &Client, name: &str) -> Value {
    let r = c
        .post(app.url("/api/agents/private"))
        .json(&json!({"name": name, "description": "Sorts my mail."}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json().await.unwrap()
}

/// The user messages of the chat requests an agent's runs sent (the nightly job's left out).
fn run_requests(model: &AgentModelServer) -> Vec<String> {
    model
        .requests()
        .iter()
        .filter(|r| r["messages"].as_array().is_some_and(|m| m.len() >= 2))
        .map(messages)
        .filter(|(s, _)| s != NIGHTLY_SYSTEM)
        .map(|(_, u)| u)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_agent_is_seen_opened_and_asked_by_its_owner_alone() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model).await;
    let alice = app.sign_in("alice").await;
    let bob = app.sign_in("bob").await;
    let ada = app.sign_in("ada").await;
    let inbox = make_private(&app, &alice, "Inbox").await;
    assert_eq!(inbox["name"], "Inbox (Alice Chen)");
    assert_eq!((inbox["private"].as_bool(), inbox["role"].is_null()), (Some(true), true));
    let id = inbox["id"].as_i64().unwrap();

    let (_, mine) = app.get_json(&alice, "/api/agents/private").await;
    assert_eq!(mine.as_array().unwrap().len(), 1);
    let (_, bobs) = app.get_json(&bob, "/api/agents/private").await;
    assert_eq!(bobs, json!([]));
    // Alice may ask it; nobody else sees it in the list to ask.
    let names = |v: &Value| -> Vec<String> {
        v.as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect()
    };
    let (_, for_alice) = app.get_json(&alice, "/api/ask/agents").await;
    assert!(names(&for_alice).contains(&"Inbox (Alice Chen)".to_string()), "{for_alice}");
    for other in [&bob, &ada] {
        let (_, listed) = app.get_json(other, "/api/ask/agents").await;
        assert!(!names(&listed).iter().any(|n| n.starts_with("Inbox")), "{listed}");
        // Its page is no agent at all to them, an admin included.
        let (s, _) = app.get_json(other, &format!("/api/agents/{id}")).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let r = other.post(app.url("/api/ask")).json(&json!({"agent": id, "question": "hi"})).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let dir = app.store.directory().await.unwrap();
    assert!(dir.agents.iter().all(|a| a.id != AgentId(id)), "the company's directory never lists it");
    let (s, page) = app.get_json(&alice, &format!("/api/agents/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(page["agent"]["private"], true);

    // It holds no company toolsets and is not copied for a team.
    let acme = app.store.connectors().await.unwrap().into_iter().next().map(|c| c.id).unwrap_or(1);
    let r = alice
        .post(app.url(&format!("/api/agents/{id}/toolsets")))
        .json(&json!({"toolsets": [acme]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.text().await.unwrap().contains(engine::org::agents::PRIVATE_HOLDS_NO_TOOLSETS));
    let team = dir.teams[0].id.0;
    let r = alice.post(app.url(&format!("/api/agents/{id}/copy"))).json(&json!({"team": team})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);

    let asked = ask(&app, &alice, "Inbox (Alice Chen)", "What came in today?").await;
    let run = asked["run"]["id"].as_i64().unwrap();
    let (s, _) = app.get_json(&alice, &format!("/api/runs/{run}")).await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = app.get_json(&bob, &format!("/api/runs/{run}")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // The same name again is refused in words, and another person's choice never collides.
    let r = alice.post(app.url("/api/agents/private")).json(&json!({"name": "Inbox"})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("You already have a private agent called Inbox"));
    assert_eq!(make_private(&app, &bob, "Inbox").await["name"], "Inbox (Bob Diaz)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_work_is_read_apart_and_its_lessons_load_only_into_the_owners_private_agents() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model).await;
    let alice = app.sign_in("alice").await;
    let inbox = make_private(&app, &alice, "Inbox").await;
    let inbox_id = AgentId(inbox["id"].as_i64().unwrap());
    let shared =
        ask(&app, &alice, "Sales Assistant", "What are our sales stages?").await["run"]["id"].as_i64().unwrap();
    let private = ask(&app, &alice, "Inbox (Alice Chen)", "Who wrote about the Kaveri invoice?").await["run"]["id"]
        .as_i64()
        .unwrap();
    // Her personal work is read first, then her private agents' work, each in a call of its own.
    model.script([
        AgentReply::answer(
            &json!({"lessons": [{"text": "Kaveri Foods wants quotes in INR first.", "scope": "personal", "runs": [shared]}]})
                .to_string(),
        ),
        AgentReply::answer(
            &json!({"lessons": [
                {"text": "Kaveri's invoices come from accounts@kaveri.example.", "scope": "personal", "runs": [private]},
                {"text": "A company lesson from private work.", "scope": "company", "runs": [private]},
                {"text": "A lesson citing personal work from the private call.", "scope": "personal", "runs": [shared]}
            ]})
            .to_string(),
        ),
    ]);
    let day = engine::Clock::now(&*app.clock).date_naive() + chrono::Duration::days(1);
    app.clock.set(day.and_hms_opt(20, 31, 0).unwrap().and_utc());
    let report = match app.nightly.due().await.unwrap() {
        NightlyOutcome::Ran(r) => r,
        other => panic!("the job did not run: {other:?}"),
    };
    assert_eq!((report.personal, report.proposed, report.suggested), (2, 0, 0), "{report:?}");
    let sent: Vec<String> =
        model.requests().iter().map(messages).filter(|(s, _)| s == NIGHTLY_SYSTEM).map(|(_, u)| u).collect();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].starts_with("The personal work of Alice Chen.") && !sent[0].contains("invoice"), "{}", sent[0]);
    assert!(sent[1].starts_with("The private agents' work of Alice Chen."), "{}", sent[1]);
    assert!(sent[1].contains("Kaveri invoice") && !sent[1].contains("sales stages"), "never mixed");

    let alice_id = crate::cards::person(&app, "alice").await.id;
    let lessons = app.store.lessons_of(alice_id).await.unwrap();
    let kept = lessons.iter().find(|l| l.text.starts_with("Kaveri's invoices")).expect("the private lesson");
    assert_eq!((kept.scope, kept.state), (LessonScope::Agent(inbox_id), LessonState::Accepted));
    assert!(lessons.iter().all(|l| l.scope != LessonScope::Company), "private work proposes nothing");
    let personal = lessons.iter().find(|l| l.text.starts_with("Kaveri Foods wants")).expect("the personal lesson");
    assert_eq!(personal.scope, LessonScope::Personal);
    assert!(!lessons.iter().any(|l| l.text.contains("citing personal work")), "a call cites only its own runs");

    // What her private agent learned loads into her private agents' runs only.
    let before = run_requests(&model).len();
    ask(&app, &alice, "Sales Assistant", "Who sends Kaveri's invoices?").await;
    let notes = make_private(&app, &alice, "Notes").await;
    ask(&app, &alice, notes["name"].as_str().unwrap(), "Who sends Kaveri's invoices?").await;
    let runs = run_requests(&model);
    assert_eq!(runs.len(), before + 2);
    assert!(!runs[before].contains("accounts@kaveri.example"), "a shared agent never loads it");
    assert!(runs[before].contains("Kaveri Foods wants quotes in INR first."), "her personal lessons load as before");
    assert!(runs[before + 1].contains("accounts@kaveri.example"), "{}", runs[before + 1]);
    assert!(runs[before + 1].contains("your private agents' runs"), "quoted with its source");
}
