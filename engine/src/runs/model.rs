//! The model an agent answers through: chat with tool calls. The server implements it over HTTP
//! (OpenAI-compatible chat completions with tools, and Ollama's `/api/chat` with tools); the demo
//! serves a scripted model that speaks the same protocol.

pub use crate::kernel::model::ModelError;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnRole {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub role: TurnRole,
    pub content: String,
    /// The calls an assistant turn asked for.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool turn answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

impl Turn {
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: TurnRole::System, content: content.into(), tool_calls: vec![], tool_call_id: None }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: TurnRole::User, content: content.into(), tool_calls: vec![], tool_call_id: None }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// A tool the model may call: a connector's read tool the agent's toolsets hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Unique across connectors: `<connector slug>__<tool>`.
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    Answer(String),
    ToolCalls(Vec<ToolCall>),
}

#[async_trait]
pub trait AgentModel: Send + Sync {
    /// `<provider>/<model>`, recorded on the run.
    fn name(&self) -> String;
    /// The demo's scripted model: the thread page says so plainly.
    fn is_demo(&self) -> bool {
        false
    }
    /// What its provider charges, in cents per million tokens sent and received, for what runs
    /// cost (Operations); 0 for a model that costs nothing per call (a local one, the demo's).
    fn cents_per_million_tokens(&self) -> u32 {
        0
    }
    async fn reply(&self, turns: &[Turn], tools: &[ToolSpec]) -> Result<Reply, ModelError>;
}

/// The chat model agents answer through, or why there is none.
#[derive(Clone)]
pub enum AgentModelChoice {
    Use(Arc<dyn AgentModel>),
    /// In words for the run's failure: "No chat model is set up: set ENGRAM_AGENT_MODEL".
    Off(String),
}
