//! A real HTTP server that plays an embedding endpoint: OpenAI-compatible `POST /v1/embeddings`
//! and Ollama's `POST /api/embed`. A text's vector is made from the topics it names (paying,
//! calling, dates: scripted, not a model), or the server answers a fault, hangs past a timeout,
//! or redirects to another host, as told. It keeps every request body it was sent.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The model name the stand-in is configured as: vectors are kept as `openai/stand-in-embed`.
pub const EMBED_MODEL: &str = "stand-in-embed";

/// How the stand-in answers.
#[derive(Debug, Clone)]
pub enum Mode {
    /// Vectors of the topics each text names.
    Vectors,
    /// This status and no vectors.
    Status(u16),
    /// Waits this long, then answers vectors.
    Hang(Duration),
    /// A 307 to this base URL, the same path.
    Redirect(String),
}

#[derive(Clone)]
struct Shared {
    mode: Arc<Mutex<Mode>>,
    asked: Arc<Mutex<Vec<Value>>>,
}

pub struct EmbedServer {
    pub base: String,
    shared: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EmbedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Scripted meaning: words about paying point one way, about calling another, about dates a
/// third, and every text a little along a fourth.
pub fn topics(text: &str) -> Vec<f32> {
    let t = text.to_lowercase();
    let has = |ws: &[&str]| ws.iter().filter(|w| t.contains(*w)).count() as f32;
    vec![
        has(&["pay", "invoice", "settle", "owe"]),
        has(&["call", "phone", "talk"]),
        has(&["march", "renew", "date"]),
        0.1,
    ]
}

fn inputs(body: &Value) -> Vec<String> {
    match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => vec![],
    }
}

async fn answer(shared: &Shared, path: &str, body: Value, ollama: bool) -> Response {
    shared.asked.lock().unwrap().push(body.clone());
    let mode = shared.mode.lock().unwrap().clone();
    match mode {
        Mode::Status(code) => return StatusCode::from_u16(code).unwrap().into_response(),
        Mode::Redirect(to) => {
            return (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, format!("{to}{path}"))]).into_response()
        }
        Mode::Hang(d) => tokio::time::sleep(d).await,
        Mode::Vectors => {}
    }
    let vectors: Vec<Vec<f32>> = inputs(&body).iter().map(|t| topics(t)).collect();
    if ollama {
        Json(json!({"model": EMBED_MODEL, "embeddings": vectors})).into_response()
    } else {
        let data: Vec<Value> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v}))
            .collect();
        Json(json!({"object": "list", "model": EMBED_MODEL, "data": data})).into_response()
    }
}

async fn openai(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, "/v1/embeddings", body, false).await
}

async fn ollama(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, "/api/embed", body, true).await
}

impl EmbedServer {
    /// Serves on a port of its own of `host` (`127.0.0.1`, or `localhost` for "another host").
    pub async fn start_on(host: &str) -> Self {
        let shared = Shared { mode: Arc::new(Mutex::new(Mode::Vectors)), asked: Arc::default() };
        let router = Router::new()
            .route("/v1/embeddings", post(openai))
            .route("/api/embed", post(ollama))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{host}:{}", listener.local_addr().unwrap().port());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { base, shared, task }
    }

    pub async fn start() -> Self {
        Self::start_on("127.0.0.1").await
    }

    pub fn set(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
    }

    /// Every request body received, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.asked.lock().unwrap().clone()
    }

    /// The texts it was asked to embed, oldest first.
    pub fn texts(&self) -> Vec<String> {
        self.requests().iter().flat_map(inputs).collect()
    }

    /// Embedding settings for this server's OpenAI-compatible API, with a question timeout of
    /// 400 ms and a lessons' timeout of 2 s.
    pub fn openai(&self) -> server::embed::EmbedSettings {
        server::embed::EmbedSettings {
            api: server::embed::EmbedApi::OpenAi,
            model: EMBED_MODEL.into(),
            base_url: format!("{}/v1", self.base),
            api_key: Some("test-key".into()),
            cleared_for: engine::kernel::DataLabel::Internal,
            min_similarity: 0.3,
            question_timeout: Duration::from_millis(400),
            lessons_timeout: Duration::from_secs(2),
        }
    }

    /// As `openai`, speaking Ollama's API.
    pub fn ollama(&self) -> server::embed::EmbedSettings {
        server::embed::EmbedSettings {
            api: server::embed::EmbedApi::Ollama,
            base_url: self.base.clone(),
            api_key: None,
            ..self.openai()
        }
    }
}
