//! `/mcp`: memory_self_edit over the Model Context Protocol, driven by a real MCP client (the
//! protocol's own Python SDK, `tools/mcp-client`) with a bot's own token.

use crate::helpers::*;
use crate::model_server::ModelServer;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The venv `ensure_mcp_client` in scripts/tools.sh makes; scripts/check exports its python.
fn client_python() -> PathBuf {
    let python = std::env::var_os("ENGRAM_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/mcp-client/.venv/bin/python"));
    assert!(
        python.exists(),
        "the MCP client is missing at {}: run `source scripts/tools.sh && ensure_mcp_client` first",
        python.display()
    );
    python
}

pub(crate) async fn mcp_client(url: String, token: String, calls: Value) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/mcp-client/call.py");
    let python = client_python();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python).arg(script).arg(url).arg(token).arg(calls.to_string()).output()
    })
    .await
    .unwrap()
    .expect("run the MCP client");
    assert!(out.status.success(), "the MCP client failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the client's JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_lists_memory_self_edit_and_calls_it_as_the_bot() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    model
        .reply(&json!({"operations": [{"op": "add", "kind": "lesson", "text": "I check the CRM first."}]}).to_string());
    app.org_cli(&["--as", "sam", "reflect", "scout", "--run", "r1", "--turns", "4"]).await.unwrap();
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let rows: Value = Client::new()
        .get(app.url("/api/org/agents/scout/memory"))
        .bearer_auth(&scout)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let crm = rows[0]["id"].as_i64().unwrap();

    let calls = json!([
        {"action": "strengthen", "target": format!("strategy:{crm}"), "reason": "It found the owner again"},
        {"action": "weaken", "target": crm.to_string(), "reason": ""},
        {"action": "append", "target": "fact", "content": "Pune leads go to Bob.", "reason": "Told in a run"},
        {"tool": "memory_audit", "arguments": {"dry_run": true}},
        {"tool": "memory_audit", "arguments": {"dry_run": "yes"}}
    ]);
    let out = mcp_client(app.url("/mcp"), scout.clone(), calls).await;
    let tools = out["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[1]["name"], "memory_audit");
    assert_eq!(tools[1]["input_schema"]["properties"]["dry_run"]["type"], "boolean");
    assert_eq!(tools[0]["name"], "memory_self_edit");
    assert_eq!(
        tools[0]["description"],
        "Edit your own memory. Use to correct errors, update outdated info, or strengthen important memories."
    );
    let schema = &tools[0]["input_schema"];
    assert_eq!(schema["required"], json!(["action", "target", "reason"]));
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["append", "replace", "strengthen", "weaken", "forget", "reflect"])
    );

    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls[0]["is_error"], false, "{out}");
    let applied: Value = serde_json::from_str(calls[0]["text"][0].as_str().unwrap()).unwrap();
    assert_eq!((applied["state"].as_str(), applied["agent"].as_str()), (Some("applied"), Some("scout")));
    assert_eq!(calls[1]["is_error"], true);
    assert_eq!(
        calls[1]["text"][0],
        "Give a reason: every self-edit needs one, and it goes in the audit log (requireReason)"
    );
    assert_eq!(calls[2]["is_error"], false, "{out}");
    // Seed 004 as the bot's own upkeep: a dry run of its own files, which writes nothing.
    assert_eq!(calls[3]["is_error"], false, "{out}");
    let summary = calls[3]["text"][0].as_str().unwrap();
    assert!(summary.starts_with("DRY_RUN scout (requested)"), "{summary}");
    assert!(summary.contains("DELETE from MEMORY.md: \"In this session Sam asked"), "{summary}");
    let hand_written = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout.md")).unwrap();
    assert!(hand_written.contains("In this session Sam asked"), "{hand_written}");
    assert_eq!(
        (calls[4]["is_error"].clone(), calls[4]["text"][0].clone()),
        (json!(true), json!("dry_run is true or false"))
    );

    // What the client did is what the bot did: recorded under scout, with its reasons.
    let edits: Value = Client::new()
        .get(app.url("/api/org/agents/scout/self-edits"))
        .bearer_auth(&scout)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let got: Vec<_> = edits.as_array().unwrap().iter().map(|e| (e["action"].clone(), e["state"].clone())).collect();
    assert_eq!(
        got,
        [
            (json!("append"), json!("applied")),
            (json!("weaken"), json!("refused")),
            (json!("strengthen"), json!("applied"))
        ]
    );
    assert_eq!(edits[2]["reason"], "It found the owner again");

    // Only a bot's own token opens the bots' tools: none or an unknown one is refused, and a
    // person's token must name the company agent it uses (mcp_external.rs).
    let sam = {
        let c = app.sign_in("sam").await;
        let r = c.post(app.url("/api/tokens")).json(&json!({"name": "mine"})).send().await.unwrap();
        body(r).await["token"].as_str().unwrap().to_string()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    // A bot's token naming an agent is refused too: /mcp?agent= is held to the settings' body
    // limit, not the bots' 8 KiB.
    for (token, path, status) in [
        (None, "/mcp", StatusCode::UNAUTHORIZED),
        (Some(sam.as_str()), "/mcp", StatusCode::BAD_REQUEST),
        (Some("not-a-token"), "/mcp", StatusCode::UNAUTHORIZED),
        (Some(scout.as_str()), "/mcp?agent=scout", StatusCode::BAD_REQUEST),
    ] {
        let mut r =
            Client::new().post(app.url(path)).header("accept", "application/json, text/event-stream").json(&init);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        assert_eq!(r.send().await.unwrap().status(), status, "{token:?} {path}");
    }
    let mut big = init.clone();
    big["params"]["clientInfo"]["name"] = json!("x".repeat(9 * 1024));
    let r = Client::new()
        .post(app.url("/mcp"))
        .bearer_auth(&scout)
        .header("accept", "application/json, text/event-stream")
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE, "a bot's request past 8 KiB");
}
