//! External runs over the REST pair, against the running server, the demo's Acme ATS and outbox
//! over HTTP: an outside agent holding Alice's API token takes the Sales Assistant's block, reads
//! through Engram, is refused a send of a value it only remembered, has a send wait in Alice's
//! Inbox until she approves it, and finishes with an answer whose check shows a change line.
//! Then the run takes no more calls, and a token beyond its rights changes nothing.

use crate::agent_model_server::AgentModelServer;
use crate::cards::{admin, lead};
use crate::helpers::*;
use crate::send_email::{sent, spawn_mailing_with};
use chrono::Duration;
use engine::runs::provenance::REFUSED;
use engine::runs::service::WAITING_FOR_APPROVAL;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

pub(crate) const PRIYA: &str = "priya.raman@nimbuslogistics.example";
pub(crate) const QUESTION: &str = "Where is L-1001? Then email Priya Raman about it";

fn step_lines(run: &Value) -> Vec<String> {
    run["steps"].as_array().unwrap().iter().map(|s| s["line"].as_str().unwrap().to_string()).collect()
}

pub(crate) fn quote_email() -> Value {
    json!({"to": PRIYA, "subject": "Quote", "body": "Revised quote attached."})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_agent_takes_a_whole_run_through_the_gate_and_its_answer_is_checked() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let app = &m.c.app;
    let token = token_for(app, "alice").await;
    // L-1001 moved on at the source, and its stage is past its soft limit of an hour: due.
    let before = lead(&m.c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    let mut rec = lead(&m.c.ats, "L-1001").await;
    rec["stage"] = json!("Won");
    assert!(admin(&m.c.ats, Method::PUT, "/admin/leads/L-1001", Some(rec)).await.is_success());
    app.clock.advance(Duration::minutes(61));

    let (status, started) =
        bearer_post(app, &token, "/api/runs/external", json!({"agent": "Sales Assistant", "question": QUESTION})).await;
    assert_eq!(status, StatusCode::CREATED, "{started}");
    let id = started["run"].as_i64().unwrap();
    let block = &started["block"];
    assert!(block["refs"].as_array().unwrap().iter().filter(|r| r["card"].is_string()).count() >= 2, "{block}");
    assert!(block["line"].as_str().unwrap().starts_with("Read from memory:"), "{block}");
    let text = block["text"].as_str().unwrap();
    assert!(text.contains("<data") && text.contains("L-1001"), "stored text comes quoted as data: {text}");
    let tools = started["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).cloned().unwrap_or(Value::Null);
    assert_eq!(tool("acme_ats__get_contact")["read_only"], true, "{tools:?}");
    assert_eq!(tool("engram__send_email")["read_only"], false, "{tools:?}");
    assert!(tool("acme_ats__get_contact")["parameters"].is_object());

    // Recorded as a run of kind external with its Memory used step and memory_used event.
    let (_, run) = bearer_get(app, &token, &format!("/api/runs/{id}")).await;
    assert_eq!((run["kind"].as_str(), run["state"].as_str()), (Some("external"), Some("running")), "{run}");
    assert_eq!(run["steps"][0]["kind"], "memory_used");
    let ada = app.sign_in("ada").await;
    let (_, events) = app.get_json(&ada, "/api/events").await;
    let used = events.as_array().unwrap().iter().filter(|e| e["name"] == "memory_used" && e["run"] == id).count();
    assert_eq!(used, 1, "{events}");

    // A send of Priya's address, which the run only remembers: refused with the seed's sentence.
    let tools_path = |name: &str| format!("/api/runs/{id}/tools/{name}");
    let (status, refused) = bearer_post(app, &token, &tools_path("engram__send_email"), quote_email()).await;
    assert_eq!(status, StatusCode::OK, "{refused}");
    assert_eq!((refused["kind"].as_str(), refused["result"].as_str()), (Some("refused"), Some(REFUSED)));
    let alice = app.sign_in("alice").await;
    let (_, inbox) = app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits");

    // A read through Engram, as Alice: quoted as data, and recorded.
    let (status, read) = bearer_post(app, &token, &tools_path("acme_ats__get_contact"), json!({"id": "C-2001"})).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["kind"], "tool_call");
    assert_eq!(read["line"], "Read with get_contact from Acme ATS and kept 1 as cards");
    let result = read["result"].as_str().unwrap();
    assert!(result.starts_with("<data source=\"Acme ATS\" tool=\"get_contact\"") && result.contains(PRIYA), "{result}");

    // Now the address was read in this run: the send waits in Alice's Inbox, and only her
    // approval sends it.
    let (status, waiting) = bearer_post(app, &token, &tools_path("engram__send_email"), quote_email()).await;
    assert_eq!(status, StatusCode::OK, "{waiting}");
    assert_eq!((waiting["kind"].as_str(), waiting["result"].as_str()), (Some("waiting"), Some(WAITING_FOR_APPROVAL)));
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing is sent before she approves");
    let (_, inbox) = app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox[0]["line"], format!("email to {PRIYA}: Quote"), "{inbox}");
    let action = inbox[0]["id"].as_i64().unwrap();
    let r = alice.post(app.url(&format!("/api/inbox/{action}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(sent(&m.outbox).await.len(), 1, "sent once approved");

    // The answer is checked before the finish returns: L-1001's stage changed at the source.
    let answer = "L-1001 is at Proposal; the quote waits for your approval.";
    let (status, done) = bearer_post(app, &token, &format!("/api/runs/{id}/finish"), json!({"answer": answer})).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!((done["state"].as_str(), done["answer"].as_str()), (Some("answered"), Some(answer)));
    assert_eq!(done["check"]["state"], "changed", "{done}");
    let lines: Vec<&str> = done["check"]["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(lines.contains(&format!("stage: {before} → Won (Acme ATS, read just now)").as_str()), "{lines:?}");
    let steps = step_lines(&done);
    assert!(steps.contains(&format!("Refused send_email: {REFUSED}")), "{steps:?}");
    assert!(steps.contains(&"Read with get_contact from Acme ATS and kept 1 as cards".to_string()), "{steps:?}");
    assert!(steps.contains(&format!("Waiting for your approval in the Inbox: email to {PRIYA}: Quote")), "{steps:?}");
    assert_eq!(done["data_label"], "internal", "{done}");
    assert!(done["sources"].as_array().unwrap().contains(&json!("Acme ATS")), "{done}");
    assert_eq!(done["model"], Value::Null, "no model of Engram answered");
    assert!(model.requests().is_empty(), "Engram's model was never asked");

    // The run ended there: no further calls are taken, and nothing is recorded.
    let (status, after) = bearer_post(app, &token, &tools_path("acme_ats__get_contact"), json!({"id": "C-2001"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{after}");
    assert_eq!(after["error"], "changed");
    assert_eq!(after["message"], "This run has ended and takes no more calls; start a new external run");
    let (status, again) = bearer_post(app, &token, &format!("/api/runs/{id}/finish"), json!({"answer": "x"})).await;
    assert_eq!((status, again["error"].as_str()), (StatusCode::CONFLICT, Some("changed")));
    let (_, run) = bearer_get(app, &token, &format!("/api/runs/{id}")).await;
    assert_eq!(run["steps"].as_array().unwrap().len(), done["steps"].as_array().unwrap().len());
    assert_eq!(run["answer"], answer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_beyond_the_tokens_rights_is_refused_in_words_and_changes_nothing() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let app = &m.c.app;
    let alice = token_for(app, "alice").await;
    let bob = token_for(app, "bob").await;

    // Alice's own note is hers alone: a token's block never carries it (only a session reads it).
    let session = app.sign_in("alice").await;
    let note = json!({"scope": "private", "text": "Dana Brooks at Litware reads mail at dana@litware.example"});
    let r = session.post(app.url("/api/knowledge")).json(&note).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let lesson = body(r).await["id"].as_i64().unwrap();
    let start = |q: &str, agent: Value| json!({"agent": agent, "question": q});
    let (status, started) =
        bearer_post(app, &alice, "/api/runs/external", start("email Dana at Litware", json!("Sales Assistant"))).await;
    assert_eq!(status, StatusCode::CREATED, "{started}");
    assert!(!started["block"]["refs"].as_array().unwrap().contains(&json!({"lesson": format!("lesson:{lesson}")})));
    assert!(!started["block"]["text"].as_str().unwrap().contains("litware.example"), "{started}");
    let id = started["run"].as_i64().unwrap();
    let steps = |v: &Value| v["steps"].as_array().unwrap().len();
    let (_, before) = bearer_get(app, &alice, &format!("/api/runs/{id}")).await;

    // Bad input, refused in words.
    let (status, r) = bearer_post(app, &alice, "/api/runs/external", start(" ", json!("Sales Assistant"))).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("Write a question first")));
    let (status, r) = bearer_post(app, &alice, "/api/runs/external", start("hello", json!("Nobody"))).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no agent called \"Nobody\"")));
    let (status, r) = bearer_post(app, &alice, &format!("/api/runs/{id}/tools/acme_ats__drop_table"), json!({})).await;
    assert_eq!(
        (status, r["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("This agent holds no tool called \"acme_ats__drop_table\""))
    );
    let (status, r) =
        bearer_post(app, &alice, &format!("/api/runs/{id}/tools/acme_ats__get_contact"), json!([1])).await;
    assert_eq!(
        (status, r["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("A tool's arguments are a JSON object"))
    );
    let (status, r) = bearer_post(app, &alice, &format!("/api/runs/{id}/finish"), json!({"answer": "  "})).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("Write the answer first")));

    // Another person's token: the run is no run to them, for a call and for the finish.
    let (status, r) =
        bearer_post(app, &bob, &format!("/api/runs/{id}/tools/acme_ats__get_contact"), json!({"id": "C-2001"})).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such run")));
    let (status, r) = bearer_post(app, &bob, &format!("/api/runs/{id}/finish"), json!({"answer": "Mine now"})).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such run")));
    // A revoked or unknown token is no one.
    let (status, r) = bearer_post(app, "eg_unknown", &format!("/api/runs/{id}/finish"), json!({"answer": "x"})).await;
    assert_eq!((status, r["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("bad_token")));
    // An external run is the outside agent's to finish: Try again does not take it over.
    let (status, r) = bearer_post(app, &alice, &format!("/api/runs/{id}/retry"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{r}");

    let (_, after) = bearer_get(app, &alice, &format!("/api/runs/{id}")).await;
    assert_eq!((steps(&after), after["state"].as_str()), (steps(&before), Some("running")), "{after}");
    assert!(model.requests().is_empty());
}
