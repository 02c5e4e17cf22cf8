//! A real HTTP server that plays the model: OpenAI chat-completions, and Ollama's `/api/chat` and
//! `/api/tags`, with scripted replies, faults and delays, and a log of what it was asked.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub enum Script {
    /// The model answers with this content.
    Reply(String),
    /// The server answers with this status and no content.
    Status(u16),
    /// The server waits this long before answering "{}".
    Hang(Duration),
}

/// How `/api/tags`, Ollama's list of its models, answers.
#[derive(Debug, Clone)]
pub enum Tags {
    /// The models it has.
    Models(Vec<String>),
    Hang(Duration),
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<VecDeque<Script>>>,
    asked: Arc<Mutex<Vec<Value>>>,
    tags: Arc<Mutex<Tags>>,
    tags_asked: Arc<Mutex<u32>>,
}

pub struct ModelServer {
    pub base: String,
    shared: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn answer(shared: &Shared, body: Value, shape: fn(String) -> Value) -> Response {
    shared.asked.lock().unwrap().push(body);
    let next = shared.script.lock().unwrap().pop_front();
    match next {
        Some(Script::Reply(content)) => Json(shape(content)).into_response(),
        Some(Script::Status(code)) => StatusCode::from_u16(code).unwrap().into_response(),
        Some(Script::Hang(d)) => {
            tokio::time::sleep(d).await;
            Json(json!({})).into_response()
        }
        None => (StatusCode::SERVICE_UNAVAILABLE, "no scripted reply").into_response(),
    }
}

async fn openai(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, body, |c| json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": c}}]})).await
}

async fn ollama(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, body, |c| json!({"model": "stand-in", "message": {"role": "assistant", "content": c}, "done": true}))
        .await
}

async fn tags(State(s): State<Shared>) -> Response {
    *s.tags_asked.lock().unwrap() += 1;
    let tags = s.tags.lock().unwrap().clone();
    match tags {
        Tags::Models(names) => {
            Json(json!({"models": names.iter().map(|n| json!({"name": n, "model": n})).collect::<Vec<_>>()}))
                .into_response()
        }
        Tags::Hang(d) => {
            tokio::time::sleep(d).await;
            Json(json!({"models": []})).into_response()
        }
    }
}

/// The OpenAI-compatible list of models: the default configured one and one more.
async fn openai_models() -> Response {
    Json(json!({"object": "list", "data": [{"id": "gpt-4o-mini"}, {"id": "gpt-4.1"}]})).into_response()
}

/// An address nothing listens on, refusing every connection.
pub fn dead_url() -> String {
    // A socket bound but never listening: a connection is refused, and the port stays taken for
    // the whole test run, so no other test's server can be given it and answer after all.
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.bind("127.0.0.1:0".parse().unwrap()).expect("bind");
    let port = socket.local_addr().unwrap().port();
    std::mem::forget(socket);
    format!("http://127.0.0.1:{port}")
}

/// Settings under which no model answers: no local Ollama, no key.
pub fn no_models() -> server::llm::ModelSettings {
    server::llm::ModelSettings { ollama_host: dead_url(), ..Default::default() }
}

impl ModelServer {
    pub async fn start() -> Self {
        let shared = Shared {
            script: Arc::default(),
            asked: Arc::default(),
            tags: Arc::new(Mutex::new(Tags::Models(vec!["llama3.2:latest".into()]))),
            tags_asked: Arc::default(),
        };
        let router = Router::new()
            .route("/v1/chat/completions", post(openai))
            .route("/api/chat", post(ollama))
            .route("/api/tags", get(tags))
            .route("/v1/models", get(openai_models))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { base, shared, task }
    }

    pub fn script(&self, replies: impl IntoIterator<Item = Script>) {
        self.shared.script.lock().unwrap().extend(replies);
    }

    pub fn reply(&self, content: &str) {
        self.script([Script::Reply(content.to_string())]);
    }

    /// How `/api/tags` answers from now on.
    pub fn tags(&self, tags: Tags) {
        *self.shared.tags.lock().unwrap() = tags;
    }

    /// How often `/api/tags` was asked.
    pub fn tags_asked(&self) -> u32 {
        *self.shared.tags_asked.lock().unwrap()
    }

    /// Every chat request body received, oldest first.
    pub fn asked(&self) -> Vec<Value> {
        self.shared.asked.lock().unwrap().clone()
    }

    /// Settings that send `cheap` to this server's OpenAI-compatible API, with a short timeout:
    /// no local Ollama answers.
    pub fn openai_settings(&self) -> server::llm::ModelSettings {
        server::llm::ModelSettings {
            reflect_model: None,
            ollama_host: dead_url(),
            openai_base_url: format!("{}/v1", self.base),
            openai_api_key: Some("test-key".into()),
            timeout: Duration::from_secs(2),
            ..Default::default()
        }
    }

    /// Settings that send `cheap` to this server as the local Ollama.
    pub fn ollama_settings(&self) -> server::llm::ModelSettings {
        server::llm::ModelSettings {
            reflect_model: Some("cheap".into()),
            ollama_host: self.base.clone(),
            timeout: Duration::from_secs(2),
            // The start-up probe is meant to find this server; a loaded machine must not make it miss.
            probe_timeout: Duration::from_secs(15),
            ..Default::default()
        }
    }
}
