//! Seed 001's Dana Brooks demo against the running server, the demo's Acme ATS and outbox over
//! HTTP: Alice keeps a note with Dana's address; an email sent straight from it is refused and
//! nothing waits, while one sent after reading Litware's lead waits in her Inbox and is sent once
//! approved. Both plans run with the demo's own model, and the second with a stand-in model too
//! (the first is in `send_email`).

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::runs::ask;
use crate::send_email::{lines, sent, spawn_mailing_with, Mailing};
use engine::runs::provenance::REFUSED;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

const DANA: &str = "dana@litware.example";
const NOTE: &str = "Dana Brooks at Litware reads mail at dana@litware.example";

async fn keep_note(m: &Mailing, alice: &Client) -> i64 {
    let note = json!({"scope": "private", "text": NOTE});
    let r = alice.post(m.c.app.url("/api/knowledge")).json(&note).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await["id"].as_i64().unwrap()
}

/// The message waiting in Alice's Inbox, approved: what the outbox then holds.
async fn approve_the_one_waiting(m: &Mailing, alice: &Client, line: &str) -> Vec<Value> {
    let (_, inbox) = m.c.app.get_json(alice, "/api/inbox").await;
    assert_eq!(inbox.as_array().unwrap().len(), 1, "{inbox}");
    assert_eq!(inbox[0]["line"], line);
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing is sent before she approves");
    let id = inbox[0]["id"].as_i64().unwrap();
    let r = alice.post(m.c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    sent(&m.outbox).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_model_plans_both_ways_and_only_the_read_address_waits_for_approval() {
    let (model, _model_task) = demo::model::spawn(0).await.expect("the demo model");
    let mut models = crate::model_server::no_models();
    server::agent_model::use_demo_model(&mut models, &model);
    let m = spawn_mailing_with(models).await;
    let alice = m.c.app.sign_in("alice").await;
    let note = keep_note(&m, &alice).await;

    let asked = ask(&m.c.app, &alice, "Sales Assistant", "email Dana that the proposal is ready").await;
    let run = &asked["run"];
    assert!(run["memory_used"].as_array().unwrap().contains(&json!({"lesson": format!("lesson:{note}")})), "{run}");
    assert!(lines(run).contains(&format!("Refused send_email: {REFUSED}")), "{:?}", lines(run));
    assert_eq!(run["answer"], format!("I did not send the email to {DANA}: {REFUSED}."));
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits in her Inbox");

    let asked = ask(&m.c.app, &alice, "Sales Assistant", "read Litware's lead, then email Dana").await;
    let run = &asked["run"];
    let steps = lines(run);
    assert!(steps.iter().any(|l| l.contains("search_leads")), "the lead is read first: {steps:?}");
    let line = format!("email to {DANA}: Following up");
    assert!(steps.contains(&format!("Waiting for your approval in the Inbox: {line}")), "{steps:?}");
    assert_eq!(run["answer"], format!("The email to {DANA} waits in your Inbox for your approval."));
    let outbox = approve_the_one_waiting(&m, &alice, &line).await;
    assert_eq!(
        outbox,
        vec![json!({"from": "alice@acme.example", "to": DANA, "subject": "Following up",
                    "body": "Hi Dana,\n\nI wanted to follow up with you."})]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stand_in_model_that_reads_litwares_lead_first_may_send_to_the_address_it_read() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let alice = m.c.app.sign_in("alice").await;
    keep_note(&m, &alice).await;
    let message = json!({"to": DANA, "subject": "Proposal", "body": "The proposal is ready."});
    model.script([
        AgentReply::call("acme_ats__search_leads", json!({"query": "Litware"})),
        AgentReply::call("engram__send_email", message.clone()),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "read Litware's lead, then email Dana").await;
    let line = format!("email to {DANA}: Proposal");
    assert!(lines(&asked["run"]).contains(&format!("Waiting for your approval in the Inbox: {line}")));
    let read = model.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["role"] == "tool" && m["content"].as_str().unwrap().contains("Dana Brooks"));
    assert!(read, "the model was given the lead, Dana's address in it");
    let outbox = approve_the_one_waiting(&m, &alice, &line).await;
    assert_eq!(
        outbox,
        vec![
            json!({"from": "alice@acme.example", "to": DANA, "subject": "Proposal", "body": "The proposal is ready."})
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lesson_is_kept_and_corrected_from_the_memory_page_and_a_refused_one_keeps_its_text() {
    let c = crate::cards::spawn_cards().await;
    let alice = c.app.sign_in("alice").await;
    let r = c.app.form_post(&alice, "/fn/keep_lesson", &[("text", NOTE)]).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Kept. Your own asks read it as data"), "the notice says so");
    assert!(html.contains(&format!(r#"<span class="text">{NOTE}</span>"#)), "the lesson is listed");
    let (_, mine) = c.app.get_json(&alice, "/api/knowledge").await;
    assert_eq!(mine[0]["text"], NOTE);

    // Too long: refused with the reason, the text kept in the form, nothing kept.
    let long = "x".repeat(1_001);
    let r = c.app.form_post(&alice, "/fn/keep_lesson", &[("text", &long), ("scope", "team")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("A lesson holds at most 1000 characters; this one has 1001"), "the reason is shown");
    assert!(html.contains(&long), "the text is kept for the form");
    assert!(html.contains(r#"<option value="team" selected"#), "and whom it was for");
    assert!(!html.contains(r#"<option value="private" selected"#));
    let (_, mine) = c.app.get_json(&alice, "/api/knowledge").await;
    assert_eq!(mine.as_array().unwrap().len(), 1);

    // A refused correction keeps what she typed, in that lesson's open Correct form.
    let id = mine[0]["id"].as_i64().unwrap().to_string();
    let r = c.app.form_post(&alice, "/fn/correct_lesson", &[("id", &id), ("text", &long)]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("A lesson holds at most 1000 characters; this one has 1001"));
    assert!(html.contains(&format!("{long}</textarea>")), "the correction is kept for its form");
    assert!(html.contains("<details open"), "its form is open");
    let (_, mine) = c.app.get_json(&alice, "/api/knowledge").await;
    assert_eq!((mine.as_array().unwrap().len(), &mine[0]["text"]), (1, &json!(NOTE)), "nothing changed");

    let corrected = "Dana Brooks at Litware reads mail at dana.brooks@litware.example";
    let r = c.app.form_post(&alice, "/fn/correct_lesson", &[("id", &id), ("text", corrected)]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&alice, "/profile/memory").await;
    assert!(html.contains("Corrected. The earlier lesson stays in your history."));
    assert!(html.contains("No longer current"));

    // Forget asks first, naming the lesson; it asks Bob nothing about Alice's.
    let (_, mine) = c.app.get_json(&alice, "/api/knowledge").await;
    let current = mine.as_array().unwrap().iter().find(|l| l["text"] == corrected).unwrap()["id"].as_i64().unwrap();
    let (_, html) = c.app.page(&alice, &format!("/profile/memory?forget_lesson={current}")).await;
    assert!(html.contains(r#"aria-label="Forget this lesson?""#), "it asks first");
    assert!(html.contains("It is removed from your memory with the versions it replaced."));
    let bob = c.app.sign_in("bob").await;
    let (_, html) = c.app.page(&bob, &format!("/profile/memory?forget_lesson={current}")).await;
    assert!(!html.contains("Forget this lesson?"), "nothing to ask about");

    // Bob's page lists only his own.
    assert!(!html.contains("litware"), "another person's lesson is never shown");
}
