//! List snapshots against the running server, the demo's Acme ATS over HTTP and a stand-in model:
//! a list read as a person keeps which records it returned; asked again, the run loads the
//! snapshot and its cards, and the check runs the query once more and shows what is new.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{admin, lead, person, spawn_cards_with};
use crate::runs::ask;
use reqwest::Method;
use serde_json::{json, Value};

const TODAY: &str = "Leads with a follow-up today";

fn refs(run: &Value) -> Vec<Value> {
    run["memory_used"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_asked_again_loads_its_snapshot_and_the_check_shows_what_is_new() {
    let model = AgentModelServer::start().await;
    let c = spawn_cards_with(model.openai_settings()).await;
    model.set_default(AgentReply::answer("L-1001 and L-1002 have a follow-up today."));
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;
    // Her role's query kept today's follow-ups when the company was set up.
    let kept = c.app.store.snapshots_of(p.id).await.unwrap();
    let today = kept.iter().find(|s| s.asked == TODAY).expect("today's follow-ups were kept").clone();
    assert_eq!(today.records, ["L-1001", "L-1002"]);

    // Since then, Koramangala Coworks' follow-up moved to today at the source.
    let day = lead(&c.ats, "L-1001").await["next_follow_up"].clone();
    let mut l1003 = lead(&c.ats, "L-1003").await;
    l1003["next_follow_up"] = day;
    assert!(admin(&c.ats, Method::PUT, "/admin/leads/L-1003", Some(l1003)).await.is_success());

    let asked = ask(&c.app, &alice, "Sales Assistant", "Which leads have a follow-up today?").await;
    let run = &asked["run"];
    assert!(refs(run).contains(&json!({"snapshot": today.id.to_string()})), "{run}");
    assert_eq!(refs(run).iter().filter(|r| r["card"].is_string()).count(), 2, "its cards load beside it: {run}");
    let user = model.requests()[0]["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(user.contains(&format!("<data id=\"snapshot:{}\" source=\"Acme ATS\"", today.id)), "{user}");
    assert!(user.contains("records: L-1001, L-1002"), "{user}");
    let system = model.requests()[0]["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(!system.contains("L-1001"), "a snapshot is data, never the system prompt");

    assert_eq!(run["check"]["state"], "changed", "{run}");
    let lines: Vec<&str> = run["check"]["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(lines, [format!("{TODAY}: 1 new (L-1003) (Acme ATS, read just now)")]);
    let step = run["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "checked").unwrap();
    assert_eq!(step["line"], "Checked 1 list against Acme ATS: 1 new");

    // The check kept what it read: the snapshot before it is closed, the new one holds L-1003.
    let kept = c.app.store.snapshots_of(p.id).await.unwrap();
    let now = kept.iter().find(|s| s.asked == TODAY).unwrap();
    assert_ne!(now.id, today.id);
    assert_eq!(now.records, ["L-1001", "L-1002", "L-1003"]);
    assert_eq!(kept.len(), 2, "still two lists");

    // Asked again, nothing is new.
    let asked = ask(&c.app, &alice, "Sales Assistant", "Which leads have a follow-up today?").await;
    assert_eq!(asked["run"]["check"]["state"], "checked", "{}", asked["run"]);
    let step = asked["run"]["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "checked").cloned().unwrap();
    assert_eq!(step["line"], "Checked 1 list against Acme ATS: no change");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_a_run_reads_is_kept_as_a_snapshot_and_counted_as_a_list() {
    let model = AgentModelServer::start().await;
    let c = spawn_cards_with(model.openai_settings()).await;
    let alice = c.app.sign_in("alice").await;
    let (p, ada) = (person(&c.app, "alice").await, person(&c.app, "ada").await);
    let counts = c.app.memory.mine.counts_sentence(&ada, &p).await.unwrap();
    assert!(counts.ends_with("and 2 lists. What they say is theirs alone."), "{counts}");
    model.script([
        AgentReply::call("acme_ats__list_leads", json!({"owner": "alice@acme.example", "stage": "Qualified"})),
        AgentReply::answer("Kaveri Foods and Litware are qualified."),
    ]);
    ask(&c.app, &alice, "Sales Assistant", "my qualified leads").await;
    let kept = c.app.store.snapshots_of(p.id).await.unwrap();
    let mine = kept.iter().find(|s| s.asked == "my qualified leads").expect("the list the run read is kept");
    assert_eq!((mine.tool.as_str(), mine.records.clone()), ("list_leads", vec!["L-1002".into(), "L-1009".into()]));
    assert_eq!(mine.arguments, json!({"owner": "alice@acme.example", "stage": "Qualified"}));
    let counts = c.app.memory.mine.counts_sentence(&ada, &p).await.unwrap();
    assert!(counts.ends_with("and 3 lists. What they say is theirs alone."), "{counts}");

    // One record's read keeps no list.
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1003"})),
        AgentReply::answer("Koramangala Coworks is new."),
    ]);
    ask(&c.app, &alice, "Sales Assistant", "Where is L-1003?").await;
    assert_eq!(c.app.store.snapshots_of(p.id).await.unwrap().len(), 3);

    // Bob's lists are his own.
    let bob = person(&c.app, "bob").await;
    assert!(c.app.store.snapshots_of(bob.id).await.unwrap().iter().all(|s| s.person == bob.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_answered_with_no_list_is_not_checked_and_nothing_is_gone() {
    let model = AgentModelServer::start().await;
    let c = spawn_cards_with(model.openai_settings()).await;
    model.set_default(AgentReply::answer("Two leads."));
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;
    // A snapshot whose tool answers with one record, not a list.
    let odd = engine::cards::snapshots::NewSnapshot {
        person: p.id,
        connector: c.connector,
        tool: "get_lead".into(),
        arguments: json!({"id": "L-1001"}),
        asked: "my pilot leads".into(),
        records: vec!["L-1001".into(), "L-1002".into()],
        taken_at: engine::Clock::now(c.app.clock.as_ref()),
    };
    c.app.store.keep_snapshot(&odd).await.unwrap();
    let asked = ask(&c.app, &alice, "Sales Assistant", "my pilot leads").await;
    let check = &asked["run"]["check"];
    assert_eq!(check["state"], "not_checked", "{check}");
    assert_eq!(check["reason"], "Acme ATS did not answer get_lead with a list");
    assert!(!check["lines"].to_string().contains("gone"), "{check}");
}
