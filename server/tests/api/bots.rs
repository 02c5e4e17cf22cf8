//! The bots' side against the running server: wakes, episodes, reflect with a stand-in model
//! over real HTTP, the daily cap, proposals, corrections and bot-token isolation.

use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post};
use crate::model_server::{ModelServer, Script};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

const FRICTION: &str = "I lose time when a lead's website blocks my search tool.";

fn ops(v: Value) -> String {
    v.to_string()
}

/// One dispatched wake, as the dispatcher reports it with the owner's token: a task, a wake, the
/// bot's own status, then wake-done. Returns wake-done's answer.
async fn dispatch(app: &TestApp, token: &str, agent: &str, wake: &str, turns: u32) -> Value {
    let (s, task) =
        post(app, token, "/api/org/tasks", json!({"agent": agent, "title": format!("Card for {wake}")})).await;
    assert_eq!(s, StatusCode::CREATED, "{task}");
    let task = task["id"].as_i64().unwrap();
    let (s, w) = post(app, token, "/api/org/wake", json!({"agent": agent, "task": task, "reason": "assigned"})).await;
    assert_eq!(s, StatusCode::CREATED, "{w}");
    let (s, _) = post(app, token, &format!("/api/org/tasks/{task}/status"), json!({"status": "done"})).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, done) = post(
        app,
        token,
        "/api/org/wake-done",
        json!({"wakeups": [w["id"]], "run": wake, "exit": 0, "result": "Finished the card.", "turns": turns, "cost_usd": 0.5, "duration_s": 60.0}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "wake-done always succeeds: {done}");
    done
}

fn skipped(done: &Value) -> String {
    done["reflect"]["outcome"]["Skipped"].as_str().unwrap_or_default().to_string()
}

