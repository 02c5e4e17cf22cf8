//! Asking an agent against the running server, with a stand-in model over HTTP that records every
//! request: the seed's demo steps, who may read a run, events, a model that fails or hangs, Try
//! again, token asks and `engram ask`.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use engine::runs::block::{AGENT_SYSTEM, MEMORY_HEADING};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) const STAGES: &str = "Stages: New, Qualified, Proposal, Won, Lost.";
pub(crate) const SALES_CORE_HEADER: &str = "What the Sales role always knows (company core, version 1):";

/// Asks an agent through the API and waits for the answer: `{thread, run}`.
pub(crate) async fn ask(app: &TestApp, c: &Client, agent: &str, question: &str) -> Value {
    let r = c.post(app.url("/api/ask")).json(&json!({"agent": agent, "question": question})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED, "asking {agent}: {}", r.text().await.unwrap_or_default());
    r.json().await.unwrap()
}

/// The system and user messages of a recorded chat request.
pub(crate) fn messages(request: &Value) -> (String, String) {
    let m = request["messages"].as_array().expect("messages");
    assert_eq!(m[0]["role"], "system");
    assert_eq!(m[1]["role"], "user");
    (m[0]["content"].as_str().unwrap().to_string(), m[1]["content"].as_str().unwrap().to_string())
}

pub(crate) async fn write_sales_core(app: &TestApp) {
    let ada = app.sign_in("ada").await;
    let r = app.save_core(&ada, "company:role:sales", 0, STAGES).await;
    assert!(r.status().is_success(), "{}", r.status());
}

