//! Seed 000's rules for the bots that had no test of their own, against the running server with a
//! stand-in model: the week's proposal cap as the days pass, a closed improve card and fresh
//! evidence, a dry-run reflect, the chat_end trigger, the episodes listing and recall.

use crate::helpers::bearer_post as post;
use crate::helpers::*;
use crate::model_server::ModelServer;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

const FRICTION: &str = "I lose time when a lead's website blocks my search tool.";
const PROPOSAL_DIFF: &str = "@@ -11,2 +11,3 @@\n       - Check the CRM before adding a lead.\n       - Say when I am unsure.\n+      - When a site blocks my search tool, I use the company registry instead.\n";

fn reply(v: Value) -> String {
    v.to_string()
}

fn proposal() -> String {
    reply(json!({"path": ".agents/org/org.yaml", "diff": PROPOSAL_DIFF, "rationale": "Twice a site blocked me."}))
}

/// One finished run of scout reported by its owner on the command line, reflected on at once.
async fn run(app: &TestApp, wake: &str, reason: &str) -> String {
    app.org_cli(&["--as", "sam", "reflect", "scout", "--run", wake, "--turns", "3", "--reason", reason]).await.unwrap()
}

/// Scout's active lines as the command line prints them.
async fn lines(app: &TestApp) -> String {
    app.org_cli(&["--as", "sam", "memory", "scout"]).await.unwrap()
}

fn line_id(lines: &str, text: &str) -> String {
    let line = lines.lines().find(|l| l.contains(text)).unwrap_or_else(|| panic!("no line {text:?} in {lines}"));
    line.split_whitespace()
        .find_map(|w| w.strip_prefix('#'))
        .unwrap_or_else(|| panic!("no id in {line}"))
        .trim_end_matches(':')
        .to_string()
}

