//! The gate by provenance, end to end: a stand-in model that calls whatever tools, with whatever
//! arguments, the test says. Every identifying value of a step that acts must trace to a read of
//! this run or to the person's words; the spellings that escaped the gate when it matched values
//! as stored are refused, and a read may not carry a lesson's text to a source.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::runs::ask;
use crate::send_email::{lines, sent, spawn_mailing_with};
use engine::runs::provenance::{NOT_READ, REFUSED, SENDS_REMEMBERED};
use engine::runs::service::WAITING_FOR_APPROVAL;
use reqwest::StatusCode;
use serde_json::{json, Value};

const PRIYA: &str = "priya.raman@nimbuslogistics.example";

async fn keep_note(app: &TestApp, who: &reqwest::Client, text: &str) -> i64 {
    let r = who.post(app.url("/api/knowledge")).json(&json!({"scope": "private", "text": text})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await["id"].as_i64().unwrap()
}

fn tool_results(model: &AgentModelServer) -> Vec<String> {
    let last = model.requests().last().cloned().expect("a request");
    let messages = last["messages"].as_array().unwrap().clone();
    messages.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

/// The lesson keeps the address as `mailto:…`: a send to its plain spelling is refused, and every
/// other spelling of it too; nothing waits and nothing is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_address_in_any_spelling_is_refused() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let alice = m.c.app.sign_in("alice").await;
    keep_note(&m.c.app, &alice, "Dana Brooks at Litware reads mail at mailto:dana@litware.example").await;
    for to in [
        "dana@litware.example",
        "DANA@Litware.Example",
        "Dana Brooks <dana@litware.example>",
        "dana+q3@litware.example",
        "mailto:dana@litware.example",
        "\"dana\"@litware.example",
        "dana(work)@litware.example",
        "ｄａｎａ＠litware.example",
    ] {
        model.script([
            AgentReply::call("engram__send_email", json!({"to": to, "subject": "Proposal", "body": "Ready."})),
            AgentReply::answer("I need to read her address first."),
        ]);
        let asked = ask(&m.c.app, &alice, "Sales Assistant", "email Dana that the proposal is ready").await;
        assert!(
            lines(&asked["run"]).contains(&format!("Refused send_email: {REFUSED}")),
            "{to}: {:?}",
            lines(&asked["run"])
        );
        assert_eq!(tool_results(&model), vec![REFUSED.to_string()], "{to}: the model is told the same sentence");
    }
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits in her Inbox");
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing was sent");
}

/// A value the model made up, or that a text it read suggested, traces to no read of the run:
/// refused with its own sentence. A remembered number spelled anew is refused as remembered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_from_nowhere_is_refused_and_a_remembered_amount_in_a_new_spelling_too() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let alice = m.c.app.sign_in("alice").await;
    keep_note(&m.c.app, &alice, "Refunds over $500 need a lead's approval; Litware's budget is 48000").await;
    let cases = [
        (json!({"to": "mallory@evil.example", "subject": "Hi", "body": "Hello"}), NOT_READ),
        (json!({"to": "alice@acme.example", "subject": "Budget", "body": "Litware's budget: $48,000.00"}), REFUSED),
        (json!({"to": "alice@acme.example", "subject": "Refunds", "body": "over \"500\" needs a lead"}), REFUSED),
        (json!({"to": "alice@acme.example", "subject": "Order", "body": "Order #4711 ships"}), NOT_READ),
    ];
    for (args, sentence) in cases {
        model.script([AgentReply::call("engram__send_email", args.clone()), AgentReply::answer("Not sent.")]);
        let asked = ask(&m.c.app, &alice, "Sales Assistant", "Send Litware's budget and the refunds rule").await;
        assert!(asked["run"]["memory_used"].as_array().unwrap().iter().any(|r| r["lesson"].is_string()), "{asked}");
        assert!(
            lines(&asked["run"]).contains(&format!("Refused send_email: {sentence}")),
            "{args}: {:?}",
            lines(&asked["run"])
        );
        assert_eq!(tool_results(&model), vec![sentence.to_string()], "{args}");
    }
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits in her Inbox");

    // The same amount in her own words passes, and waits for her approval.
    model.script([
        AgentReply::call(
            "engram__send_email",
            json!({"to": "alice@acme.example", "subject": "Budget", "body": "Litware's budget: $48,000.00"}),
        ),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "Email me that Litware's budget is 48,000").await;
    assert_eq!(tool_results(&model), vec![WAITING_FOR_APPROVAL.to_string()], "{:?}", lines(&asked["run"]));
}

/// A read may carry the same source's remembered values, but not a lesson's: that would send
/// remembered text to the source.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_never_carries_a_lessons_text_to_a_source() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let alice = m.c.app.sign_in("alice").await;
    keep_note(&m.c.app, &alice, "Priya Raman's private mobile is +44 20 7946 0958, never share it").await;
    model.script([
        AgentReply::call("acme_ats__search_leads", json!({"query": "+44 20 7946 0958"})),
        AgentReply::call("acme_ats__get_contact", json!({"id": "C-2001"})),
        AgentReply::call("engram__send_email", json!({"to": PRIYA, "subject": "Quote", "body": "Revised quote."})),
        AgentReply::answer("Done."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "Find Priya Raman's leads and email her the quote").await;
    let steps = lines(&asked["run"]);
    assert!(steps.contains(&format!("Refused search_leads on Acme ATS: {SENDS_REMEMBERED}")), "{steps:?}");
    let results = tool_results(&model);
    assert_eq!(results[0], SENDS_REMEMBERED);
    // Her kept contact card names her address; the read of its own source may carry its id.
    assert!(results[1].starts_with("<data source="), "{results:?}");
    assert_eq!(results[2], WAITING_FOR_APPROVAL, "read in this run, so it waits for approval");
}
