//! `send_email`, against the running server, the demo's Acme ATS and outbox over HTTP and a
//! stand-in model: a message to a remembered address is refused with the seed's sentence and
//! nothing waits; after a read it waits in the person's Inbox and reaches the outbox only once
//! approved; without an outbox, agents are not offered the tool.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{person, spawn_cards_configured, spawn_cards_with, Cards};
use crate::helpers::*;
use crate::runs::ask;
use engine::runs::provenance::REFUSED;
use engine::runs::service::WAITING_FOR_APPROVAL;
use reqwest::StatusCode;
use serde_json::{json, Value};

const PRIYA: &str = "priya.raman@nimbuslogistics.example";

pub(crate) struct Mailing {
    pub(crate) c: Cards,
    pub(crate) outbox: String,
    _outbox_task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// The demo company with the demo's outbox; Alice keeps Priya's contact card from an earlier read.
async fn spawn_mailing(model: &AgentModelServer) -> Mailing {
    spawn_mailing_with(model.openai_settings()).await
}

/// The same, with agents answered by `models`.
pub(crate) async fn spawn_mailing_with(models: server::llm::ModelSettings) -> Mailing {
    let (outbox, task) = demo::outbox::spawn(0).await.expect("the demo outbox");
    let url = outbox.clone();
    let c = spawn_cards_configured(move |s| {
        s.models = models;
        s.outbox_url = Some(url);
    })
    .await;
    let alice = person(&c.app, "alice").await;
    let kept = c.app.memory.reads.read_as(&alice, c.connector, "get_contact", &json!({"id": "C-2001"}), "test").await;
    assert_eq!(kept, Ok(1), "Priya's contact is kept for Alice");
    Mailing { c, outbox, _outbox_task: task }
}

pub(crate) async fn sent(outbox: &str) -> Vec<Value> {
    reqwest::get(format!("{outbox}/messages")).await.unwrap().json().await.unwrap()
}

pub(crate) fn lines(run: &Value) -> Vec<String> {
    run["steps"].as_array().unwrap().iter().map(|s| s["line"].as_str().unwrap().to_string()).collect()
}

fn tool_results(model: &AgentModelServer) -> Vec<String> {
    let last = model.requests().last().cloned().expect("a request");
    let messages = last["messages"].as_array().unwrap().clone();
    messages.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_email_to_a_remembered_address_is_refused_and_nothing_waits() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing(&model).await;
    let alice = m.c.app.sign_in("alice").await;
    model.script([
        AgentReply::call(
            "engram__send_email",
            json!({"to": PRIYA, "subject": "Quote", "body": "Revised quote attached."}),
        ),
        AgentReply::answer("I could not send it without reading her address first."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "Email Priya Raman the revised quote").await;
    let run = &asked["run"];
    assert!(run["memory_used"].as_array().unwrap().iter().any(|r| r["card"].is_string()), "{run}");
    assert!(lines(run).contains(&format!("Refused send_email: {REFUSED}")), "{:?}", lines(run));
    assert_eq!(tool_results(&model), vec![REFUSED.to_string()], "the model is told the same sentence");
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits in her Inbox");
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing was sent");
    let offered =
        model.requests()[0]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "engram__send_email");
    assert!(offered, "an agent acting for a person is offered send_email");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_read_the_email_waits_in_the_inbox_and_is_sent_only_once_approved() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing(&model).await;
    let alice = m.c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("acme_ats__get_contact", json!({"id": "C-2001"})),
        AgentReply::call(
            "engram__send_email",
            json!({"to": PRIYA, "subject": "Quote", "body": "Revised quote attached."}),
        ),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    let asked =
        ask(&m.c.app, &alice, "Sales Assistant", "Read Priya Raman's contact, then email her the revised quote").await;
    let steps = lines(&asked["run"]);
    let waiting = format!("Waiting for your approval in the Inbox: email to {PRIYA}: Quote");
    assert!(steps.contains(&waiting), "{steps:?}");
    assert_eq!(tool_results(&model)[1], WAITING_FOR_APPROVAL);
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing is sent before she approves");

    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox[0]["line"], format!("email to {PRIYA}: Quote"));
    let id = inbox[0]["id"].as_i64().unwrap();
    let r = alice.post(m.c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let done = body(r).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(
        sent(&m.outbox).await,
        vec![json!({"from": "alice@acme.example", "to": PRIYA, "subject": "Quote", "body": "Revised quote attached."})]
    );
    let r = alice.post(m.c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT, "sent once");
    assert_eq!(sent(&m.outbox).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_without_an_address_is_not_sent_and_without_an_outbox_there_is_no_tool() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing(&model).await;
    let alice = m.c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("engram__send_email", json!({"to": "the team", "subject": "Hello", "body": "Hi"})),
        AgentReply::answer("I need an address."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "Say hello to the team").await;
    assert!(lines(&asked["run"]).contains(&"Not sent: “the team” is not an email address".to_string()));
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]));

