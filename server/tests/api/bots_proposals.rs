//! Self-improvement against the running server: a friction that recurs becomes one improve card
//! that a person applies or closes, the validator's refusals with exit code 3, and what the
//! proposal's prompt may show.

use crate::bots::{dispatch, memory, ops, FRICTION};
use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post};
use crate::model_server::ModelServer;
use reqwest::StatusCode;
use serde_json::json;

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