fn memory_step(run: &Value) -> Option<&Value> {
    run["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "memory_used")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeds_demo_steps_give_the_sales_core_and_whos_who_with_memory_used() {
    let model = AgentModelServer::start().await;
    model.script([AgentReply::answer("Our sales stages are New, Qualified, Proposal, Won and Lost.")]);
    let app = spawn_app_with_agent_model(&model).await;
    write_sales_core(&app).await;

    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    let run = &asked["run"];
    assert_eq!(run["state"], "answered");
    assert_eq!(run["answer"], "Our sales stages are New, Qualified, Proposal, Won and Lost.");
    assert_eq!(run["unwatched"], false, "asked in a session");
    let step = memory_step(run).expect("a Memory used step");
    assert_eq!(step["line"], "Read from memory: 1 core and who's who");
    assert_eq!(
        step["words"],
        json!(["Sales company core, version 1", "Who's who: The people and teams around this work"])
    );
    assert_eq!(run["memory_used"], json!([{"core": {"scope": {"company": "role:sales"}, "version": 1}}, "slice"]));
    assert_eq!(run["data_label"], "internal", "who's who is internal data");
    assert_eq!(run["sources"], json!(["directory"]));

    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let (system, user) = messages(&requests[0]);
    assert_eq!(system, format!("{AGENT_SYSTEM}\n\n{SALES_CORE_HEADER}\n{STAGES}"), "the core goes first, as saved");
    assert!(user.starts_with(MEMORY_HEADING), "{user}");
    assert!(user.ends_with("\n\nwhat are our sales stages"));
    assert!(user.contains("Alice Chen") && user.contains("source=\"directory\""), "who's who is quoted data: {user}");
    assert!(!system.contains("Alice Chen"), "stored text never reaches the system prompt");

    // The thread shows the question and the answer; the run's steps are the Details.
    let thread_id = asked["thread"].as_i64().unwrap();
    let (status, thread) = app.get_json(&alice, &format!("/api/threads/{thread_id}")).await;
    assert_eq!(status, StatusCode::OK);
    let messages = thread["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["text"], "what are our sales stages");
    assert_eq!(messages[0]["author"], "Alice Chen");
    assert_eq!(messages[1]["from_agent"], true);
    assert_eq!(messages[0]["run"]["id"], run["id"]);
    assert_eq!(thread["working"], false);

    // The event carries ids and names only, never what memory says.
    let ada = app.sign_in("ada").await;
    let (status, events) = app.get_json(&ada, "/api/events?after=0").await;
    assert_eq!(status, StatusCode::OK);
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["name"], "memory_used");
    assert_eq!(events[0]["run"], run["id"]);
    assert_eq!(events[0]["thread"], asked["thread"]);
    assert_eq!(events[0]["refs"], run["memory_used"]);
    let text = events[0].to_string();
    assert!(!text.contains("Stages") && !text.contains("Alice"), "{text}");
    let after = events[0]["id"].as_i64().unwrap();
    let (_, none) = app.get_json(&ada, &format!("/api/events?after={after}")).await;
    assert_eq!(none, json!([]), "following from the last id gives nothing new");
    let (status, refused) = app.get_json(&alice, "/api/events").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(refused["message"], "Only an admin can see events");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_person_a_run_was_for_may_read_it() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "hello").await;
    let (thread, run) = (asked["thread"].as_i64().unwrap(), asked["run"]["id"].as_i64().unwrap());
    for who in ["bob", "ada"] {
        let other = app.sign_in(who).await;
        let (status, body) = app.get_json(&other, &format!("/api/threads/{thread}")).await;
        assert_eq!((status, body["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such thread")));
        let (status, body) = app.get_json(&other, &format!("/api/runs/{run}")).await;
        assert_eq!((status, body["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such run")));
        let r = other.post(app.url(&format!("/api/runs/{run}/retry"))).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "nor try it again");
        let r = other.post(app.url(&format!("/api/threads/{thread}/ask"))).json(&json!({"question": "and?"})).send();
        assert_eq!(r.await.unwrap().status(), StatusCode::NOT_FOUND, "nor ask in it");
    }
    let (status, _) = app.get_json(&alice, &format!("/api/runs/{run}")).await;
    assert_eq!(status, StatusCode::OK);

    // Bad input changes nothing, with the sentence that says why.
    let r = alice.post(app.url("/api/ask")).json(&json!({"agent": "Sales Assistant", "question": "  "})).send();
    let r = r.await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "Write a question first");
    let r = alice.post(app.url("/api/ask")).json(&json!({"agent": "Nobody", "question": "hi"})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(body(r).await["message"], "There is no agent called \"Nobody\"");
    let (_, mine) = app.get_json(&alice, "/api/threads").await;
    assert_eq!(mine.as_array().unwrap().len(), 1, "the refused asks recorded nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_may_ask_and_its_ask_is_recorded_as_unwatched() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let r = alice.post(app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = client()
        .post(app.url("/api/ask"))
        .bearer_auth(&token)
        .json(&json!({"agent": "Sales Assistant", "question": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let asked = body(r).await;
    assert_eq!(asked["run"]["unwatched"], true);
    assert_eq!(asked["run"]["state"], "answered");
    // Continuing the thread in a session is watched again.
    let thread = asked["thread"].as_i64().unwrap();
    let r = alice.post(app.url(&format!("/api/threads/{thread}/ask"))).json(&json!({"question": "and then?"})).send();
    let follow = body(r.await.unwrap()).await;
    assert_eq!(follow["run"]["unwatched"], false);
    assert_eq!(follow["thread"], asked["thread"]);
    let (_, thread) = app.get_json(&alice, &format!("/api/threads/{thread}")).await;
    assert_eq!(thread["messages"].as_array().unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_fails_or_hangs_ends_the_run_plainly_and_try_again_works() {
    let model = AgentModelServer::start().await;
    model.script([AgentReply::Status(500), AgentReply::Hang(Duration::from_secs(5))]);
    let app = spawn_app_with_agent_model(&model).await;
    write_sales_core(&app).await;
    let alice = app.sign_in("alice").await;

    let asked = ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    let run = &asked["run"];
    assert_eq!(run["state"], "failed");
    assert_eq!(run["failure"], "The model did not answer: the model answered with status 500");
    let last = run["steps"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["kind"].as_str(), last["line"].clone()), (Some("failed"), run["failure"].clone()));
    assert!(memory_step(run).is_some(), "what memory it was given stays on the run");

    // Try again: the hang is cut at the model's timeout and ends as plainly.
    let id = run["id"].as_i64().unwrap();
    let r = alice.post(app.url(&format!("/api/runs/{id}/retry"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let second = body(r).await;
    assert_eq!(second["run"]["failure"], "The model did not answer: the model did not answer within 2 s");
    assert_eq!(second["thread"], asked["thread"]);

    // Try again from step 2 keeps step 1 (the Memory used step) and answers.
    let id2 = second["run"]["id"].as_i64().unwrap();
    let r = alice.post(app.url(&format!("/api/runs/{id2}/steps/2/retry"))).send().await.unwrap();
    let third = body(r).await;
    assert_eq!(third["run"]["state"], "answered");
    assert_eq!(third["run"]["answer"], "The stand-in model's answer.");
    let steps = third["run"]["steps"].as_array().unwrap();
    assert_eq!(steps[0]["kind"], "memory_used");
    assert_eq!(steps.iter().filter(|s| s["kind"] == "memory_used").count(), 1);

    // Nothing was lost: the first runs are kept, closed as retried; the thread shows the answer.
    let (_, old) = app.get_json(&alice, &format!("/api/runs/{id}")).await;
    assert_eq!(old["state"], "retried");
    assert_eq!(old["failure"], "The model did not answer: the model answered with status 500");
    let thread = asked["thread"].as_i64().unwrap();
    let (_, t) = app.get_json(&alice, &format!("/api/threads/{thread}")).await;
    let m = t["messages"].as_array().unwrap();
    assert_eq!(m.len(), 2, "one question and its answer");
    assert_eq!(m[0]["run"]["id"], third["run"]["id"]);
    let r = alice.post(app.url(&format!("/api/runs/{id}/retry"))).send().await.unwrap();
    assert_eq!(body(r).await["message"], "This run was already tried again");

    // Every recorded request kept the same system prompt.
    let systems: Vec<String> = model.requests().iter().map(|r| messages(r).0).collect();
    assert_eq!(systems.len(), 3);
    assert!(systems.iter().all(|s| s == &systems[0]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_without_a_model_ends_plainly_and_the_answer_is_not_invented() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "hello").await;
    assert_eq!(asked["run"]["state"], "failed");
    let failure = asked["run"]["failure"].as_str().unwrap();
    assert!(failure.starts_with("The model did not answer: No chat model is set up for agents"), "{failure}");
    assert!(asked["run"]["answer"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_ask_prints_the_answer_and_the_memory_used_lines() {
    let model = AgentModelServer::start().await;
    model.script([AgentReply::answer("New, Qualified, Proposal, Won and Lost.")]);
    let app = spawn_app_with_agent_model(&model).await;
    write_sales_core(&app).await;
    let mut out = Vec::new();
    server::runs_cli::ask(&app.settings, "alice", "Sales Assistant", "what are our sales stages", &mut out)
        .await
        .expect("asked");
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out,
        "New, Qualified, Proposal, Won and Lost.\n\nMemory used: Read from memory: 1 core and who's who\n  \
         Sales company core, version 1\n  Who's who: The people and teams around this work\n"
    );
    let refused = server::runs_cli::ask(&app.settings, "nobody", "Sales Assistant", "hi", &mut Vec::new()).await;
    assert_eq!(refused.unwrap_err(), "There is no person called nobody");
}