    let model = AgentModelServer::start().await;
    let c = spawn_cards_with(model.openai_settings()).await;
    model.set_default(AgentReply::answer("Hello."));
    let alice = c.app.sign_in("alice").await;
    ask(&c.app, &alice, "Sales Assistant", "Say hello").await;
    let tools = model.requests()[0]["tools"].as_array().cloned().unwrap_or_default();
    assert!(!tools.iter().any(|t| t["function"]["name"] == "engram__send_email"), "no outbox, no send_email");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_note_loads_into_its_persons_asks_and_its_address_is_remembered() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing(&model).await;
    let alice = m.c.app.sign_in("alice").await;
    let note = json!({"scope": "private", "text": "Dana Brooks at Litware reads mail at dana@litware.example"});
    let r = alice.post(m.c.app.url("/api/knowledge")).json(&note).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let kept = body(r).await;
    let id = kept["id"].as_i64().unwrap();
    assert_eq!(kept["text"], note["text"]);

    // A known scope, only in a session, and never empty.
    let r = alice
        .post(m.c.app.url("/api/knowledge"))
        .json(&json!({"scope": "partners", "text": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "The scope is “private”, “team”, “company” or “partner”, not “partners”");
    let r = alice
        .post(m.c.app.url("/api/knowledge"))
        .json(&json!({"scope": "private", "text": "  "}))
        .send()
        .await
        .unwrap();
    assert_eq!(body(r).await["message"], "Write the lesson first");
    let r = alice.post(m.c.app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = client().post(m.c.app.url("/api/knowledge")).bearer_auth(&token).json(&note).send().await.unwrap();
    assert_eq!(body(r).await["error"], "session_required");
    let r = client().get(m.c.app.url("/api/knowledge")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(body(r).await["error"], "session_required");
    let (_, mine) = m.c.app.get_json(&alice, "/api/knowledge").await;
    assert_eq!(mine.as_array().unwrap().len(), 1);

    // Asked to email Dana, the model sends straight to the address her note remembers: refused.
    model.script([
        AgentReply::call(
            "engram__send_email",
            json!({"to": "dana@litware.example", "subject": "Proposal", "body": "The proposal is ready."}),
        ),
        AgentReply::answer("I need to read Dana's address first."),
    ]);
    let asked = ask(&m.c.app, &alice, "Sales Assistant", "email Dana that the proposal is ready").await;
    let run = &asked["run"];
    assert!(run["memory_used"].as_array().unwrap().contains(&json!({"lesson": format!("lesson:{id}")})), "{run}");
    assert!(lines(run).contains(&format!("Refused send_email: {REFUSED}")), "{:?}", lines(run));
    let user = model.requests()[0]["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(user.contains(&format!(r#"<data id="lesson:{id}" source="your own words""#)), "{user}");
    let system = model.requests()[0]["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(!system.contains("litware"), "a note never reaches the system prompt");
    let (_, inbox) = m.c.app.get_json(&alice, "/api/inbox").await;
    assert_eq!(inbox, json!([]));

    // Bob's asks never load Alice's note.
    let bob = m.c.app.sign_in("bob").await;
    model.set_default(AgentReply::answer("Nothing on Dana."));
    let asked = ask(&m.c.app, &bob, "Sales Assistant", "email Dana that the proposal is ready").await;
    assert!(!asked["run"]["memory_used"].to_string().contains("lesson:"), "{}", asked["run"]);
}
