//! The bots' side against the running server: wakes, episodes, reflect with a stand-in model
//! over real HTTP, the daily cap, corrections, the agent page and bot-token isolation. Proposals are
//! in `bots_proposals`, the models and what they may read in `bots_models`.

use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post};
use crate::model_server::{ModelServer, Script};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) const FRICTION: &str = "I lose time when a lead's website blocks my search tool.";

pub(crate) fn ops(v: Value) -> String {
    v.to_string()
}

/// One dispatched wake, as the dispatcher reports it with the owner's token: a task, a wake, the
/// bot's own status, then wake-done. Returns wake-done's answer.
pub(crate) async fn dispatch(app: &TestApp, token: &str, agent: &str, wake: &str, turns: u32) -> Value {
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

pub(crate) fn skipped(done: &Value) -> String {
    done["reflect"]["outcome"]["Skipped"].as_str().unwrap_or_default().to_string()
}

pub(crate) async fn memory(app: &TestApp, token: &str, agent: &str, all: bool) -> Vec<Value> {
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
