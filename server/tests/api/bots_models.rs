//! Which model the bots' memory steps ask, and what it may read: `cheap` tries the local Ollama
//! first and probes it once; a step no model answers is passed over and named; a transcript
//! outside the bot's memory never reaches the model.

use crate::bots::{dispatch, ops, skipped};
use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post};
use crate::model_server::{ModelServer, Script};
use reqwest::StatusCode;
use serde_json::json;
use std::time::Duration;

/// `cheap` with a stand-in Ollama and a stand-in OpenAI-compatible API, both with a key.
/// Long enough for a stand-in that answers at once to answer on a loaded CI machine; the waits a test means to
/// expire are set apart, short.
const ANSWERS: Duration = Duration::from_secs(15);

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
    let settings = cheap(&ollama.base, &openai.base, ANSWERS, ANSWERS);
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
    let settings = cheap(&ollama.base, &openai.base, ANSWERS, Duration::from_millis(300));
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
    let app = spawn_bots_app(cheap(&ollama.base, &openai.base, ANSWERS, ANSWERS), 200).await;
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
    let app = spawn_bots_app(cheap(&ollama.base, &openai, Duration::from_secs(1), ANSWERS), 200).await;
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
    for _ in 0..500 {
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
