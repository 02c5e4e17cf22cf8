//! A real HTTP server that plays the chat model agents answer through: OpenAI chat completions
//! (`/v1/chat/completions`) and Ollama's `/api/chat`, both with tool calls. It answers from a
//! script (a queue of replies), then with its default reply, and keeps every request body it was
//! sent.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The model name the stand-in is configured as: runs record `openai/stand-in`.
pub const STAND_IN_MODEL: &str = "stand-in";

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum AgentReply {
    /// The model answers with this text.
    Answer(String),
    /// The model asks for these calls: (tool name, arguments). Ids are `call_<request>_<i>`.
    ToolCalls(Vec<(String, Value)>),
    /// The server answers with this status and no reply.
    Status(u16),
    /// The server waits this long, then answers "{}".
    Hang(Duration),
}

impl AgentReply {
    pub fn answer(text: &str) -> Self {
        Self::Answer(text.to_string())
    }

    /// One call of one tool.
    pub fn call(tool: &str, arguments: Value) -> Self {
        Self::ToolCalls(vec![(tool.to_string(), arguments)])
    }
}

#[derive(Clone, Copy)]
enum Protocol {
    OpenAi,
    Ollama,
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<VecDeque<AgentReply>>>,
    default: Arc<Mutex<AgentReply>>,
    asked: Arc<Mutex<Vec<Value>>>,
}

pub struct AgentModelServer {
    pub base: String,
    shared: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for AgentModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn openai_message(reply: &AgentReply, n: usize) -> Value {
    match reply {
        AgentReply::ToolCalls(calls) => json!({
            "role": "assistant",
            "content": null,
            "tool_calls": calls.iter().enumerate().map(|(i, (name, args))| json!({
                "id": format!("call_{n}_{i}"),
                "type": "function",
                "function": {"name": name, "arguments": args.to_string()},
            })).collect::<Vec<_>>(),
        }),
        AgentReply::Answer(text) => json!({"role": "assistant", "content": text}),
        AgentReply::Status(_) | AgentReply::Hang(_) => unreachable!("not a message"),
    }
}

fn ollama_message(reply: &AgentReply) -> Value {
    match reply {
        AgentReply::ToolCalls(calls) => json!({
            "role": "assistant",
            "content": "",
            "tool_calls": calls.iter().map(|(name, args)| json!({"function": {"name": name, "arguments": args}}))
                .collect::<Vec<_>>(),
        }),
        AgentReply::Answer(text) => json!({"role": "assistant", "content": text}),
        AgentReply::Status(_) | AgentReply::Hang(_) => unreachable!("not a message"),
    }
}

async fn answer(shared: &Shared, body: Value, protocol: Protocol) -> Response {
    let n = {
        let mut asked = shared.asked.lock().unwrap();
        asked.push(body);
        asked.len()
    };
    let next = shared.script.lock().unwrap().pop_front();
    let reply = next.unwrap_or_else(|| shared.default.lock().unwrap().clone());
    match (&reply, protocol) {
        (AgentReply::Status(code), _) => StatusCode::from_u16(*code).unwrap().into_response(),
        (AgentReply::Hang(d), _) => {
            tokio::time::sleep(*d).await;
            Json(json!({})).into_response()
        }
        (_, Protocol::OpenAi) => {
            let finish = if matches!(reply, AgentReply::ToolCalls(_)) { "tool_calls" } else { "stop" };
            Json(json!({
                "id": format!("chatcmpl-{n}"),
                "object": "chat.completion",
                "model": STAND_IN_MODEL,
                "choices": [{"index": 0, "message": openai_message(&reply, n), "finish_reason": finish}],
            }))
            .into_response()
        }
        (_, Protocol::Ollama) => {
            Json(json!({"model": STAND_IN_MODEL, "message": ollama_message(&reply), "done": true})).into_response()
        }
    }
}

async fn openai(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, body, Protocol::OpenAi).await
}

async fn ollama(State(s): State<Shared>, Json(body): Json<Value>) -> Response {
    answer(&s, body, Protocol::Ollama).await
}

impl AgentModelServer {
    /// Serves on a port of its own; answers "The stand-in model's answer." until scripted.
    pub async fn start() -> Self {
        let shared = Shared {
            script: Arc::default(),
            default: Arc::new(Mutex::new(AgentReply::answer("The stand-in model's answer."))),
            asked: Arc::default(),
        };
        let router = Router::new()
            .route("/v1/chat/completions", post(openai))
            .route("/api/chat", post(ollama))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { base, shared, task }
    }

    /// Queues replies, answered in order before the default.
    pub fn script(&self, replies: impl IntoIterator<Item = AgentReply>) {
        self.shared.script.lock().unwrap().extend(replies);
    }

    /// The reply once the script has run out.
    pub fn set_default(&self, reply: AgentReply) {
        *self.shared.default.lock().unwrap() = reply;
    }

    /// Every request body received, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.asked.lock().unwrap().clone()
    }

    /// Settings that send agents to this server's OpenAI-compatible API as `openai/stand-in`,
    /// with a 2 s timeout; reflect reaches no model.
    pub fn openai_settings(&self) -> server::llm::ModelSettings {
        server::llm::ModelSettings {
            agent_model: Some(format!("openai/{STAND_IN_MODEL}")),
            openai_base_url: format!("{}/v1", self.base),
            openai_api_key: Some("test-key".into()),
            reflect_model: Some("off".into()),
            timeout: Duration::from_secs(2),
            ..crate::model_server::no_models()
        }
    }

    /// Settings that send agents to this server as Ollama, `ollama/stand-in`, with a 2 s timeout.
    pub fn ollama_settings(&self) -> server::llm::ModelSettings {
        server::llm::ModelSettings {
            agent_model: Some(format!("ollama/{STAND_IN_MODEL}")),
            ollama_host: self.base.clone(),
            reflect_model: Some("off".into()),
            timeout: Duration::from_secs(2),
            ..crate::model_server::no_models()
        }
    }
}
