//! Lessons ranked by meaning beside their words, against a real HTTP server standing in for the
//! embedding endpoint (scripted vectors, not a model), on the test backend: a kept lesson is
//! embedded in the background and a question sharing no word with it loads it; a fault, an answer
//! slower than the question's timeout and a redirect to another host each leave the run to the
//! words alone, and the redirect is never followed; Ollama's API works the same.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::embed_server::{EmbedServer, Mode, EMBED_MODEL};
use crate::helpers::*;
use crate::lessons::loaded;
use crate::runs::ask;
use engine::lessons::vectors::{LessonVectors, CLAIM_MINUTES};
use reqwest::{Client, StatusCode};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PAYS: &str = "Kaveri Foods settles every invoice after 45 days";
const CALLS: &str = "Priya at Kaveri prefers a phone call before 10";
/// Shares no word with `PAYS`: only its meaning finds it.
const OWED: &str = "how long until they pay what they owe";

async fn app_with(embed: server::embed::EmbedSettings) -> (TestApp, AgentModelServer) {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let models = model.openai_settings();
    (spawn_app_with(move |s| (s.models, s.embed) = (models, Some(embed))).await, model)
}

async fn keep(app: &TestApp, c: &Client, text: &str) -> i64 {
    let r = c.post(app.url("/api/knowledge")).json(&json!({"scope": "private", "text": text})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await["id"].as_i64().unwrap()
}

/// Whether the lesson has a vector of `model` within two seconds: it is made in the background.
async fn embedded(app: &TestApp, id: i64, model: &str) -> bool {
    for _ in 0..40 {
        if app.store.lesson_vectors(&[id], model).await.unwrap().contains_key(&id) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn lessons(ids: &[i64]) -> Vec<String> {
    ids.iter().map(|id| format!("lesson:{id}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_lesson_is_embedded_and_a_question_sharing_no_word_with_it_loads_it() {
    let embed = EmbedServer::start().await;
    let (app, _model) = app_with(embed.openai()).await;
    let alice = app.sign_in("alice").await;
    let (pays, calls) = (keep(&app, &alice, PAYS).await, keep(&app, &alice, CALLS).await);
    let openai = format!("openai/{EMBED_MODEL}");
    assert!(embedded(&app, pays, &openai).await && embedded(&app, calls, &openai).await);
    assert!(embed.requests().iter().all(|r| r["model"] == EMBED_MODEL));
    let texts = embed.texts();
    assert_eq!(texts.iter().filter(|t| *t == PAYS || *t == CALLS).count(), 2, "each lesson embedded once: {texts:?}");

    let asked_before = embed.requests().len();
    let run = ask(&app, &alice, "Sales Assistant", OWED).await;
    assert_eq!(loaded(&run["run"]), lessons(&[pays]), "by meaning alone; the unlike lesson stays out");
    let requests = embed.requests();
    assert_eq!(requests.len(), asked_before + 1, "one call for the question");
    assert_eq!(requests.last().unwrap()["input"], json!([OWED]));

    // Words still count: a question naming Priya's call loads that lesson first.
    let run = ask(&app, &alice, "Sales Assistant", "when should I call Priya").await;
    assert_eq!(loaded(&run["run"]).first(), Some(&format!("lesson:{calls}")));

    // A lesson corrected is embedded again, as a new lesson; the old one's vector goes nowhere.
    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{pays}/correct")))
        .json(&json!({"text": "Kaveri Foods settles every invoice after 60 days"}))
        .send()
        .await
        .unwrap();
    let corrected = body(r).await["lesson"]["id"].as_i64().unwrap();
    assert!(embedded(&app, corrected, &openai).await);
    let run = ask(&app, &alice, "Sales Assistant", OWED).await;
    assert_eq!(loaded(&run["run"]), lessons(&[corrected]), "a superseded lesson never loads, whatever it means");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_a_slow_answer_or_a_redirect_to_another_host_leaves_the_run_to_the_words() {
    let embed = EmbedServer::start().await;
    let (app, _model) = app_with(embed.openai()).await;
    let alice = app.sign_in("alice").await;
    let (pays, calls) = (keep(&app, &alice, PAYS).await, keep(&app, &alice, CALLS).await);
    let openai = format!("openai/{EMBED_MODEL}");
    assert!(embedded(&app, pays, &openai).await && embedded(&app, calls, &openai).await);

    // Bob has no lessons: his run ranks nothing, and answers.
    let bob = app.sign_in("bob").await;
    let run = ask(&app, &bob, "Sales Assistant", OWED).await;
    assert_eq!((run["run"]["state"].as_str(), loaded(&run["run"])), (Some("answered"), Vec::<String>::new()));

    embed.set(Mode::Status(500));
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", OWED).await["run"]), Vec::<String>::new());
    let by_words = loaded(&ask(&app, &alice, "Sales Assistant", "when should I call Priya").await["run"]);
    assert_eq!(by_words.first(), Some(&format!("lesson:{calls}")), "the words alone rank");

    // Slower than the question's 400 ms: the run does not wait for it.
    embed.set(Mode::Hang(Duration::from_secs(3)));
    let started = Instant::now();
    let run = ask(&app, &alice, "Sales Assistant", OWED).await;
    assert!(started.elapsed() < Duration::from_millis(2_500), "the run waited {:?}", started.elapsed());
    assert_eq!(run["run"]["state"], "answered");
    assert_eq!(loaded(&run["run"]), Vec::<String>::new());

    // A redirect to another host is refused, for the question and for a lesson kept meanwhile.
    let elsewhere = EmbedServer::start_on("localhost").await;
    embed.set(Mode::Redirect(elsewhere.base.clone()));
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", OWED).await["run"]), Vec::<String>::new());
    let renewal = keep(&app, &alice, "The Kaveri renewal date is in March").await;
    assert!(!embedded(&app, renewal, &openai).await, "kept without a vector");
    assert!(elsewhere.requests().is_empty(), "no request went to the other host");
    // Once the endpoint answers again and the claim is stale, the minute's job embeds it.
    embed.set(Mode::Vectors);
    app.clock.advance(chrono::Duration::minutes(CLAIM_MINUTES + 1));
    let embedder = server::embed::HttpEmbedder::new(embed.openai(), &server::outbound::Outbound::default());
    let job = LessonVectors::new(app.store.clone(), Arc::new(embedder), app.clock.clone());
    server::jobs::embed_lessons(&job).await;
    assert!(embedded(&app, renewal, &openai).await);
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", OWED).await["run"]), lessons(&[pays]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollamas_api_embeds_lessons_and_questions_alike() {
    let embed = EmbedServer::start().await;
    let (app, _model) = app_with(embed.ollama()).await;
    let alice = app.sign_in("alice").await;
    let (pays, _calls) = (keep(&app, &alice, PAYS).await, keep(&app, &alice, CALLS).await);
    let ollama = format!("ollama/{EMBED_MODEL}");
    assert!(embedded(&app, pays, &ollama).await);
    assert!(app.store.lesson_vectors(&[pays], &format!("openai/{EMBED_MODEL}")).await.unwrap().is_empty());
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", OWED).await["run"]), lessons(&[pays]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_embedder_a_question_sharing_no_word_loads_nothing() {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let pays = keep(&app, &alice, PAYS).await;
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", OWED).await["run"]), Vec::<String>::new());
    let run = ask(&app, &alice, "Sales Assistant", "which invoice does Kaveri settle").await;
    assert_eq!(loaded(&run["run"]), lessons(&[pays]));
    assert!(app.store.lesson_vectors(&[pays], &format!("openai/{EMBED_MODEL}")).await.unwrap().is_empty());
}
