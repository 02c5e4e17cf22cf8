//! Secrets never become memory, against the running server: a lesson, a core save and a bot's
//! self-edit holding a credential are refused with a sentence naming its kind and where it stands,
//! and nothing is stored; a card kept from a source whose record holds an AWS key keeps it masked,
//! and no file of the database holds the whole key.
//!
//! The fake secrets are joined from pieces so that a scanner reading this file does not take them
//! for leaked credentials.

use crate::cards::{admin, card_of, lead, person, spawn_cards};
use crate::helpers::*;
use crate::helpers::{bearer_get, bearer_post, token_for};
use crate::model_server::ModelServer;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn aws_key() -> String {
    ["AKIA", "IOSFODNN7EXAMPLE"].concat()
}

/// The refusal every write path answers with: 422, `secret`, and a sentence that names the kind
/// and shows the secret only masked.
fn assert_refused(status: StatusCode, v: &Value, kind: &str, whole: &str) {
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["error"], "secret", "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(message.contains(kind), "{message}");
    assert!(message.contains("at line "), "{message}");
    assert!(message.contains("nothing was saved"), "{message}");
    assert!(!message.contains(whole), "the sentence shows the secret whole: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lesson_holding_an_aws_key_is_refused_and_nothing_is_kept() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let (_, before) = app.get_json(&alice, "/api/memory/lessons").await;
    let (_, own_before) = app.get_json(&alice, "/api/knowledge").await;
    let text = format!("The staging bucket is read with {} until Friday", aws_key());
    for scope in ["private", "company"] {
        let r =
            alice.post(app.url("/api/knowledge")).json(&json!({"scope": scope, "text": text})).send().await.unwrap();
        let s = r.status();
        let v = body(r).await;
        assert_refused(s, &v, "an AWS access key", &aws_key());
        assert_eq!(
            v["message"],
            "The lesson holds an AWS access key (AKIA…MPLE) at line 1, column 33; secrets are never kept, so \
             nothing was saved. Remove it and try again."
        );
    }
    let (_, after) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(before, after, "no lesson was kept");
    let (_, own_after) = app.get_json(&alice, "/api/knowledge").await;
    assert_eq!(own_before, own_after, "no proposal waits either");

    // The same lesson without the key is kept, so the refusal was the secret's alone.
    let r = alice
        .post(app.url("/api/knowledge"))
        .json(&json!({"scope": "private", "text": "The staging bucket is read with the vault's key"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_core_save_holding_a_github_token_is_refused_and_no_version_is_made() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let sales = "company:role:sales";
    assert_eq!(app.save_core(&ada, sales, 0, "Stages: New, Qualified, Won.").await.status(), StatusCode::CREATED);
    let token = ["ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"].concat();
    let text = format!("Stages: New, Qualified, Won.\nThe CRM export runs with {token}");
    let r = app.save_core(&ada, sales, 1, &text).await;
    let s = r.status();
    let v = body(r).await;
    assert_refused(s, &v, "a GitHub token", &token);
    assert!(v["message"]
        .as_str()
        .unwrap()
        .starts_with("The core holds a GitHub token (ghp_…8B4a) at line 2, column 26"));
    let (_, versions) = app.get_json(&ada, &format!("/api/memory/cores/{sales}/versions")).await;
    assert!(!versions.to_string().contains("ghp_"), "{versions}");
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{sales}")).await;
    assert_eq!(view["current"]["version"], 1, "{view}");
    assert_eq!(view["current"]["text"], "Stages: New, Qualified, Won.", "{view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_self_edit_holding_a_connection_string_is_refused_and_not_recorded() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let sam = token_for(&app, "sam").await;
    let (_, before) = bearer_get(&app, &sam, "/api/org/agents/scout/self-edits").await;
    let password = ["S3cr3t", "Pa55w0rd"].concat();
    let content = format!("The reports database is postgres://reports:{password}@db.acme.example/reports");
    let (s, v) = bearer_post(
        &app,
        &scout,
        "/api/org/self/edit",
        json!({"action": "append", "target": "fact", "content": content, "reason": "Told in a run"}),
    )
    .await;
    assert_refused(s, &v, "a connection string with a password", &password);
    assert!(v["message"]
        .as_str()
        .unwrap()
        .starts_with("The content holds a connection string with a password (S3…rd)"));
    // A reason is kept with every request too, and is refused alike.
    let (s, v) = bearer_post(
        &app,
        &scout,
        "/api/org/self/edit",
        json!({"action": "append", "target": "fact", "content": "Reports live in the reports database",
               "reason": format!("sam said the key is {}", aws_key())}),
    )
    .await;
    assert_refused(s, &v, "an AWS access key", &aws_key());
    let (_, after) = bearer_get(&app, &sam, "/api/org/agents/scout/self-edits").await;
    assert_eq!(before, after, "neither request was recorded, not even as refused");
    let (_, rows) = bearer_get(&app, &sam, "/api/org/agents/scout/memory?all=true").await;
    assert!(!rows.to_string().contains(&password), "{rows}");
    let core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap_or_default();
    assert!(!core.contains(&password));
}

/// Every file of the SQLite database, as bytes: whatever the store wrote is in one of them.
fn database_bytes(app: &TestApp) -> Vec<u8> {
    let path = app.database_url.strip_prefix("sqlite://").expect("a SQLite database");
    let mut all = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        if let Ok(bytes) = std::fs::read(format!("{path}{suffix}")) {
            all.extend(bytes);
        }
    }
    assert!(!all.is_empty(), "the database file is where the app said");
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_kept_from_a_record_holding_an_aws_key_keeps_it_masked() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let l2 = card_of(&c.app, &alice, "L-1002").await.expect("L-1002 is kept for Alice");
    let mut rec = lead(&c.ats, "L-1002").await;
    rec["notes"] = json!(format!("Their portal reads with {} (ask before using)", aws_key()));
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());

    // Refreshed through the browser's form, as a person presses Refresh.
    let browser = c.app.sign_in("alice").await;
    let r = c.app.form_post(&browser, "/fn/refresh_card", &[("id", &l2.to_string()), ("record", "lead L-1002")]).await;
    assert!(r.status().is_redirection());
    let card = c.app.memory.mine.my_cards(&alice).await.unwrap().into_iter().find(|v| v.card == l2).unwrap();
    let notes = card.fields.iter().find(|f| f.name == "notes").expect("the notes field is kept");
    assert_eq!(notes.value, "Their portal reads with AKIA…MPLE (ask before using)");
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(!html.contains(&aws_key()), "the page never shows the whole key");

    // A second refresh masks alike, so the masked key reads as no change.
    assert_eq!(c.app.memory.reads.refresh(&alice, l2).await.unwrap(), engine::cards::service::RefreshOutcome::NoChange);
    if !postgres_backend() {
        let bytes = database_bytes(&c.app);
        let whole = aws_key();
        assert!(!bytes.windows(whole.len()).any(|w| w == whole.as_bytes()), "the database holds the whole key");
    }
}
