//! Agent tokens: an organisation's own outside agent holding one takes a whole run of the Sales
//! Assistant acting for nobody, over the REST pair and over MCP with both real clients (the
//! protocol's Python SDK and the Rust SDK's), against the running server, the demo's Acme ATS and
//! outbox over HTTP. Its block carries no person's cards, its read uses the company key and keeps
//! nothing, a send of an address it never read is refused with the seed's sentence (not "remembered":
//! it carries no one's cards), a send of what it read
//! waits in the Inbox of the agent's owner (Ada) until she approves it, and its finish ends the run.
//! Then the tokens' rules are attacked: who makes and revokes them, another agent, another token,
//! a person's token, a revoked or paused one, and every other endpoint.

use crate::agent_model_server::AgentModelServer;
use crate::external_runs::{quote_email, PRIYA, QUESTION};
use crate::helpers::*;
use crate::mcp::mcp_client;
use crate::mcp_external::{block_refused_read_waiting, call, refused, rust_client};
use crate::send_email::{sent, spawn_mailing_with};
use engine::runs::agent_tokens::{AGENT_TOKEN_REFUSED, NO_PERSON, OTHER_AGENT};
use engine::runs::provenance::NOT_READ;
use engine::runs::schedules::TRIGGER_PAUSED;
use engine::runs::service::WAITING_FOR_APPROVAL;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

const ANSWER: &str = "C-2001 is Priya Raman; the quote waits for approval.";

async fn agent_id(app: &TestApp, name: &str) -> i64 {
    let dir = app.store.outline().await.unwrap();
    dir.agents.iter().find(|a| a.name == name).expect("a demo agent").id.0
}

/// A new agent token for `agent`, made by `login` in a signed-in session: its answer.
async fn make_token(app: &TestApp, login: &str, agent: i64, name: &str) -> (StatusCode, Value) {
    let c = app.sign_in(login).await;
    let r =
        c.post(app.url(&format!("/api/agents/{agent}/tokens/make"))).json(&json!({"name": name})).send().await.unwrap();
    let status = r.status();
    if status == StatusCode::CREATED {
        let cache = r.headers().get("cache-control").and_then(|v| v.to_str().ok()).map(str::to_string);
        assert_eq!(cache.as_deref(), Some("no-store"), "a secret is kept by no cache");
    }
    (status, body(r).await)
}

async fn sales_token(app: &TestApp, name: &str) -> String {
    let sales = agent_id(app, "Sales Assistant").await;
    let (status, made) = make_token(app, "ada", sales, name).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    made["secret"].as_str().unwrap().to_string()
}