async fn memory(app: &TestApp, token: &str, agent: &str, all: bool) -> Vec<Value> {
    let (s, v) = get(app, token, &format!("/api/org/agents/{agent}/memory?all={all}")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v.as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn good_operations_are_applied_rendered_and_a_second_wake_done_is_a_no_op() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    model.reply(&ops(json!({"operations": [
        {"op": "add", "kind": "lesson", "text": "I check the CRM before I research a company."},
        {"op": "add", "kind": "friction", "text": FRICTION}
    ]})));
    let done = dispatch(&app, &sam, "scout", "r1", 4).await;
    assert_eq!(done["episode"]["outcome"], "done");
    assert_eq!(
        done["episode"]["summary"],
        "I finished task #1 \u{201c}Card for r1\u{201d} after 4 turns: Finished the card."
    );
    assert_eq!(done["reflect"]["outcome"]["Applied"]["added"].as_array().unwrap().len(), 2);
    let rows = memory(&app, &sam, "scout", false).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["evidence"], json!([done["episode"]["id"]]));

    let core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap();
    assert!(core.contains("- [friction] I lose time when a lead's website blocks my search tool. (seen 1×"), "{core}");

    // What the model saw: the fixed system prompt, and the episode and memory only in the user message.
    let asked = model.asked();
    assert_eq!(asked.len(), 1);
    let system = asked[0]["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("Card for r1"));
    assert!(asked[0]["messages"][1]["content"].as_str().unwrap().contains("Card for r1"));

    // The dispatcher retries: nothing is recorded twice and the model is not asked again.
    let (s, w) = post(&app, &sam, "/api/org/wake", json!({"agent": "scout", "reason": "retry"})).await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, again) =
        post(&app, &sam, "/api/org/wake-done", json!({"wakeups": [w["id"]], "run": "r1", "exit": 0, "turns": 4})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["episode"]["id"], done["episode"]["id"]);
    let (_, eps) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps.as_array().unwrap().len(), 1);
    assert_eq!(model.asked().len(), 1);

    // A repeat bumps the count and adds the evidence; new wording supersedes.
    let lesson = rows.iter().find(|r| r["kind"] == "lesson").unwrap()["id"].as_i64().unwrap();
    let friction = rows.iter().find(|r| r["kind"] == "friction").unwrap()["id"].as_i64().unwrap();
    model.reply(&ops(json!({"operations": [
        {"op": "update", "id": friction},
        {"op": "update", "id": lesson, "text": "I look the company up in the CRM before any research."}
    ]})));
    // Self-improvement is asked for once the friction is seen twice; this reply is not JSON.
    model.reply("I would rather not.");
    let done = dispatch(&app, &sam, "scout", "r2", 3).await;
    assert_eq!(done["reflect"]["outcome"]["Applied"]["repeated"], json!([friction]));
    let all = memory(&app, &sam, "scout", true).await;
    let old = all.iter().find(|r| r["id"] == lesson).unwrap();
    assert_eq!(old["active"], false);
    assert!(old["closed_reason"].as_str().unwrap().starts_with("superseded"));
    let f = all.iter().find(|r| r["id"] == friction).unwrap();
    assert_eq!(f["times_seen"], 2);
    assert_eq!(f["evidence"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_fails_in_any_way_never_fails_wake_done() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    model.script([
        Script::Reply("{\"operations\": [".into()),
        Script::Status(500),
        Script::Hang(Duration::from_secs(5)),
        Script::Reply(ops(json!({"operations": [{"op": "update", "id": 999}]}))),
    ]);
    let malformed = dispatch(&app, &sam, "scout", "m1", 3).await;
    assert!(skipped(&malformed).contains("not the JSON asked for"), "{malformed}");
    let failed = dispatch(&app, &sam, "scout", "m2", 3).await;
    assert!(skipped(&failed).contains("status 500"), "{failed}");
    let hung = dispatch(&app, &sam, "scout", "m3", 3).await;
    assert!(skipped(&hung).contains("did not answer within 2 s"), "{hung}");
    let unknown = dispatch(&app, &sam, "scout", "m4", 3).await;
    assert!(skipped(&unknown).contains("999 is not one of this agent's active lines"), "{unknown}");

    let (_, eps) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps.as_array().unwrap().len(), 4, "every episode is kept");
    assert!(memory(&app, &sam, "scout", true).await.is_empty());

    // The failed call can be retried later by name.
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I keep notes short."}]})));
    let out = app.org_cli(&["reflect", "scout", "--run", "m2"]).await.unwrap();
    assert!(out.contains("1 added"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_about_another_agent_is_dropped_and_the_model_never_sees_other_bots() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.ollama_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let sue = token_for(&app, "sue").await;
    model.reply(&ops(
        json!({"operations": [{"op": "add", "kind": "lesson", "text": "I answer refunds by policy number."}]}),
    ));
    dispatch(&app, &sue, "helper", "h1", 3).await;
    model.reply(&ops(json!({"operations": [
        {"op": "add", "kind": "anti_pattern", "text": "helper is sloppy with refunds."},
        {"op": "add", "kind": "lesson", "text": "I handed off the refund question to helper, which owns it."},
        {"op": "add", "kind": "lesson", "text": "I qualify leads by size first."}
    ]})));
    let done = dispatch(&app, &sam, "scout", "s1", 3).await;
    assert_eq!(done["reflect"]["dropped"], json!(["helper is sloppy with refunds."]));
    let texts: Vec<String> =
        memory(&app, &sam, "scout", false).await.iter().map(|r| r["text"].as_str().unwrap().to_string()).collect();
    assert_eq!(texts.len(), 2);
    assert!(texts.iter().any(|t| t.contains("handed off")), "a handoff is kept");

    // The Ollama shape was used, and scout's call carried none of helper's rows or runs.
    let asked = model.asked();
    assert_eq!(asked[1]["stream"], false);
    let user = asked[1]["messages"][1]["content"].as_str().unwrap();
    assert!(!user.contains("policy number") && !user.contains("h1"), "{user}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_cap_counts_every_bots_calls_and_min_turns_skip_without_a_call() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 2).await;
    let sam = token_for(&app, "sam").await;
    let sue = token_for(&app, "sue").await;
    let eli = token_for(&app, "eli").await;
    let none = ops(json!({"operations": [{"op": "none"}]}));
    model.script([Script::Reply(none.clone()), Script::Reply(none.clone()), Script::Reply(none)]);
    let short = dispatch(&app, &eli, "builder", "b0", 2).await;
    assert!(skipped(&short).contains("reflect needs at least 3"), "builder's block sets min_turns 3");
    dispatch(&app, &sam, "scout", "s1", 3).await;
    dispatch(&app, &sue, "helper", "h1", 3).await;
    let capped = dispatch(&app, &eli, "builder", "b1", 5).await;
    assert!(skipped(&capped).contains("today's cap of 2 model calls is spent"), "{capped}");
    assert_eq!(model.asked().len(), 2);
    assert!(capped["episode"]["id"].is_number(), "the episode is still recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_own_token_reads_only_its_rows_and_writes_nothing() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let sue = token_for(&app, "sue").await;
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I qualify by size."}]})));
    dispatch(&app, &sam, "scout", "s1", 3).await;
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I cite policy."}]})));
    dispatch(&app, &sue, "helper", "h1", 3).await;

    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let helper = app.org_cli(&["token", "helper", "--as", "sue"]).await.unwrap().trim().to_string();
    let not_owner = app.org_cli(&["token", "scout", "--as", "sue"]).await.unwrap_err();
    assert!(not_owner.message.contains("Only scout's owner"));

    assert_eq!(memory(&app, &scout, "scout", true).await.len(), 1);
    let (s, v) = get(&app, &helper, "/api/org/agents/scout/memory").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(get(&app, &helper, "/api/org/agents/scout/episodes").await.0, StatusCode::FORBIDDEN);
    assert_eq!(get(&app, &scout, "/api/org/agents/helper/stats").await.0, StatusCode::FORBIDDEN);
    assert_eq!(get(&app, &helper, "/api/org/agents/helper/episodes").await.0, StatusCode::OK);

    let row = memory(&app, &scout, "scout", false).await[0]["id"].as_i64().unwrap();
    let (s, _) = post(&app, &scout, &format!("/api/org/memory/{row}/edit"), json!({"text": "I rule."})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = post(&app, &scout, &format!("/api/org/memory/{row}/retire"), json!({"reason": "x"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = post(&app, &scout, "/api/org/wake", json!({"agent": "scout", "reason": "self"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = post(&app, &scout, "/api/org/reflect", json!({"agent": "scout", "run": "s1"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = post(&app, &helper, "/api/org/wake-done", json!({"wakeups": [1], "run": "x"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) =
        post(&app, &scout, "/api/org/agents/scout/propose-improvement", json!({"memory_id": row, "dry_run": true}))
            .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(memory(&app, &sam, "scout", false).await[0]["text"], "I qualify by size.", "nothing changed");
}

/// On PostgreSQL a bot's own reads run as the `engram_bot` role: they work and show only its rows,
/// and they stop when the database takes the role's grant away, while its owner's reads go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_a_bots_own_reads_run_as_the_bot_role() {
    use sqlx::Connection;
    let model = ModelServer::start().await;
    let app = spawn_postgres_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let sue = token_for(&app, "sue").await;
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I qualify by size."}]})));
    dispatch(&app, &sam, "scout", "s1", 3).await;
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I cite policy."}]})));
    dispatch(&app, &sue, "helper", "h1", 3).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();

    let rows = memory(&app, &scout, "scout", true).await;
    assert_eq!(rows.len(), 1);
    assert_eq!((&rows[0]["agent"], &rows[0]["text"]), (&json!("scout"), &json!("I qualify by size.")));
    let (s, episodes) = get(&app, &scout, "/api/org/agents/scout/episodes").await;
    assert_eq!(s, StatusCode::OK, "{episodes}");
    let wakes: Vec<&str> = episodes.as_array().unwrap().iter().map(|e| e["run"].as_str().unwrap()).collect();
    assert_eq!(wakes, ["s1"]);
    assert_eq!(get(&app, &scout, "/api/org/agents/helper/episodes").await.0, StatusCode::FORBIDDEN);

    let mut db = sqlx::PgConnection::connect(&app.database_url).await.expect("connect to the app's database");
    sqlx::query("REVOKE SELECT ON org_agent_episodes FROM engram_bot").execute(&mut db).await.unwrap();
    let (s, v) = get(&app, &scout, "/api/org/agents/scout/episodes").await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "the bot's read ran as the role: {v}");
    let (s, v) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!((s, v.as_array().map(Vec::len)), (StatusCode::OK, Some(1)), "the owner reads as the application");
    sqlx::query("GRANT SELECT ON org_agent_episodes TO engram_bot").execute(&mut db).await.unwrap();
    assert_eq!(get(&app, &scout, "/api/org/agents/scout/episodes").await.0, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_or_lead_edits_and_retires_and_others_are_refused() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let bob = token_for(&app, "bob").await;
    let ada = token_for(&app, "ada").await;
    model.reply(&ops(json!({"operations": [
        {"op": "add", "kind": "lesson", "text": "I qualify by size."},
        {"op": "add", "kind": "preference", "text": "I prefer named contacts."}
    ]})));
    dispatch(&app, &sam, "scout", "s1", 3).await;
    let rows = memory(&app, &sam, "scout", false).await;
    let (a, b) = (rows[0]["id"].as_i64().unwrap(), rows[1]["id"].as_i64().unwrap());

    let (s, v) = post(&app, &bob, &format!("/api/org/memory/{a}/edit"), json!({"text": "Wrong."})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(v["message"], "Only scout's owner or lead can change its memory or its improve cards");
    let (s, v) = post(&app, &sam, &format!("/api/org/memory/{a}/edit"), json!({"text": "  "})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Write the corrected line; it cannot be empty");

    let (s, new) =
        post(&app, &sam, &format!("/api/org/memory/{a}/edit"), json!({"text": "I qualify by size and city."})).await;
    assert_eq!(s, StatusCode::OK, "{new}");
    let (s, _) = post(&app, &ada, &format!("/api/org/memory/{b}/retire"), json!({"reason": "No longer true"})).await;
    assert_eq!(s, StatusCode::OK, "the lead may retire");
    let (s, v) = post(&app, &sam, &format!("/api/org/memory/{b}/retire"), json!({"reason": "again"})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");

    let all = memory(&app, &sam, "scout", true).await;
    assert_eq!(all.len(), 3, "rows are closed, never deleted");
    let old = all.iter().find(|r| r["id"] == a).unwrap();
    assert_eq!(old["superseded_by"], new["id"]);
    assert_eq!(old["closed_by"], "person:sam@acme.example");
    let retired = all.iter().find(|r| r["id"] == b).unwrap();
    assert_eq!(retired["closed_reason"], "retired: No longer true");
    let core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap();
    assert!(core.contains("I qualify by size and city.") && !core.contains("named contacts"), "{core}");

    // The CLI keeps the same rules.
    let refused = app.org_cli(&["memory", "retire", &new["id"].to_string(), "x", "--as", "bob"]).await.unwrap_err();
    assert!(refused.message.contains("Only scout's owner or lead"));
    let out = app.org_cli(&["memory", "scout", "--all", "--as", "bob"]).await.unwrap();
    assert!(out.contains("closed") && out.contains("I qualify by size and city."), "{out}");
}

const PROPOSAL_DIFF: &str = "@@ -11,2 +11,3 @@\n       - Check the CRM before adding a lead.\n       - Say when I am unsure.\n+      - When a site blocks my search tool, I use the company registry instead.\n";

fn proposal(diff: &str) -> String {
    ops(json!({"path": ".agents/org/org.yaml", "diff": diff, "rationale": "Twice a site blocked me."}))
}

async fn friction_twice(app: &TestApp, model: &ModelServer, sam: &str) -> i64 {
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "friction", "text": FRICTION}]})));
    dispatch(app, sam, "scout", "f1", 3).await;
    let id = memory(app, sam, "scout", false).await[0]["id"].as_i64().unwrap();
    model.reply(&ops(json!({"operations": [{"op": "update", "id": id}]})));
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recurring_friction_becomes_one_improve_card_that_a_person_applies() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let row = friction_twice(&app, &model, &sam).await;
    model.reply(&proposal(PROPOSAL_DIFF));
    let done = dispatch(&app, &sam, "scout", "f2", 3).await;
    let filed = done["reflect"]["proposals"][0].as_str().unwrap();
    assert!(filed.starts_with("filed improve card #"), "{done}");
    let friction = memory(&app, &sam, "scout", false).await.into_iter().find(|r| r["id"] == row).unwrap();
    assert_eq!(friction["promoted_to_proposal"], true);
    let card = friction["proposal_task_id"].as_i64().unwrap();

    // The proposal asked against the exact text of the bot's own files.
    let asked = model.asked();
    let user = asked.last().unwrap()["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("  12|       - Say when I am unsure."), "{user}");
    assert!(user.contains("knowledge/scout/qualifying.md"));

    // A third sighting files nothing more: one card per friction, one per week.
    model.reply(&ops(json!({"operations": [{"op": "update", "id": row}]})));
    let done = dispatch(&app, &sam, "scout", "f3", 3).await;
    assert_eq!(done["reflect"]["proposals"], json!([]));

    let org_yaml = app.vault().join(".agents/org/org.yaml");
    let before = std::fs::read_to_string(&org_yaml).unwrap();
    let bob = token_for(&app, "bob").await;
    assert_eq!(post(&app, &bob, &format!("/api/org/improve/{card}/apply"), json!({})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(std::fs::read_to_string(&org_yaml).unwrap(), before, "nothing applies without its person");
    let (s, t) = post(&app, &sam, &format!("/api/org/improve/{card}/apply"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["status"], "applied");
    let after = std::fs::read_to_string(&org_yaml).unwrap();
    assert!(
        after.contains("      - When a site blocks my search tool, I use the company registry instead.\n    tools:")
    );
    assert_eq!(post(&app, &sam, &format!("/api/org/improve/{card}/apply"), json!({})).await.0, StatusCode::CONFLICT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_is_refused_when_the_file_changed_and_close_keeps_the_reason() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    friction_twice(&app, &model, &sam).await;
    model.reply(&proposal(PROPOSAL_DIFF));
    dispatch(&app, &sam, "scout", "f2", 3).await;
    let (_, cards) = get(&app, &sam, "/api/org/agents/scout/stats").await;
    assert_eq!(cards["proposals_open"], 1);
    let card: i64 = 3;

    let org_yaml = app.vault().join(".agents/org/org.yaml");
    let edited = std::fs::read_to_string(&org_yaml).unwrap().replace("Curious and brisk.", "Curious.");
    std::fs::write(&org_yaml, &edited).unwrap();
    let (s, v) = post(&app, &sam, &format!("/api/org/improve/{card}/apply"), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(v["message"]
        .as_str()
        .unwrap()
        .starts_with(".agents/org/org.yaml has changed since this proposal was made"));
    assert_eq!(std::fs::read_to_string(&org_yaml).unwrap(), edited, "nothing was written");

    let (s, v) = post(&app, &sam, &format!("/api/org/improve/{card}/close"), json!({"reason": ""})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (s, t) = post(&app, &sam, &format!("/api/org/improve/{card}/close"), json!({"reason": "Edited by hand"})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!((t["status"].as_str(), t["closed_reason"].as_str()), (Some("closed"), Some("Edited by hand")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_validator_refuses_a_proposal_with_exit_code_3() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "friction", "text": FRICTION}]})));
    dispatch(&app, &sam, "scout", "f1", 3).await;
    let row = memory(&app, &sam, "scout", false).await[0]["id"].to_string();
    model.reply(&proposal(
        "@@ -13,1 +13,1 @@\n-    tools: [crm_search, web_search]\n+    tools: [crm_search, web_search, shell]\n",
    ));
    let e = app.org_cli(&["propose-improvement", "scout", "--memory-id", &row]).await.unwrap_err();
    assert_eq!(e.code, 3);
    assert!(e.message.contains("the change touches tools, which is not prose"), "{}", e.message);
    // YAML's explicit-key form under a prose key is still a key, and the refusal names it.
    model.reply(&proposal(
        "@@ -6,1 +6,3 @@\n     goal: Hand the sales team qualified leads with a clear next step.\n+    ? permission_mode_override\n+    : full_access\n",
    ));
    let e = app.org_cli(&["propose-improvement", "scout", "--memory-id", &row]).await.unwrap_err();
    assert_eq!(e.code, 3);
    assert!(e.message.contains("the change touches permission_mode_override, which is not prose"), "{}", e.message);
    model.reply(&ops(json!({"path": "AGENTS.md", "diff": "@@ -1 +1 @@\n-a\n+b\n", "rationale": "x"})));
    let e = app.org_cli(&["propose-improvement", "scout", "--memory-id", &row]).await.unwrap_err();
    assert_eq!(e.code, 3);
    assert!(e.message.contains("AGENTS.md belongs to the harness"), "{}", e.message);
    model.reply(&proposal(PROPOSAL_DIFF));
    let out = app.org_cli(&["propose-improvement", "scout", "--memory-id", &row, "--dry-run"]).await.unwrap();
    assert!(out.starts_with("dry run: 1 changed lines in .agents/org/org.yaml"), "{out}");
    let (_, stats) = get(&app, &sam, "/api/org/agents/scout/stats").await;
    assert_eq!(stats["proposals_filed"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refused_proposal_exits_3_with_the_reason_dry_run_or_not() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let row = friction_twice(&app, &model, &sam).await;
    model.reply(&proposal(PROPOSAL_DIFF));
    let done = dispatch(&app, &sam, "scout", "f2", 3).await;
    let filed = done["reflect"]["proposals"][0].as_str().unwrap().to_string();
    assert!(filed.starts_with("filed improve card #"), "{done}");
    let card = memory(&app, &sam, "scout", false).await.into_iter().find(|r| r["id"] == row).unwrap()
        ["proposal_task_id"]
        .as_i64()
        .unwrap();
    // A second friction that was never proposed: only the week's cap of one card stands in its way.
    model.reply(&ops(json!({"operations": [{"op": "add", "kind": "friction", "text": "I wait on CRM exports."}]})));
    dispatch(&app, &sam, "scout", "f3", 3).await;
    let other = memory(&app, &sam, "scout", false).await.into_iter().find(|r| r["text"] == "I wait on CRM exports.");
    let other = other.unwrap()["id"].to_string();
    let asked = model.asked().len();

    for dry_run in [false, true] {
        let mut args: Vec<&str> = vec!["propose-improvement", "scout", "--memory-id", &other];
        if dry_run {
            args.push("--dry-run");
        }
        let e = app.org_cli(&args).await.unwrap_err();
        assert_eq!(e.code, 3, "dry run {dry_run}: {}", e.message);
        assert_eq!(e.message, "no proposal: 1 proposal(s) filed this week; the cap is 1");
    }
    let e = app.org_cli(&["propose-improvement", "scout", "--memory-id", &row.to_string(), "--dry-run"]).await;
    let e = e.unwrap_err();
    assert_eq!((e.code, e.message), (3, format!("no proposal: line #{row} already has improve card #{card}")));
    assert_eq!(model.asked().len(), asked, "a refused proposal asks no model, dry run or not");

    let (s, v) = post(
        &app,
        &sam,
        "/api/org/agents/scout/propose-improvement",
        json!({"memory_id": other.parse::<i64>().unwrap(), "dry_run": true}),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["error"], "proposal_refused");
    let (_, stats) = get(&app, &sam, "/api/org/agents/scout/stats").await;
    assert_eq!(stats["proposals_filed"], 1, "nothing more was filed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redo_marks_the_builders_episode_and_stats_count_it() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let eli = token_for(&app, "eli").await;
    let done = dispatch(&app, &eli, "builder", "b1", 4).await;
    assert!(skipped(&done).contains("did not answer at start-up"), "{done}");
    dispatch(&app, &eli, "builder", "b2", 4).await;
    let task = done["episode"]["task"].as_i64().unwrap();
    let (s, e) = post(&app, &eli, &format!("/api/org/tasks/{task}/redo"), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(e["corrected"], true);
    let out = app.org_cli(&["memory", "stats", "builder", "--days", "7"]).await.unwrap();
    assert!(out.contains("corrections per completed card: 0.50 (1 corrected)"), "{out}");
    assert!(out.contains("cost per completed card: $0.50 ($1.00 in all)"), "{out}");
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wake_done_posts_a_fallback_status_when_the_wake_left_none() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let task = app.org_cli(&["task", "new", "builder", "Fix the build"]).await.unwrap().trim().to_string();
    let w =
        app.org_cli(&["wake", "builder", "--task", &task, "--reason", "assigned"]).await.unwrap().trim().to_string();
    let out = app.org_cli(&["wake-done", &w, "--run", "x1", "--exit", "2", "--result", "crashed"]).await.unwrap();
    assert!(out.contains("closed wakeup(s) 1; posted the fallback status"), "{out}");
    assert!(out.contains("My run failed on task #1"), "{out}");
    let again = app.org_cli(&["wake-done", &w, "--run", "x1", "--exit", "2"]).await.unwrap();
    assert!(again.contains("already recorded"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_vault_file_is_named_with_its_problem() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let sam = token_for(&app, "sam").await;
    let json_path = app.vault().join(".agents/org/org-agents.json");
    std::fs::write(&json_path, "{\"agents\": {\"scout\": {}}}").unwrap();
    let (s, v) = get(&app, &sam, "/api/org/agents/scout/memory").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(v["message"], ".agents/org/org-agents.json is invalid: agents.scout.owner must be the owner's email");
    std::fs::remove_file(&json_path).unwrap();
    let e = app.org_cli(&["memory", "scout"]).await.unwrap_err();
    assert_eq!(e.message, ".agents/org/org-agents.json is missing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_page_shows_memory_and_a_name_off_the_roster_is_404() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    assert!(demo::bots::seed_episodes(app.store.clone(), app.fs_vault(), std::sync::Arc::new(engine::SystemClock))
        .await
        .unwrap());
    let sam = app.sign_in("sam").await;
    let (s, html) = app.page(&sam, "/org/agents/scout").await;
    assert_eq!(s, StatusCode::OK);
    for expected in [
        "Bot: scout",
        "owner Sam Rao · lead Ada Lovelace",
        "of 1,500 tokens",
        "website blocks my search tool.",
        "Closed lines (0)",
        "episode 1: I finished task #1",
        "Improve card #3",
        "When a site blocks my search tool, I use the company registry instead.",
        "corrections per completed card",
        "Bengaluru leads come first this quarter.",
        "About its people (USER.md)",
        "Sam Rao owns scout and prefers a lead summary in three lines.",
        "The model step is off: no model answers here: ollama/llama3.2 at http://127.0.0.1:",
        "Edit or retire",
        "Self-edits",
        "The CRM check found the owner in two runs",
        "waiting for its owner or lead (delete_fact, requireApproval)",
        ">Undo<",
        ">Approve<",
    ] {
        assert!(html.contains(expected), "missing {expected:?}");
    }
    let (_, html) = app.page(&sam, "/org/improve").await;
    assert!(html.contains("Self-edit #2: forget 3") && html.contains("Sam hands over leads without a contact too"));
    let (s, html) = app.page(&sam, "/org/agents/builder").await;
    assert_eq!(s, StatusCode::OK);
    assert!(html.contains("of 800 tokens") && html.contains("set by the vault"), "builder's own budget");
    let (s, html) = app.page(&sam, "/org/agents/nobody").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(html.contains("There is no agent named nobody on the roster"));
    let bob = app.sign_in("bob").await;
    let (_, html) = app.page(&bob, "/org/agents/scout").await;
    assert!(!html.contains("Edit or retire") && !html.contains(">Apply<"), "bob may only read");
    assert!(html.contains("Self-edit #2: forget 3") && !html.contains(">Undo<") && !html.contains(">Approve<"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_correction_in_the_browser_keeps_the_text() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    demo::bots::seed_episodes(app.store.clone(), app.fs_vault(), std::sync::Arc::new(engine::SystemClock))
        .await
        .unwrap();
    let sam = app.sign_in("sam").await;
    let long = "I prefer ".repeat(40);
    let r = app.form_post(&sam, "/fn/edit_memory_line", &[("id", "3"), ("agent", "scout"), ("text", &long)]).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    assert_eq!(r.headers()["location"], "/org/agents/scout");
    let (_, html) = app.page(&sam, "/org/agents/scout").await;
    assert!(html.contains("The corrected line can be at most 300 characters"));
    assert!(
        html.contains(&format!("value=\"{}\"", long.trim_end())) || html.contains(&format!("value=\"{long}\"")),
        "the text is kept"
    );
    let (_, html) = app.page(&sam, "/org/agents/scout").await;
    assert!(!html.contains("at most 300 characters"), "the notice shows once");
    let rows = app.org_cli(&["memory", "scout"]).await.unwrap();
    assert!(rows.contains("#3 [preference] I prefer leads with a named contact I can hand over."), "{rows}");
}

/// `cheap` with a stand-in Ollama and a stand-in OpenAI-compatible API, both with a key.
fn cheap(ollama: &str, openai: &str, timeout: Duration, probe_timeout: Duration) -> server::llm::ModelSettings {
    server::llm::ModelSettings {
        reflect_model: None,
        ollama_host: ollama.to_string(),
        openai_base_url: format!("{openai}/v1"),
        openai_api_key: Some("test-key".into()),
        timeout,
        probe_timeout,
        ..Default::default()
    }
}

async fn model_line(app: &TestApp, agent: &str) -> String {
    let sam = app.sign_in("sam").await;
    let (s, html) = app.page(&sam, &format!("/org/agents/{agent}")).await;
    assert_eq!(s, StatusCode::OK);
    let start = html.find("<p class=\"meta model\">").expect("the model line") + "<p class=\"meta model\">".len();
    html[start..start + html[start..].find("</p>").unwrap()].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cheap_asks_the_local_ollama_first_and_probes_it_once_at_start_up() {
    let (ollama, openai) = (ModelServer::start().await, ModelServer::start().await);
    let settings = cheap(&ollama.base, &openai.base, Duration::from_secs(2), Duration::from_secs(1));
    let app = spawn_bots_app(settings, 200).await;
    let sam = token_for(&app, "sam").await;
    let none = ops(json!({"operations": [{"op": "none"}]}));
    ollama.script([Script::Reply(none.clone()), Script::Reply(none)]);
    for r in ["o1", "o2"] {
        let done = dispatch(&app, &sam, "scout", r, 3).await;
        assert!(done["reflect"]["outcome"]["Applied"].is_object(), "{done}");
    }
    assert_eq!(ollama.asked().len(), 2, "Ollama answered both");
    assert_eq!(ollama.asked()[0]["model"], "llama3.2");
    assert!(openai.asked().is_empty(), "the keyed provider is only the fallback");
    assert_eq!(ollama.tags_asked(), 1, "probed once, at start-up, never per call");
    assert_eq!(
        model_line(&app, "scout").await,
        format!("Reflect uses ollama/llama3.2 at {}, then openai/gpt-4o-mini at {}/v1.", ollama.base, openai.base)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ollama_that_does_not_answer_the_probe_is_passed_over_for_the_keyed_provider() {
    let (ollama, openai) = (ModelServer::start().await, ModelServer::start().await);
    ollama.tags(crate::model_server::Tags::Hang(Duration::from_secs(10)));
    let settings = cheap(&ollama.base, &openai.base, Duration::from_secs(2), Duration::from_millis(300));
    let app = spawn_bots_app(settings, 200).await;
    let sam = token_for(&app, "sam").await;
    let none = ops(json!({"operations": [{"op": "none"}]}));
    openai.script([Script::Reply(none.clone()), Script::Reply(none)]);
    for r in ["d1", "d2"] {
        let done = dispatch(&app, &sam, "scout", r, 3).await;
        assert!(done["reflect"]["outcome"]["Applied"].is_object(), "{done}");
    }
    assert_eq!(openai.asked().len(), 2);
    assert!(ollama.asked().is_empty(), "a call never waits on an Ollama the probe found silent");
    assert_eq!(ollama.tags_asked(), 1);
    assert_eq!(
        model_line(&app, "scout").await,
        format!(
            "Reflect uses openai/gpt-4o-mini at {}/v1. Not tried: ollama/llama3.2 at {} did not answer at start-up \
             (no answer within 300 ms).",
            openai.base, ollama.base
        )
    );

    // A model Ollama has not pulled is passed over the same way.
    let (ollama, openai) = (ModelServer::start().await, ModelServer::start().await);
    ollama.tags(crate::model_server::Tags::Models(vec!["qwen2.5:7b".into()]));
    let app =
        spawn_bots_app(cheap(&ollama.base, &openai.base, Duration::from_secs(2), Duration::from_secs(1)), 200).await;
    let sam = token_for(&app, "sam").await;
    openai.reply(&ops(json!({"operations": [{"op": "none"}]})));
    dispatch(&app, &sam, "scout", "p1", 3).await;
    assert_eq!((ollama.asked().len(), openai.asked().len()), (0, 1));
    assert!(model_line(&app, "scout").await.contains("answered at start-up without llama3.2 (ollama pull llama3.2)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_no_model_answers_the_step_is_skipped_the_episode_kept_and_the_page_names_what_was_tried() {
    let ollama = ModelServer::start().await;
    let openai = crate::model_server::dead_url();
    let app = spawn_bots_app(cheap(&ollama.base, &openai, Duration::from_secs(1), Duration::from_secs(1)), 200).await;
    let sam = token_for(&app, "sam").await;
    // Ollama was there at start-up, but is too slow now; nothing listens at the keyed provider.
    ollama.script([Script::Hang(Duration::from_secs(3))]);
    let done = dispatch(&app, &sam, "scout", "n1", 3).await;
    let tried = format!(
        "no model answered: tried ollama/llama3.2 at {} (the model did not answer within 1 s), then \
         openai/gpt-4o-mini at {openai}/v1 (the model could not be reached",
        ollama.base
    );
    assert!(skipped(&done).contains(&tried), "{done}");
    assert!(skipped(&done).contains("retry with engram org reflect scout --run n1"), "{done}");
    assert!(done["episode"]["id"].is_number(), "the episode stays");
    let (_, eps) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps.as_array().unwrap().len(), 1);
    let line = model_line(&app, "scout").await;
    assert!(
        line.contains(&format!(
            "At the last call no model answered: tried ollama/llama3.2 at {} (the model did not answer \
             within 1 s), then openai/gpt-4o-mini at {openai}/v1",
            ollama.base
        )),
        "{line}"
    );

    // Neither there at start-up and no key: the step is off before any call, and says what it tried.
    let dead = crate::model_server::dead_url();
    let settings = server::llm::ModelSettings { ollama_host: dead.clone(), ..Default::default() };
    let app = spawn_bots_app(settings, 200).await;
    let sam = token_for(&app, "sam").await;
    let done = dispatch(&app, &sam, "scout", "n2", 3).await;
    assert!(skipped(&done).contains(&format!("ollama/llama3.2 at {dead} did not answer at start-up")), "{done}");
    assert!(done["episode"]["id"].is_number());
    assert_eq!(
        model_line(&app, "scout").await,
        format!(
            "The model step is off: no model answers here: ollama/llama3.2 at {dead} did not answer at start-up \
             (nothing listens there), and no OpenAI-compatible provider has a key (OPENAI_API_KEY). Episodes are \
             still recorded."
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_never_waits_for_the_ollama_probe() {
    let ollama = ModelServer::start().await;
    ollama.tags(crate::model_server::Tags::Hang(Duration::from_secs(120)));
    let settings =
        cheap(&ollama.base, &crate::model_server::dead_url(), Duration::from_secs(2), Duration::from_secs(60));
    let started = std::time::Instant::now();
    let app = spawn_bots_app(settings, 200).await;
    assert!(started.elapsed() < Duration::from_secs(30), "start-up waited {:?} for the probe", started.elapsed());
    // The probe was asked, and is still waiting, while the server already serves.
    for _ in 0..50 {
        if ollama.tags_asked() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(ollama.tags_asked(), 1);
    let (s, _) = app.page(&app.sign_in("sam").await, "/org/agents/scout").await;
    assert_eq!(s, StatusCode::OK);
}

/// Files the bots' memory must never read, each holding a marker that must never reach the model.
fn plant_secrets(app: &TestApp, outside: &std::path::Path) -> [&'static str; 4] {
    let vault = app.vault();
    let write = |path: &str, text: &str| {
        let full = vault.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    write(".env", "OPENAI_API_KEY=SECRET-DOTENV\n");
    write("CURRENT/today.md", "SECRET-CURRENT\n");
    write("Areas/Finance/q3.jsonl", "{\"result\":\"SECRET-FINANCE\"}\n");
    std::fs::write(outside.join("elsewhere.jsonl"), "{\"result\":\"SECRET-LINKED\"}\n").unwrap();
    std::os::unix::fs::symlink(outside.join("elsewhere.jsonl"), vault.join(".agents/org/runs/linked.jsonl")).unwrap();
    ["SECRET-DOTENV", "SECRET-CURRENT", "SECRET-FINANCE", "SECRET-LINKED"]
}

fn model_saw_none_of(model: &ModelServer, secrets: &[&str]) {
    for call in model.asked() {
        let call = call.to_string();
        for s in secrets {
            assert!(!call.contains(s), "the model received {s}: {call}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_outside_the_bots_memory_is_refused_and_never_reaches_the_model() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let outside = tempfile::tempdir().unwrap();
    let secrets = plant_secrets(&app, outside.path());
    let sam = token_for(&app, "sam").await;
    let none = ops(json!({"operations": [{"op": "none"}]}));
    model.script((0..4).map(|_| Script::Reply(none.clone())));

    // Through /api/org: refused before anything changes, so the wakeup stays open.
    let (s, w) = post(&app, &sam, "/api/org/wake", json!({"agent": "scout", "reason": "assigned"})).await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, v) = post(
        &app,
        &sam,
        "/api/org/wake-done",
        json!({"wakeups": [w["id"]], "run": "t1", "exit": 0, "turns": 3, "transcript_path": ".env"}),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["error"], "transcript_refused");
    assert_eq!(
        v["message"],
        "The transcript .env was refused: it belongs to the harness or the owner, and nothing the bots remember reads it"
    );
    let (_, eps) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps, json!([]), "no episode was recorded");

    // Through the command line: exit 3 with the reason, for wake-done and reflect alike.
    let id = w["id"].to_string();
    for (args, why) in [
        (
            vec!["wake-done", &id, "--run", "t1", "--turns", "3", "--transcript", "CURRENT/today.md"],
            "belongs to the harness",
        ),
        (
            vec!["reflect", "scout", "--run", "t2", "--turns", "3", "--transcript", "Areas/Finance/q3.jsonl"],
            "belongs to the harness",
        ),
        (
            vec!["reflect", "scout", "--run", "t3", "--turns", "3", "--transcript", ".agents/org/runs/linked.jsonl"],
            "is a symbolic link",
        ),
        (
            vec!["reflect", "scout", "--run", "t4", "--turns", "3", "--transcript", "../elsewhere.jsonl"],
            "is outside the vault",
        ),
    ] {
        let e = app.org_cli(&args).await.unwrap_err();
        assert_eq!(e.code, 3, "{args:?}: {}", e.message);
        assert!(e.message.starts_with("The transcript ") && e.message.contains(why), "{args:?}: {}", e.message);
    }
    let (_, eps) = get(&app, &sam, "/api/org/agents/scout/episodes").await;
    assert_eq!(eps, json!([]), "no episode was recorded");
    assert!(model.asked().is_empty(), "the model was never called");

    // A transcript inside the bots' runs is read, and the same wakeup closes.
    std::fs::write(app.vault().join(".agents/org/runs/t1.jsonl"), "{\"result\":\"403 blocked\"}\n").unwrap();
    let out = app
        .org_cli(&["wake-done", &id, "--run", "t1", "--turns", "3", "--transcript", ".agents/org/runs/t1.jsonl"])
        .await
        .unwrap();
    assert!(out.contains(&format!("closed wakeup(s) {id}")), "{out}");
    let asked = model.asked();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].to_string().contains("403 blocked"));
    model_saw_none_of(&model, &secrets);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_recorded_with_a_protected_transcript_is_not_reflected_on() {
    use engine::persona::backlog::{NewEpisode, Outcome};
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let outside = tempfile::tempdir().unwrap();
    let secrets = plant_secrets(&app, outside.path());
    model.reply(&ops(json!({"operations": [{"op": "none"}]})));
    // As an episode recorded before transcripts were checked would be.
    app.store
        .insert_episode(&NewEpisode {
            agent: "scout".into(),
            wake: "old".into(),
            trigger: "task".into(),
            task: None,
            outcome: Outcome::Done,
            turns: Some(4),
            cost_usd: None,
            duration_s: None,
            summary: "I finished.".into(),
            log_path: None,
            transcript_path: Some(".env".into()),
            at: chrono::Utc::now(),
        })
        .await
        .unwrap();
    let out = app.org_cli(&["reflect", "scout", "--run", "old"]).await.unwrap();
    assert!(out.contains("skipped: The transcript .env was refused"), "{out}");
    assert!(model.asked().is_empty(), "the model was never called");
    model_saw_none_of(&model, &secrets);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proposal_prompt_shows_only_files_the_validator_would_let_it_change() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    let knowledge = app.vault().join("knowledge/scout");
    for (path, text) in [
        ("CLAUDE.md", "SECRET-CLAUDE"),
        ("hooks/pre.md", "SECRET-HOOK"),
        ("Areas/Finance/budget.md", "SECRET-FINANCE"),
        ("CURRENT/today.md", "SECRET-CURRENT"),
    ] {
        std::fs::create_dir_all(knowledge.join(path).parent().unwrap()).unwrap();
        std::fs::write(knowledge.join(path), text).unwrap();
    }
    friction_twice(&app, &model, &sam).await;
    model.reply(&proposal(PROPOSAL_DIFF));
    let done = dispatch(&app, &sam, "scout", "f2", 3).await;
    assert!(done["reflect"]["proposals"][0].as_str().unwrap().starts_with("filed improve card #"), "{done}");
    let asked = model.asked();
    let user = asked.last().unwrap()["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("knowledge/scout/qualifying.md"), "{user}");
    for s in ["SECRET-CLAUDE", "SECRET-HOOK", "SECRET-FINANCE", "SECRET-CURRENT"] {
        assert!(!user.contains(s), "the prompt showed {s}: {user}");
    }
}
