//! Never act from memory, against the running server, the demo's Acme ATS over HTTP and a stand-in
//! model: a tool that acts on a remembered value is refused with the seed's sentence and nothing
//! waits; after a read it waits in the person's Inbox, and acts only once they approve.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{lead, person, spawn_cards_with, Cards};
use crate::helpers::*;
use crate::runs::ask;
use engine::runs::provenance::REFUSED;
use engine::runs::service::{RunRequest, WAITING_FOR_APPROVAL};
use engine::runs::RunKind;
use reqwest::StatusCode;
use serde_json::{json, Value};

const NIMBUS: &str = "Move Nimbus Logistics to Won";

/// Alice's Sales Assistant may call Acme ATS's update_lead: an admin ticked it.
async fn spawn_acting(model: &AgentModelServer) -> Cards {
    let c = spawn_cards_with(model.openai_settings()).await;
    let ada = person(&c.app, "ada").await;
    c.app.memory.connectors.tick_tool(&ada, c.connector, "update_lead", true).await.unwrap();
    let ats = c.app.store.connector(c.connector).await.unwrap().unwrap();
    assert_eq!(ats.acting, vec!["update_lead".to_string()], "ticked as a tool that acts");
    assert!(!ats.ticked.contains(&"update_lead".to_string()), "and never among the read tools");
    c
}

fn lines(run: &Value) -> Vec<String> {
    run["steps"].as_array().unwrap().iter().map(|s| s["line"].as_str().unwrap().to_string()).collect()
}