/// Ada, the Sales Assistant's owner, approves the one action waiting in her Inbox; Alice's is empty.
async fn owner_approves(app: &TestApp) {
    let alice = app.sign_in("alice").await;
    let (_, theirs) = app.get_json(&alice, "/api/inbox").await;
    assert_eq!(theirs, json!([]), "a run for nobody waits in no one's Inbox but the owner's");
    let ada = app.sign_in("ada").await;
    let (_, inbox) = app.get_json(&ada, "/api/inbox").await;
    assert_eq!(inbox.as_array().unwrap().len(), 1, "{inbox}");
    assert_eq!(inbox[0]["line"], format!("email to {PRIYA}: Quote"), "{inbox}");
    let action = inbox[0]["id"].as_i64().unwrap();
    let r = ada.post(app.url(&format!("/api/inbox/{action}/approve"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

/// The run as Ada (owner and admin) reads it in her session: for nobody, and whole.
async fn assert_whole_run_for_nobody(app: &TestApp, run: i64) {
    let ada = app.sign_in("ada").await;
    let (status, r) = app.get_json(&ada, &format!("/api/runs/{run}")).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!((r["kind"].as_str(), r["state"].as_str()), (Some("external"), Some("answered")), "{r}");
    assert_eq!(r["answer"], ANSWER);
    let lines: Vec<&str> = r["steps"].as_array().unwrap().iter().map(|s| s["line"].as_str().unwrap()).collect();
    assert!(lines.contains(&format!("Refused send_email: {NOT_READ}").as_str()), "{lines:?}");
    assert!(lines.contains(&"Read with get_contact from Acme ATS"), "a read for nobody keeps nothing: {lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("Waiting for") && l.ends_with(&format!("email to {PRIYA}: Quote"))));
    // Nothing it used was a person's card or list, so there was nothing to check.
    assert_eq!(r["check"]["state"], "not_needed", "{r}");
    assert_eq!(r["model"], Value::Null, "no model of Engram answered");
    // Alice is not the owner, the team's lead or an admin: the run is no run to her.
    let alice = app.sign_in("alice").await;
    let (status, _) = app.get_json(&alice, &format!("/api/runs/{run}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_token_takes_a_whole_run_for_nobody_over_rest_through_the_owners_inbox() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let app = &m.c.app;
    let token = sales_token(app, "LangGraph on the sales server").await;
    assert!(token.starts_with("agt_") && token.len() == 68, "{token}");

    // The agent may be left out: a token works for its own agent only.
    let (status, started) = bearer_post(app, &token, "/api/runs/external", json!({"question": QUESTION})).await;
    assert_eq!(status, StatusCode::CREATED, "{started}");
    let run = started["run"].as_i64().unwrap();
    let block = &started["block"];
    // Alice keeps Priya's contact as a card; a run for nobody carries no person's cards.
    assert!(block["refs"].as_array().unwrap().iter().all(|r| !r["card"].is_string()), "{block}");
    assert!(!block["text"].as_str().unwrap().contains(PRIYA), "{block}");
    let tools = started["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "engram__send_email" && t["read_only"] == false), "{tools:?}");

    let path = |name: &str| format!("/api/runs/{run}/tools/{name}");
    let (status, refused) = bearer_post(app, &token, &path("engram__send_email"), quote_email()).await;
    assert_eq!(
        (status, refused["kind"].as_str(), refused["result"].as_str()),
        (StatusCode::OK, Some("refused"), Some(NOT_READ))
    );
    let (status, read) = bearer_post(app, &token, &path("acme_ats__get_contact"), json!({"id": "C-2001"})).await;
    assert_eq!((status, read["kind"].as_str()), (StatusCode::OK, Some("tool_call")), "{read}");
    assert!(read["result"].as_str().unwrap().contains(PRIYA), "{read}");
    let (status, waiting) = bearer_post(app, &token, &path("engram__send_email"), quote_email()).await;
    assert_eq!((status, waiting["result"].as_str()), (StatusCode::OK, Some(WAITING_FOR_APPROVAL)), "{waiting}");
    assert_eq!(sent(&m.outbox).await, Vec::<Value>::new(), "nothing is sent before the owner approves");
    owner_approves(app).await;
    assert_eq!(sent(&m.outbox).await.len(), 1, "sent once approved");

    let (status, done) = bearer_post(app, &token, &format!("/api/runs/{run}/finish"), json!({"answer": ANSWER})).await;
    assert_eq!((status, done["state"].as_str()), (StatusCode::OK, Some("answered")), "{done}");
    let (status, after) = bearer_post(app, &token, &path("acme_ats__get_contact"), json!({"id": "C-2001"})).await;
    assert_eq!((status, after["error"].as_str()), (StatusCode::CONFLICT, Some("changed")), "{after}");
    assert_whole_run_for_nobody(app, run).await;

    // The owner reads its thread, which is read, not asked in.
    let ada = app.sign_in("ada").await;
    let thread = started["thread"].as_i64().unwrap();
    let (status, _) = app.get_json(&ada, &format!("/api/threads/{thread}")).await;
    assert_eq!(status, StatusCode::OK);
    let r = ada
        .post(app.url(&format!("/api/threads/{thread}/ask")))
        .json(&json!({"question": "And?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        body(r).await["message"],
        "An agent token's run is read here, not asked in; ask the agent on the Ask page"
    );
    // The token itself is nobody anywhere else.
    for path in ["/api/me", "/api/threads", &format!("/api/runs/{run}"), "/api/inbox"] {
        let (status, r) = bearer_get(app, &token, path).await;
        assert_eq!((status, r["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("agent_token")), "{path}: {r}");
        assert_eq!(r["message"], server::http::api::AGENT_TOKEN_ONLY);
    }
    assert!(model.requests().is_empty(), "Engram's model was never asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_takes_a_whole_run_for_nobody_with_an_agent_token() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let app = &m.c.app;
    let token = sales_token(app, "Claude Desktop").await;
    let send = json!({"tool": "engram__send_email", "arguments": quote_email()});
    let calls = json!([
        {"tool": "memory_block", "arguments": {"question": QUESTION}},
        send,
        {"tool": "acme_ats__get_contact", "arguments": {"id": "C-2001"}},
        send,
        {"tool": "my_lessons", "arguments": {}},
    ]);
    // No ?agent=: the token names its agent.
    let out = mcp_client(app.url("/mcp"), token.clone(), calls).await;
    let names: Vec<&str> = out["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names[..2], ["memory_block", "finish"], "{names:?}");
    assert!(!names.contains(&"keep_lesson") && !names.contains(&"my_lessons"), "nobody has lessons: {names:?}");
    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls[0]["is_error"], false, "{out}");
    let started: Value = serde_json::from_str(calls[0]["text"][1].as_str().unwrap()).unwrap();
    let run = started["run"].as_i64().unwrap();
    assert_eq!((calls[1]["is_error"].clone(), calls[1]["text"][0].clone()), (json!(true), json!(NOT_READ)), "{out}");
    assert!(calls[2]["text"][0].as_str().unwrap().contains(PRIYA), "{out}");
    assert_eq!(calls[3]["text"][0], WAITING_FOR_APPROVAL, "{out}");
    assert_eq!(
        (calls[4]["error"]["message"].as_str(), calls[4]["error"]["data"]["error"].as_str()),
        (Some(NO_PERSON), Some("not_allowed"))
    );
    owner_approves(app).await;
    assert_eq!(sent(&m.outbox).await.len(), 1, "sent once approved");
    let calls = json!([{"tool": "finish", "arguments": {"answer": ANSWER, "engram_run": run}}]);
    let out = mcp_client(app.url("/mcp?agent=Sales%20Assistant"), token, calls).await;
    assert_eq!(out["calls"][0]["is_error"], false, "{out}");
    assert_whole_run_for_nobody(app, run).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_sdk_takes_a_whole_run_for_nobody_and_only_its_own_token_takes_it_further() {
    let model = AgentModelServer::start().await;
    let m = spawn_mailing_with(model.openai_settings()).await;
    let app = &m.c.app;
    let token = sales_token(app, "Cursor").await;
    let other = sales_token(app, "LangGraph").await;
    let alice = token_for(app, "alice").await;

    let s = rust_client(app.url("/mcp?agent=Sales%20Assistant"), &token).await;
    // Priya's address was never remembered by this run: "not read", not "remembered".
    let run = block_refused_read_waiting(&s, NOT_READ).await;
    let in_run = |mut args: Value| {
        args["engram_run"] = json!(run);
        args
    };
    owner_approves(app).await;

    // Another token of the same agent, and a person's token: the run is no run to them.
    for (who, url) in [(&other, "/mcp"), (&alice, "/mcp?agent=Sales%20Assistant")] {
        let b = rust_client(app.url(url), who).await;
        let r = call(&b, "acme_ats__get_contact", json!({"id": "C-2001", "engram_run": run})).await;
        assert_eq!(refused(r), ("There is no such run".to_string(), json!("not_found")));
        let r = call(&b, "finish", json!({"answer": "Mine now", "engram_run": run})).await;
        assert_eq!(refused(r).0, "There is no such run");
        b.cancel().await.unwrap();
    }
    let r = call(&s, "keep_lesson", json!({"text": "Priya prefers mornings", "scope": "private"})).await;
    assert_eq!(refused(r), (NO_PERSON.to_string(), json!("not_allowed")));
    let done = call(&s, "finish", in_run(json!({"answer": ANSWER}))).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    s.cancel().await.unwrap();
    assert_whole_run_for_nobody(app, run).await;

    // Connecting at all: the token's own agent only, and a revoked token is no one.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let connect = |url: String, token: String| {
        Client::new()
            .post(url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&init)
            .send()
    };
    let r = connect(app.url("/mcp?agent=Support%20Agent"), token.clone()).await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(body(r).await["message"], OTHER_AGENT);
    let sales = agent_id(app, "Sales Assistant").await;
    let ada = app.sign_in("ada").await;
    let (_, listed) = app.get_json(&ada, &format!("/api/agents/{sales}/tokens")).await;
    let cursor =
        listed["tokens"].as_array().unwrap().iter().find(|t| t["name"] == "Cursor").unwrap()["id"].as_i64().unwrap();
    let r = ada.post(app.url(&format!("/api/agents/{sales}/tokens/{cursor}/revoke"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = connect(app.url("/mcp"), token).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.text().await.unwrap(), AGENT_TOKEN_REFUSED);
    assert!(model.requests().is_empty(), "Engram's model was never asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_owner_or_an_admin_makes_and_revokes_tokens_and_a_token_beyond_its_rights_changes_nothing() {
    let app = spawn_app().await;
    let sales = agent_id(&app, "Sales Assistant").await;
    let support = agent_id(&app, "Support Agent").await;

    // Bob is neither the Sales Assistant's owner nor an admin.
    let (status, r) = make_token(&app, "bob", sales, "Mine").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{r}");
    assert_eq!(r["message"], "Only the agent's owner or an admin can see and change Sales Assistant's tokens");
    let bob = app.sign_in("bob").await;
    let (status, _) = app.get_json(&bob, &format!("/api/agents/{sales}/tokens")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Bad names change nothing.
    for name in ["", "   ", &"x".repeat(81)] {
        let (status, r) = make_token(&app, "ada", sales, name).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name:?}: {r}");
        assert_eq!(r["message"], "Give the token a name of at most 80 characters, saying where it is used");
    }
    let ada = app.sign_in("ada").await;
    let (_, listed) = app.get_json(&ada, &format!("/api/agents/{sales}/tokens")).await;
    assert_eq!(listed["tokens"], json!([]), "nothing was made");

    let token = sales_token(&app, "LangGraph").await;
    let (_, listed) = app.get_json(&ada, &format!("/api/agents/{sales}/tokens")).await;
    let shown = listed.to_string();
    assert!(!shown.contains(&token) && !shown.contains(&token[4..]), "never the secret: {shown}");
    assert!(!shown.contains(&engine::runs::agent_tokens::hash_agent_token(&token)), "never its hash");
    let id = listed["tokens"][0]["id"].as_i64().unwrap();
    assert_eq!(listed["tokens"][0]["live"], true);

    // Another agent, by id or name, is refused in words; so is a question of nothing.
    for agent in [json!(support), json!("Support Agent"), json!("Nobody")] {
        let (status, r) =
            bearer_post(&app, &token, "/api/runs/external", json!({"agent": agent, "question": "Hi"})).await;
        assert_eq!((status, r["message"].as_str()), (StatusCode::FORBIDDEN, Some(OTHER_AGENT)), "{agent}");
    }
    for agent in [json!(sales), json!("sales assistant"), json!(sales.to_string())] {
        let (status, r) =
            bearer_post(&app, &token, "/api/runs/external", json!({"agent": agent, "question": "Hi"})).await;
        assert_eq!(status, StatusCode::CREATED, "{agent}: {r}");
    }
    let (status, r) = bearer_post(&app, &token, "/api/runs/external", json!({"question": " "})).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("Write a question first")));

    // A token whose agent is paused runs nothing, as a schedule does not.
    let r = ada.post(app.url(&format!("/api/agents/{sales}/pause"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let (status, r) = bearer_post(&app, &token, "/api/runs/external", json!({"question": "Hi"})).await;
    assert_eq!((status, r["message"].as_str()), (StatusCode::CONFLICT, Some(TRIGGER_PAUSED)));
    let r = ada.post(app.url(&format!("/api/agents/{sales}/resume"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // Revoked, it is no one; and a token in any other spelling never was anyone.
    let r = ada.post(app.url(&format!("/api/agents/{sales}/tokens/{id}/revoke"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = ada.post(app.url(&format!("/api/agents/{sales}/tokens/{id}/revoke"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND, "revoked once");
    let body_hex = &token[4..];
    for spelling in [
        token.clone(),
        token.to_uppercase(),
        format!("agt_{}", &body_hex[1..]),
        format!("{token}0"),
        format!("agt_{}", "0".repeat(64)),
    ] {
        let (status, r) = bearer_post(&app, &spelling, "/api/runs/external", json!({"question": "Hi"})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{spelling}: {r}");
    }
    let (_, listed) = app.get_json(&ada, &format!("/api/agents/{sales}/tokens")).await;
    assert_eq!(listed["tokens"][0]["live"], false);
    // The audit says who made and revoked it, never the secret.
    let mut audit: Vec<(String, String)> = app
        .store
        .audit_log(500)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.subject == sales.to_string() && e.action.starts_with("agent.token"))
        .map(|e| (e.action, e.detail))
        .collect();
    audit.reverse();
    assert_eq!(audit.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>(), ["agent.token_made", "agent.token_revoked"]);
    assert!(audit.iter().all(|(_, d)| !d.contains(body_hex)), "{audit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_agents_token_makes_lists_and_revokes_and_prints_the_secret_once() {
    let app = spawn_app().await;
    let cli = |args: &'static str| crate::schedules::agents_cli(&app, args);
    let made = cli(r#"token make --as sue "Support Agent" "LangGraph on the support server""#).await.unwrap();
    let lines: Vec<&str> = made.lines().collect();
    assert!(
        lines[0].starts_with("Made agent token #") && lines[0].contains("“LangGraph on the support server”"),
        "{made}"
    );
    let secret = lines[1];
    assert!(secret.starts_with("agt_") && secret.len() == 68, "{made}");
    let (status, started) = bearer_post(&app, secret, "/api/runs/external", json!({"question": "Hi"})).await;
    assert_eq!(status, StatusCode::CREATED, "the printed token works: {started}");

    let listed = cli(r#"token list --as ada "Support Agent""#).await.unwrap();
    assert!(
        listed.contains("LangGraph on the support server · made ") && listed.trim_end().ends_with("· live"),
        "{listed}"
    );
    assert!(!listed.contains(secret) && !listed.contains("last used never"), "used once, never shown: {listed}");
    // Anyone but the owner or an admin is refused with the sentence, exit 3, and nothing changes.
    let refused = cli(r#"token revoke --as alice "Support Agent" 1"#).await.unwrap_err();
    assert_eq!(refused, (3, "Only the agent's owner or an admin can see and change Support Agent's tokens".into()));
    let id: i64 = lines[0].trim_start_matches("Made agent token #").split(' ').next().unwrap().parse().unwrap();
    let revoked = crate::schedules::agents_cli(&app, &format!(r#"token revoke --as sue "Support Agent" {id}"#)).await;
    assert_eq!(revoked.unwrap(), format!("Revoked token #{id}; it no longer works\n"));
    let listed = cli(r#"token list --as sue "Support Agent""#).await.unwrap();
    assert!(listed.contains("· revoked "), "{listed}");
    let (status, _) = bearer_post(&app, secret, "/api/runs/external", json!({"question": "Hi"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let bad = cli(r#"token make --as sue "Support Agent" "  ""#).await.unwrap_err();
    assert_eq!(bad, (3, "Give the token a name of at most 80 characters, saying where it is used".into()));
}