/// A finished run of scout, reflected on at once by the server.
async fn reflect(app: &TestApp, token: &str, wake: &str) -> Value {
    let (s, v) = post(
        app,
        token,
        "/api/org/reflect",
        json!({"agent": "scout", "run": wake, "exit": 0, "result": "Finished.", "turns": 3}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

async fn row_id(app: &TestApp, token: &str, text: &str) -> i64 {
    let r = Client::new().get(app.url("/api/org/agents/scout/memory")).bearer_auth(token).send().await.unwrap();
    let rows: Value = r.json().await.unwrap();
    rows.as_array().unwrap().iter().find(|r| r["text"] == text).unwrap_or_else(|| panic!("no {text:?}"))["id"]
        .as_i64()
        .unwrap()
}

async fn propose(app: &TestApp, token: &str, row: i64) -> (StatusCode, Value) {
    post(app, token, "/api/org/agents/scout/propose-improvement", json!({"memory_id": row})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weekly_cap_counts_the_last_seven_days_and_a_closed_card_waits_for_fresh_evidence() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let sam = token_for(&app, "sam").await;
    model.reply(&reply(json!({"operations": [{"op": "add", "kind": "friction", "text": FRICTION}]})));
    reflect(&app, &sam, "r1").await;
    model.reply(&reply(json!({"operations": [{"op": "add", "kind": "friction", "text": "I wait on CRM exports."}]})));
    reflect(&app, &sam, "r2").await;
    let (first, second) = (row_id(&app, &sam, FRICTION).await, row_id(&app, &sam, "I wait on CRM exports.").await);

    model.reply(&proposal());
    let (s, filed) = propose(&app, &sam, first).await;
    assert_eq!(s, StatusCode::OK, "{filed}");
    let card = filed["Filed"]["id"].as_i64().unwrap_or_else(|| panic!("a card: {filed}"));

    // The cap is one a week: six days on it still holds, and no model is asked.
    app.clock.advance(chrono::Duration::days(6));
    let asked = model.asked().len();
    let (s, v) = propose(&app, &sam, second).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "no proposal: 1 proposal(s) filed this week; the cap is 1");
    assert_eq!(model.asked().len(), asked);
    // Seven days and a minute after the card, the week holds none, and the other friction files.
    app.clock.advance(chrono::Duration::days(1) + chrono::Duration::minutes(1));
    model.reply(&proposal());
    let (s, v) = propose(&app, &sam, second).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v["Filed"]["id"].is_number(), "{v}");

    // The first card is closed by its person; the line proposes again only once seen after that.
    let (s, _) =
        post(&app, &sam, &format!("/api/org/improve/{card}/close"), json!({"reason": "Not worth a rule"})).await;
    assert_eq!(s, StatusCode::OK);
    app.clock.advance(chrono::Duration::days(8));
    let (s, v) = propose(&app, &sam, first).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["message"],
        format!("no proposal: improve card #{card} was closed; line #{first} proposes again only after fresh evidence")
    );
    app.clock.advance(chrono::Duration::minutes(5));
    model.reply(&reply(json!({"operations": [{"op": "update", "id": first}]})));
    model.reply(&proposal());
    let done = reflect(&app, &sam, "r3").await;
    assert_eq!(done["outcome"]["Applied"]["repeated"], json!([first]), "{done}");
    // That sighting is fresh evidence, so the reflect step itself files a new card for the line.
    let filed = done["proposals"][0].as_str().unwrap_or_default();
    assert!(filed.starts_with("filed improve card #") && filed.ends_with(&format!("for line #{first}")), "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_reflect_records_no_episode_and_changes_no_line() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    model
        .reply(&reply(json!({"operations": [{"op": "add", "kind": "lesson", "text": "I check the registry first."}]})));
    run(&app, "r1", "task").await;
    let before_lines = lines(&app).await;
    let before_core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap();
    let id = line_id(&before_lines, "I check the registry first.");

    model.reply(&reply(json!({"operations": [
        {"op": "add", "kind": "lesson", "text": "I note the source of every lead."},
        {"op": "delete", "id": id.parse::<i64>().unwrap(), "reason": "no longer true"}
    ]})));
    let out =
        app.org_cli(&["--as", "sam", "reflect", "scout", "--run", "r2", "--turns", "3", "--dry-run"]).await.unwrap();
    assert!(out.starts_with("reflect on the run (no episode recorded) (dry run, nothing written):"), "{out}");
    assert!(out.contains("  add [lesson] I note the source of every lead."), "{out}");
    assert!(out.contains(&format!("  delete #{id}: no longer true")), "{out}");

    assert_eq!(lines(&app).await, before_lines, "no line was added or closed");
    let core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap();
    assert_eq!(core, before_core, "core.md was not rendered again");
    let episodes = app.org_cli(&["--as", "sam", "memory", "episodes", "scout"]).await.unwrap();
    assert_eq!(episodes.lines().count(), 1, "only r1 is an episode: {episodes}");
    assert!(!episodes.contains("run r2"), "{episodes}");

    // The same run reported for real afterwards is recorded and applied as usual.
    model.reply(&reply(
        json!({"operations": [{"op": "add", "kind": "lesson", "text": "I note the source of every lead."}]}),
    ));
    let out = run(&app, "r2", "task").await;
    assert!(out.starts_with("reflect on episode "), "{out}");
    assert!(lines(&app).await.contains("I note the source of every lead."));
}

/// Scout's memory block with reflect triggered only by `trigger`.
fn only_trigger(app: &TestApp, trigger: &str) {
    let path = app.vault().join(".agents/org/org-agents.json");
    let mut roster: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    roster["agents"]["scout"]["memory"]["reflect"]["trigger"] = json!([trigger]);
    std::fs::write(&path, serde_json::to_string_pretty(&roster).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_reflects_only_where_the_block_names_chat_end() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    only_trigger(&app, "wake_done");
    let asked = model.asked().len();
    let out = run(&app, "chat-1", "chat").await;
    assert!(out.ends_with("skipped: this agent does not reflect on chat_end\n"), "{out}");
    assert_eq!(model.asked().len(), asked, "no model was asked");

    only_trigger(&app, "chat_end");
    model.reply(&reply(json!({"operations": [{"op": "add", "kind": "preference", "text": "I keep chats short."}]})));
    let out = run(&app, "chat-2", "chat").await;
    assert!(out.contains(": 1 added"), "{out}");
    let out = run(&app, "task-1", "task").await;
    assert!(out.ends_with("skipped: this agent does not reflect on wake_done\n"), "{out}");

    // Every one of them is an episode, with what woke it.
    let episodes = app.org_cli(&["--as", "sam", "memory", "episodes", "scout"]).await.unwrap();
    for run in ["chat-1", "chat-2", "task-1"] {
        assert!(episodes.contains(&format!("run {run} done")), "{episodes}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_episodes_lists_the_finished_wakes_newest_first_for_whoever_may_read_them() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let none = app.org_cli(&["--as", "sam", "memory", "episodes", "builder"]).await.unwrap();
    assert_eq!(none, "builder has no episodes yet\n");
    let task = app.org_cli(&["task", "new", "builder", "Fix the build"]).await.unwrap().trim().to_string();
    let w = app.org_cli(&["wake", "builder", "--task", &task, "--reason", "assigned"]).await.unwrap();
    app.org_cli(&["wake-done", w.trim(), "--run", "b1", "--turns", "4", "--cost", "0.25", "--result", "Fixed it."])
        .await
        .unwrap();
    app.clock.advance(chrono::Duration::minutes(3));
    app.org_cli(&["reflect", "builder", "--run", "b2", "--exit", "2", "--turns", "1"]).await.unwrap();

    let out = app.org_cli(&["--as", "bob", "memory", "episodes", "builder"]).await.unwrap();
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].contains("run b2 error turns 1 cost ?"), "the newest first: {out}");
    // The wake posted no status on its task, so it ended without a report.
    assert!(rows[1].contains("run b1 no_report turns 4 cost $0.25"), "{out}");
    assert!(rows[1].contains(&format!("task #{task}")), "{out}");
    let e = app.org_cli(&["--as", "sam", "memory", "episodes", "nobody"]).await.unwrap_err();
    assert_eq!(e.message, "There is no agent named nobody on the roster");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_searches_core_md_the_lines_and_the_hand_written_file() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    model.reply(&reply(json!({"operations": [
        {"op": "add", "kind": "lesson", "text": "Bengaluru leads answer faster by phone."},
        {"op": "add", "kind": "preference", "text": "I keep notes short."}
    ]})));
    run(&app, "r1", "task").await;
    let all = lines(&app).await;
    let id = line_id(&all, "Bengaluru leads answer faster by phone.");

    let out = app.org_cli(&["--as", "bob", "recall", "scout", "bengaluru leads"]).await.unwrap();
    let rows: Vec<&str> = out.lines().collect();
    assert!(rows.len() >= 3, "{out}");
    assert!(
        rows.iter().any(|r| r.starts_with(".agents/org/memory/scout/core.md:")
            && r.contains("Bengaluru leads answer faster by phone.")),
        "{out}"
    );
    assert!(rows.contains(&format!("line #{id} [lesson] seen 1×: Bengaluru leads answer faster by phone.").as_str()));
    assert!(rows.contains(&".agents/org/memory/scout.md:3: - Bengaluru leads come first this quarter."), "{out}");
    assert!(!out.contains("notes short"), "a line with none of the words is left out: {out}");

    let none = app.org_cli(&["--as", "bob", "recall", "scout", "invoices"]).await.unwrap();
    assert_eq!(none, "nothing in scout's memory holds \"invoices\"\n");
    let e = app.org_cli(&["--as", "bob", "recall", "scout", "  "]).await.unwrap_err();
    assert_eq!(e.message, "Say what to recall: engram org recall <agent> \"<query>\"");

    // A bot recalls only its own memory.
    let e = app.org_cli(&["--as", "scout", "recall", "helper", "refunds"]).await.unwrap_err();
    assert_eq!(e.message, "A bot reads only its own memory, and this is scout");
    let own = app.org_cli(&["--as", "scout", "recall", "scout", "bengaluru"]).await.unwrap();
    assert!(own.contains(&format!("line #{id} [lesson]")), "{own}");
}