/// What the model was told for its tool calls, in order.
fn tool_results(model: &AgentModelServer) -> Vec<String> {
    let last = model.requests().last().cloned().expect("a request");
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_acts_on_a_remembered_value_is_refused_and_nothing_waits() {
    let model = AgentModelServer::start().await;
    let c = spawn_acting(&model).await;
    let alice = c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Won"})),
        AgentReply::answer("I could not change it without reading it first."),
    ]);
    let asked = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let run = &asked["run"];
    assert!(
        run["memory_used"].as_array().unwrap().iter().any(|r| r["card"].is_string()),
        "the lead is in the run's memory: {run}"
    );
    assert!(
        lines(run).contains(&format!("Refused update_lead on Acme ATS: {REFUSED}")),
        "the run shows the refused step: {:?}",
        lines(run)
    );
    assert_eq!(REFUSED, "This uses a remembered value; read the source first");
    assert_eq!(tool_results(&model), vec![REFUSED.to_string()], "the model is told the same sentence");
    let (status, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(inbox, json!([]), "nothing waits in her Inbox");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal", "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_read_it_waits_in_the_inbox_and_acts_only_once_approved() {
    let model = AgentModelServer::start().await;
    let c = spawn_acting(&model).await;
    let alice = c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Won"})),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    let asked = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let steps = lines(&asked["run"]);
    assert!(steps.iter().any(|s| s.starts_with("Read with get_lead from Acme ATS")), "{steps:?}");
    assert!(
        steps.contains(&"Waiting for your approval in the Inbox: update_lead on Acme ATS".to_string()),
        "{steps:?}"
    );
    assert_eq!(tool_results(&model)[1], WAITING_FOR_APPROVAL);
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal", "nothing acts before she approves");

    let (_, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    let waiting = &inbox[0];
    assert_eq!(inbox.as_array().unwrap().len(), 1);
    assert_eq!(waiting["line"], "update_lead on Acme ATS");
    assert_eq!(waiting["state"], "waiting");
    assert_eq!(waiting["arguments"], json!({"id": "L-1001", "stage": "Won"}));
    assert_eq!(waiting["agent"], "Sales Assistant");
    assert_eq!(waiting["thread"], asked["thread"]);
    let id = waiting["id"].as_i64().unwrap();

    // Her Inbox is hers: not another person's, and not a token's.
    let bob = c.app.sign_in("bob").await;
    let (_, bobs) = c.app.get_json(&bob, "/api/inbox").await;
    assert_eq!(bobs, json!([]));
    let r = bob.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(body(r).await["message"], "There is no such action in your Inbox");
    let r = alice.post(c.app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = client().post(c.app.url(&format!("/api/inbox/{id}/approve"))).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");
    let r = client().get(c.app.url("/api/inbox")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(body(r).await["error"], "session_required");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal");

    let r = alice.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let done = body(r).await;
    assert_eq!(
        (done["state"].as_str(), done["outcome"].as_str()),
        (Some("done"), Some("Done: update_lead on Acme ATS"))
    );
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Won", "approved, it acts at the source");
    let r = alice.post(c.app.url(&format!("/api/inbox/{id}/decline"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(body(r).await["message"], "This was already decided");
    let audit = c.app.store.audit_log(50).await.unwrap();
    assert!(audit.iter().any(|e| e.action == "inbox.approved" && e.subject == format!("inbox_action:{id}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_action_never_acts_and_a_scheduled_run_acts_only_through_its_owners_inbox() {
    let model = AgentModelServer::start().await;
    let c = spawn_acting(&model).await;
    let alice = c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Lost"})),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let (_, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    let id = inbox[0]["id"].as_i64().unwrap();
    let r = alice.post(c.app.url(&format!("/api/inbox/{id}/decline"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await["state"], "declined");
    let r = alice.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(body(r).await["message"], "This was already decided");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal", "declined, nothing acts");
    let (_, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox[0]["state"], "declined", "kept, never deleted");

    // A schedule acts for nobody: what it would do waits in the Inbox of its agent's owner (Ada),
    // and nothing acts until she approves it.
    let sales = c.app.store.directory().await.unwrap().agents.iter().find(|a| a.name == "Sales Assistant").unwrap().id;
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Won"})),
        AgentReply::answer("Not done."),
    ]);
    let started = c
        .app
        .runs
        .start(RunRequest { kind: RunKind::Schedule, agent: sales, for_person: None, question: NIMBUS.into() })
        .await
        .unwrap();
    let run = c.app.runs.answering.execute(started.run).await.unwrap();
    assert!(
        run.steps.iter().any(|s| s.line == "Waiting for your approval in the Inbox: update_lead on Acme ATS"),
        "{:?}",
        run.steps
    );
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal", "nothing acts unapproved");
    let ada = c.app.sign_in("ada").await;
    let (_, owners) = c.app.get_json(&ada, "/api/inbox").await;
    assert_eq!((owners[0]["thread"].as_i64(), owners[0]["state"].as_str()), (Some(started.thread.0), Some("waiting")));
    let (_, alices) = c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(alices.as_array().unwrap().len(), 1, "only her own declined one: {alices}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_page_shows_what_waits_and_approves_with_a_plain_form_post() {
    let model = AgentModelServer::start().await;
    let c = spawn_acting(&model).await;
    let alice = c.app.sign_in("alice").await;
    let (_, empty) = c.app.page(&alice, "/inbox").await;
    assert!(plain(&empty).contains("Nothing waits in your Inbox."));
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Won"})),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let (status, html) = c.app.page(&alice, "/inbox").await;
    assert_eq!(status, StatusCode::OK);
    let text = plain(&html);
    assert!(text.contains("update_lead on Acme ATS</strong> · asked by Sales Assistant"), "{text}");
    assert!(text.contains("Waiting for you") && text.contains("\"stage\": \"Won\""), "{text}");
    let (_, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    let id = inbox[0]["id"].as_i64().unwrap().to_string();

    // Bob's post for her action changes nothing.
    let bob = c.app.sign_in("bob").await;
    c.app.form_post(&bob, "/fn/decide_action", &[("id", &id), ("approve", "true")]).await;
    let (_, bobs) = c.app.page(&bob, "/inbox").await;
    assert!(plain(&bobs).contains("There is no such action in your Inbox"), "{}", plain(&bobs));
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal");

    let r = c.app.form_post(&alice, "/fn/decide_action", &[("id", &id), ("approve", "true")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&alice, "/inbox").await;
    let text = plain(&html);
    assert!(text.contains("Done: update_lead on Acme ATS"), "{text}");
    assert!(!html.contains(">Approve<"), "a decided action offers no buttons");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Won");

    let signed_out = client().get(c.app.url("/inbox")).send().await.unwrap();
    assert!(signed_out.status().is_redirection(), "the Inbox needs a sign-in");
}

/// Alice's run reads L-1001 and plans its change; it waits in her Inbox. Returns the action's id.
async fn planned_change(c: &Cards, model: &AgentModelServer, alice: &reqwest::Client) -> String {
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::call("acme_ats__update_lead", json!({"id": "L-1001", "stage": "Won"})),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    ask(&c.app, alice, "Sales Assistant", NIMBUS).await;
    let (_, inbox) = c.app.get_json(alice, "/api/inbox").await;
    inbox[0]["id"].as_i64().unwrap().to_string()
}

async fn approve(c: &Cards, alice: &reqwest::Client, id: &str) -> Value {
    body(alice.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_target_reads_the_record_first_and_says_why_a_change_cannot_go() {
    use crate::cards::admin;
    let model = AgentModelServer::start().await;
    let c = spawn_acting(&model).await;
    let ada = c.app.sign_in("ada").await;
    let set =
        |body: Value| ada.post(c.app.url(&format!("/api/connectors/{}/write-targets", c.connector))).json(&body).send();
    let r = set(json!({"tool": "update_lead", "kind": "deal", "id_argument": "id"})).await.unwrap();
    assert_eq!(body(r).await["message"], "Acme ATS has no confirmed read shape of deal records");
    let r = set(json!({"tool": "get_lead", "kind": "lead", "id_argument": "id"})).await.unwrap();
    assert_eq!(body(r).await["message"], "get_lead is not a ticked tool that acts of Acme ATS");
    let r = set(json!({"tool": "update_lead", "kind": "lead", "id_argument": " "})).await.unwrap();
    assert_eq!(body(r).await["message"], "Name the argument that holds the record's id");
    let alice = c.app.sign_in("alice").await;
    let r = alice
        .post(c.app.url(&format!("/api/connectors/{}/write-targets", c.connector)))
        .json(&json!({"tool": "update_lead", "kind": "lead", "id_argument": "id"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "only an admin sets it");
    let r = set(json!({"tool": "update_lead", "kind": "lead", "id_argument": "id"})).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await["write_targets"], json!([{"tool": "update_lead", "kind": "lead", "id_argument": "id"}]));

    // Changed at the source after her run read it: refused, and nothing written.
    let id = planned_change(&c, &model, &alice).await;
    let mut rec = lead(&c.ats, "L-1001").await;
    rec["notes"] = json!("Priya called back.");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1001", Some(rec)).await.is_success());
    let failed = approve(&c, &alice, &id).await;
    assert_eq!(failed["state"], "failed");
    assert_eq!(failed["outcome"], "Not done: Nimbus Logistics changed since it was read; read it again");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Proposal");

    // Read again by the next run, unchanged since: it goes.
    let id = planned_change(&c, &model, &alice).await;
    assert_eq!(approve(&c, &alice, &id).await["outcome"], "Done: update_lead on Acme ATS");
    assert_eq!(lead(&c.ats, "L-1001").await["stage"], "Won");

    // A source that cannot be read first: nothing is changed.
    let id = planned_change(&c, &model, &alice).await;
    let admin_p = crate::cards::person(&c.app, "ada").await;
    c.app
        .store
        .set_killed(c.connector, true, engine::store::Actor { person: Some(admin_p.id), at: chrono::Utc::now() })
        .await
        .unwrap();
    let failed = approve(&c, &alice, &id).await;
    let outcome = failed["outcome"].as_str().unwrap();
    assert!(outcome.starts_with("Not done: Nimbus Logistics could not be read before the change: "), "{outcome}");
    c.app
        .store
        .set_killed(c.connector, false, engine::store::Actor { person: Some(admin_p.id), at: chrono::Utc::now() })
        .await
        .unwrap();

    // Gone at the source.
    let id = planned_change(&c, &model, &alice).await;
    assert!(admin(&c.ats, reqwest::Method::DELETE, "/admin/leads/L-1001", None).await.is_success());
    assert_eq!(approve(&c, &alice, &id).await["outcome"], "Not done: Nimbus Logistics is no longer at Acme ATS");
}
