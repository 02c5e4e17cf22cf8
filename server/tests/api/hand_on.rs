//! Handing work on (`create_task`), against the running server, the demo's Acme ATS and vault and
//! a stand-in model: a task holding a remembered value is refused with the seed's sentence and
//! nothing waits; one holding only what the run read waits in the Inbox, and once approved it is on
//! the bot's board, created by the person who approved it.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{person, spawn_cards_configured, Cards};
use crate::helpers::*;
use crate::runs::ask;
use crate::send_email::lines;
use engine::runs::provenance::REFUSED;
use engine::runs::service::WAITING_FOR_APPROVAL;
use reqwest::StatusCode;
use serde_json::json;

const KAVYA: &str = "kavya@mysurusilk.example";

/// The demo company with its bots' vault, agents answered by `model`.
async fn spawn_boards(model: &AgentModelServer) -> (Cards, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    demo::bots::ensure_vault(&server::vault::FsVault::new(&vault)).await.expect("the demo vault");
    let models = model.openai_settings();
    let c = spawn_cards_configured(move |s| {
        s.models = models;
        s.vault = Some(vault);
    })
    .await;
    (c, dir)
}

fn task_call() -> AgentReply {
    AgentReply::call(
        "engram__create_task",
        json!({"bot": "scout", "title": "Call Kavya", "body": format!("Write to {KAVYA} about the inventory sync.")}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_holding_a_remembered_value_is_refused_and_one_after_a_read_waits_then_lands_on_the_board() {
    let model = AgentModelServer::start().await;
    let (c, _vault) = spawn_boards(&model).await;
    let sam_p = person(&c.app, "sam").await;
    let kept = c.app.memory.reads.read_as(&sam_p, c.connector, "get_contact", &json!({"id": "C-2005"}), "test").await;
    assert_eq!(kept, Ok(1), "Kavya's contact is kept for Sam, scout's owner");
    let sam = c.app.sign_in("sam").await;

    // From memory: refused, the model told the same sentence, nothing waits.
    model.script([task_call(), AgentReply::answer("I need to read her address first.")]);
    let asked = ask(&c.app, &sam, "Sales Assistant", "Ask scout to write to Kavya Nair").await;
    let run = &asked["run"];
    assert!(run["memory_used"].as_array().unwrap().iter().any(|r| r["card"].is_string()), "{run}");
    assert!(lines(run).contains(&format!("Refused create_task: {REFUSED}")), "{:?}", lines(run));
    let offered =
        model.requests()[0]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "engram__create_task");
    assert!(offered, "an agent acting for a person may hand work on");
    let told = model.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["role"] == "tool" && m["content"] == REFUSED);
    assert!(told, "the model is told the sentence");
    let (_, inbox) = c.app.get_json(&sam, "/api/inbox").await;
    assert_eq!(inbox, json!([]), "nothing waits");

    // After reading her contact: it waits, and once approved it is on scout's board.
    model.script([
        AgentReply::call("acme_ats__get_contact", json!({"id": "C-2005"})),
        task_call(),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    let asked = ask(&c.app, &sam, "Sales Assistant", "Read Kavya Nair's contact, then ask scout to write to her").await;
    let steps = lines(&asked["run"]);
    assert!(
        steps.contains(&"Waiting for your approval in the Inbox: task for scout: Call Kavya".to_string()),
        "{steps:?}"
    );
    assert!(model.requests().last().unwrap()["messages"].to_string().contains(WAITING_FOR_APPROVAL));
    let (_, inbox) = c.app.get_json(&sam, "/api/inbox").await;
    assert_eq!(inbox[0]["line"], "task for scout: Call Kavya");
    let id = inbox[0]["id"].as_i64().unwrap();
    let r = sam.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await["state"], "done");
    let mut landed = None;
    for t in 1..200 {
        match c.app.store.task(t).await.unwrap() {
            Some(task) if task.title == "Call Kavya" => landed = Some(task),
            Some(_) => continue,
            None => break,
        }
    }
    let task = landed.expect("the task is on the board");
    assert_eq!(task.assignee.as_deref(), Some("scout"));
    assert_eq!(task.author, "person:sam@acme.example");
    assert_eq!(task.body, format!("Write to {KAVYA} about the inventory sync."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_for_a_bot_the_person_does_not_own_is_not_done_once_approved() {
    let model = AgentModelServer::start().await;
    let (c, _vault) = spawn_boards(&model).await;
    let alice = c.app.sign_in("alice").await;
    model.script([
        AgentReply::call("engram__create_task", json!({"bot": "scout", "title": "Tidy the pipeline"})),
        AgentReply::answer("It waits in your Inbox."),
    ]);
    ask(&c.app, &alice, "Sales Assistant", "Ask scout to tidy the pipeline").await;
    let (_, inbox) = c.app.get_json(&alice, "/api/inbox").await;
    let id = inbox[0]["id"].as_i64().unwrap();
    let r = alice.post(c.app.url(&format!("/api/inbox/{id}/approve"))).send().await.unwrap();
    let done = body(r).await;
    assert_eq!(done["state"], "failed", "{done}");
    assert!(done["outcome"].as_str().unwrap().contains("Only scout's owner"), "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_vault_there_is_no_board_and_no_create_task() {
    let model = AgentModelServer::start().await;
    let c = crate::cards::spawn_cards_with(model.openai_settings()).await;
    model.set_default(AgentReply::answer("Hello."));
    let alice = c.app.sign_in("alice").await;
    ask(&c.app, &alice, "Sales Assistant", "Say hello").await;
    let tools = model.requests()[0]["tools"].as_array().cloned().unwrap_or_default();
    assert!(!tools.iter().any(|t| t["function"]["name"] == "engram__create_task"), "{tools:?}");
}
