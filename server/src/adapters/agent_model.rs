//! The chat model agents answer through, over HTTP: any OpenAI-compatible chat-completions API
//! with function tools, and Ollama's `/api/chat` with tools. Failures map to `ModelError` as the
//! reflect step's clients map them (`llm.rs`), with the same timeout.

use crate::adapters::llm::{failed, read_json, ModelSettings};
use crate::adapters::outbound::Outbound;
use async_trait::async_trait;
use engine::org::Agent;
use engine::runs::model::{AgentModel, AgentModelChoice, ModelError, Reply, ToolCall, ToolSpec, Turn, TurnRole};
use engine::runs::service::AgentModels;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// What a run fails with when no chat model is set up at all.
pub const NO_AGENT_MODEL: &str = "No chat model is set up for agents: set ENGRAM_AGENT_MODEL or OPENAI_API_KEY";

fn role(role: TurnRole) -> &'static str {
    match role {
        TurnRole::System => "system",
        TurnRole::User => "user",
        TurnRole::Assistant => "assistant",
        TurnRole::Tool => "tool",
    }
}

fn function_tools(tools: &[ToolSpec]) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters,
            }})
        })
        .collect()
}

/// Sends a chat request and reads the JSON answer, failing as the reflect step's clients do.
async fn post_json(req: reqwest::RequestBuilder, timeout: Duration, outbound: &Outbound) -> Result<Value, ModelError> {
    let resp = req.send().await.map_err(|e| failed(e, timeout))?;
    if !resp.status().is_success() {
        return Err(ModelError::Status(resp.status().as_u16()));
    }
    read_json(outbound, resp, timeout).await
}

/// An OpenAI-compatible chat-completions API with function tools.
pub struct OpenAiAgent {
    base_url: String,
    api_key: Option<String>,
    model: String,
    timeout: Duration,
    demo: bool,
    /// What the provider charges, in cents per million tokens, for what runs cost.
    price: u32,
    http: reqwest::Client,
    outbound: Outbound,
}

impl OpenAiAgent {
    pub fn new(base_url: &str, api_key: Option<String>, model: &str, timeout: Duration, outbound: &Outbound) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model: model.to_string(),
            timeout,
            demo: false,
            price: 0,
            http: outbound.client(timeout),
            outbound: outbound.clone(),
        }
    }

    /// The price its calls are counted at in what runs cost, in cents per million tokens.
    pub fn priced_at(mut self, cents_per_million_tokens: u32) -> Self {
        self.price = cents_per_million_tokens;
        self
    }

    /// The demo's scripted model at this endpoint.
    pub fn demo(mut self) -> Self {
        self.demo = true;
        self
    }

    /// The request body: the turns as chat messages, and the tools as function tools.
    pub fn body(&self, turns: &[Turn], tools: &[ToolSpec]) -> Value {
        let messages: Vec<Value> = turns
            .iter()
            .map(|t| {
                let mut m = json!({"role": role(t.role), "content": t.content});
                if !t.tool_calls.is_empty() {
                    m["tool_calls"] = t
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function", "function": {
                                "name": c.name, "arguments": c.arguments.to_string(),
                            }})
                        })
                        .collect();
                    if t.content.is_empty() {
                        m["content"] = Value::Null;
                    }
                }
                if let Some(id) = &t.tool_call_id {
                    m["tool_call_id"] = json!(id);
                }
                m
            })
            .collect();
        let mut body = json!({"model": self.model, "temperature": 0, "messages": messages});
        // Some compatible APIs refuse an empty list of tools.
        if !tools.is_empty() {
            body["tools"] = function_tools(tools).into();
        }
        body
    }
}

/// The arguments of a call: a JSON object, which OpenAI sends as a string of JSON.
fn arguments(raw: Option<&Value>) -> Result<Value, ModelError> {
    match raw {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Some(Value::String(s)) => serde_json::from_str(s)
            .map_err(|e| ModelError::BadResponse(format!("a tool call's arguments are not JSON: {e}"))),
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(other) => Err(ModelError::BadResponse(format!("a tool call's arguments are {other}, not an object"))),
    }
}

/// The reply in a message: its tool calls when it has any, else its text.
fn reply_from(message: &Value, fresh_id: impl Fn(usize) -> String) -> Result<Reply, ModelError> {
    let calls = message.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty());
    if let Some(calls) = calls {
        let mut out = Vec::with_capacity(calls.len());
        for (i, c) in calls.iter().enumerate() {
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| ModelError::BadResponse("a tool call without function.name".into()))?;
            let id = c.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_string);
            out.push(ToolCall {
                id: id.unwrap_or_else(|| fresh_id(i)),
                name: name.to_string(),
                arguments: arguments(c.pointer("/function/arguments"))?,
            });
        }
        return Ok(Reply::ToolCalls(out));
    }
    message
        .get("content")
        .and_then(Value::as_str)
        .map(|c| Reply::Answer(c.to_string()))
        .ok_or_else(|| ModelError::BadResponse("neither content nor tool_calls in the message".into()))
}

#[async_trait]
impl AgentModel for OpenAiAgent {
    fn name(&self) -> String {
        format!("openai/{}", self.model)
    }

    fn is_demo(&self) -> bool {
        self.demo
    }

    fn cents_per_million_tokens(&self) -> u32 {
        self.price
    }

    async fn reply(&self, turns: &[Turn], tools: &[ToolSpec]) -> Result<Reply, ModelError> {
        let mut req = self.http.post(format!("{}/chat/completions", self.base_url)).json(&self.body(turns, tools));
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let v = post_json(req, self.timeout, &self.outbound).await?;
        let message =
            v.pointer("/choices/0/message").ok_or_else(|| ModelError::BadResponse("no choices[0].message".into()))?;
        reply_from(message, |i| format!("call_{}_{i}", turns.len()))
    }
}

/// Ollama's `/api/chat` with tools.
pub struct OllamaAgent {
    host: String,
    model: String,
    timeout: Duration,
    http: reqwest::Client,
    outbound: Outbound,
}

impl OllamaAgent {
    pub fn new(host: &str, model: &str, timeout: Duration, outbound: &Outbound) -> Self {
        Self {
            host: host.trim_end_matches('/').to_string(),
            model: model.to_string(),
            timeout,
            http: outbound.client(timeout),
            outbound: outbound.clone(),
        }
    }

    /// The request body. Ollama takes a call's arguments as an object, and names the tool a tool
    /// turn answers (`tool_name`) rather than the call's id.
    pub fn body(&self, turns: &[Turn], tools: &[ToolSpec]) -> Value {
        let tool_name =
            |id: &str| turns.iter().flat_map(|t| &t.tool_calls).find(|c| c.id == id).map(|c| c.name.clone());
        let messages: Vec<Value> = turns
            .iter()
            .map(|t| {
                let mut m = json!({"role": role(t.role), "content": t.content});
                if !t.tool_calls.is_empty() {
                    m["tool_calls"] = t
                        .tool_calls
                        .iter()
                        .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                }
                if let Some(name) = t.tool_call_id.as_deref().and_then(tool_name) {
                    m["tool_name"] = json!(name);
                }
                m
            })
            .collect();
        let mut body = json!({
            "model": self.model,
            "stream": false,
            "options": {"temperature": 0},
            "messages": messages,
        });
        if !tools.is_empty() {
            body["tools"] = function_tools(tools).into();
        }
        body
    }
}

#[async_trait]
impl AgentModel for OllamaAgent {
    fn name(&self) -> String {
        format!("ollama/{}", self.model)
    }

    async fn reply(&self, turns: &[Turn], tools: &[ToolSpec]) -> Result<Reply, ModelError> {
        let req = self.http.post(format!("{}/api/chat", self.host)).json(&self.body(turns, tools));
        let v = post_json(req, self.timeout, &self.outbound).await?;
        let message = v.get("message").ok_or_else(|| ModelError::BadResponse("no message".into()))?;
        // Ollama gives its calls no ids; the run needs one per call to pair each result with it.
        reply_from(message, |i| format!("call_{}_{i}", turns.len()))
    }
}

/// The chat model agents answer through, as configured on this machine: every agent uses it.
pub struct ConfiguredAgentModels {
    choice: AgentModelChoice,
}

impl ConfiguredAgentModels {
    pub fn new(settings: &ModelSettings) -> Self {
        Self { choice: resolve(settings) }
    }

    /// The configured model, or why there is none.
    pub fn choice(&self) -> &AgentModelChoice {
        &self.choice
    }
}

impl AgentModels for ConfiguredAgentModels {
    fn for_agent(&self, _agent: &Agent) -> AgentModelChoice {
        self.choice.clone()
    }
}

/// Whether `engram demo` serves its own scripted model: only when no real provider is set up
/// (neither ENGRAM_AGENT_MODEL nor OPENAI_API_KEY).
pub fn wants_demo_model(settings: &ModelSettings) -> bool {
    settings.agent_model.is_none() && settings.openai_api_key.is_none()
}

/// Points agents at the demo's scripted model, served at `base_url` (its API under `/v1`).
pub fn use_demo_model(settings: &mut ModelSettings, base_url: &str) {
    settings.agent_model = Some("openai/engram-demo".into());
    settings.openai_base_url = format!("{}/v1", base_url.trim_end_matches('/'));
    settings.agent_model_is_demo = true;
}

/// `ENGRAM_AGENT_MODEL` when set; else the OpenAI-compatible provider's model when it has a key;
/// else none.
fn resolve(s: &ModelSettings) -> AgentModelChoice {
    let spec = match s.agent_model.as_deref().map(str::trim) {
        Some(spec) => spec.to_string(),
        None if s.openai_api_key.is_some() || s.agent_model_is_demo => format!("openai/{}", s.openai_model),
        None => return AgentModelChoice::Off(NO_AGENT_MODEL.into()),
    };
    if spec == "off" {
        return AgentModelChoice::Off("ENGRAM_AGENT_MODEL is off: no chat model answers for agents".into());
    }
    let Some((provider, model)) = spec.split_once('/').filter(|(p, m)| !p.is_empty() && !m.is_empty()) else {
        return AgentModelChoice::Off(format!(
            "ENGRAM_AGENT_MODEL {spec:?} is not openai/<model>, ollama/<model> or off"
        ));
    };
    match provider {
        "ollama" => AgentModelChoice::Use(Arc::new(OllamaAgent::new(&s.ollama_host, model, s.timeout, &s.outbound))),
        "openai" if s.agent_model_is_demo => AgentModelChoice::Use(Arc::new(
            OpenAiAgent::new(&s.openai_base_url, s.openai_api_key.clone(), model, s.timeout, &s.outbound).demo(),
        )),
        "openai" => match &s.openai_api_key {
            // Priced as memory's calls to the same provider are (`ORG_OPENAI_CENTS_PER_MTOK`); the
            // demo's scripted model and a local Ollama cost nothing.
            Some(key) => AgentModelChoice::Use(Arc::new(
                OpenAiAgent::new(&s.openai_base_url, Some(key.clone()), model, s.timeout, &s.outbound)
                    .priced_at(s.openai_price),
            )),
            None => AgentModelChoice::Off("ENGRAM_AGENT_MODEL names openai but OPENAI_API_KEY is not set".into()),
        },
        other => AgentModelChoice::Off(format!(
            "ENGRAM_AGENT_MODEL names the provider {other:?}, which is not known here; use ollama, or openai with \
             OPENAI_BASE_URL for any OpenAI-compatible API"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(agent_model: Option<&str>, key: Option<&str>, demo: bool) -> ModelSettings {
        ModelSettings {
            agent_model: agent_model.map(String::from),
            openai_api_key: key.map(String::from),
            openai_model: "gpt-4.1-mini".into(),
            agent_model_is_demo: demo,
            ..ModelSettings::default()
        }
    }

    fn resolved(s: &ModelSettings) -> String {
        match ConfiguredAgentModels::new(s).choice() {
            AgentModelChoice::Use(m) => format!("{}{}", m.name(), if m.is_demo() { " (demo)" } else { "" }),
            AgentModelChoice::Off(why) => format!("off: {why}"),
        }
    }

    #[test]
    fn resolution() {
        assert_eq!(
            resolved(&settings(None, None, false)),
            "off: No chat model is set up for agents: set ENGRAM_AGENT_MODEL or OPENAI_API_KEY"
        );
        assert_eq!(resolved(&settings(None, Some("k"), false)), "openai/gpt-4.1-mini", "the provider with a key");
        assert_eq!(resolved(&settings(Some("openai/gpt-4o"), Some("k"), false)), "openai/gpt-4o");
        assert_eq!(resolved(&settings(Some(" ollama/qwen3 "), None, false)), "ollama/qwen3", "Ollama needs no key");
        assert_eq!(
            resolved(&settings(Some("openai/gpt-4o"), None, false)),
            "off: ENGRAM_AGENT_MODEL names openai but OPENAI_API_KEY is not set"
        );
        assert!(resolved(&settings(Some("off"), Some("k"), false)).starts_with("off: ENGRAM_AGENT_MODEL is off"));
        assert!(resolved(&settings(Some("gpt-4o"), Some("k"), false)).contains("is not openai/<model>"));
        assert!(resolved(&settings(Some("openai/"), Some("k"), false)).contains("is not openai/<model>"));
        assert!(
            resolved(&settings(Some("mistral/small"), Some("k"), false)).contains("\"mistral\", which is not known")
        );
    }

    #[test]
    fn the_demo_serves_its_model_only_without_a_real_provider() {
        assert!(wants_demo_model(&settings(None, None, false)));
        assert!(!wants_demo_model(&settings(None, Some("k"), false)), "OPENAI_API_KEY");
        assert!(!wants_demo_model(&settings(Some("ollama/qwen3"), None, false)), "ENGRAM_AGENT_MODEL");
        let mut s = settings(None, None, false);
        use_demo_model(&mut s, "http://127.0.0.1:3002/");
        assert_eq!(s.openai_base_url, "http://127.0.0.1:3002/v1");
        assert_eq!(resolved(&s), "openai/engram-demo (demo)");
    }

    #[test]
    fn the_demo_model_needs_no_key_and_says_it_is_the_demo() {
        assert_eq!(resolved(&settings(Some("openai/engram-demo"), None, true)), "openai/engram-demo (demo)");
        assert_eq!(resolved(&settings(None, None, true)), "openai/gpt-4.1-mini (demo)");
        assert_eq!(resolved(&settings(Some("ollama/qwen3"), None, true)), "ollama/qwen3", "only the openai endpoint");
    }

    #[test]
    fn a_runs_model_is_priced_as_its_provider_is_and_the_demo_and_ollama_cost_nothing() {
        let price = |s: &ModelSettings| match ConfiguredAgentModels::new(s).choice() {
            AgentModelChoice::Use(m) => m.cents_per_million_tokens(),
            AgentModelChoice::Off(why) => panic!("{why}"),
        };
        let mut priced = settings(None, Some("k"), false);
        priced.openai_price = 250;
        assert_eq!(price(&priced), 250, "ORG_OPENAI_CENTS_PER_MTOK");
        assert_eq!(price(&settings(None, Some("k"), false)), crate::adapters::llm::DEFAULT_OPENAI_PRICE);
        assert_eq!(price(&settings(None, None, true)), 0, "the demo's scripted model");
        assert_eq!(price(&settings(Some("ollama/qwen3"), None, false)), 0, "a local model");
    }

    fn sample_turns() -> Vec<Turn> {
        vec![
            Turn::system("sys"),
            Turn::user("What stage is Nimbus Logistics at?"),
            Turn {
                role: TurnRole::Assistant,
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "acme_ats__search_leads".into(),
                    arguments: json!({"query": "Nimbus"}),
                }],
                tool_call_id: None,
            },
            Turn {
                role: TurnRole::Tool,
                content: "{\"records\": []}".into(),
                tool_calls: vec![],
                tool_call_id: Some("call_1".into()),
            },
        ]
    }

    fn sample_tools() -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "acme_ats__search_leads".into(),
            description: "Finds leads.".into(),
            parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        }]
    }

    #[test]
    fn the_openai_body_carries_tools_and_tool_turns() {
        let m = OpenAiAgent::new("http://x/v1/", None, "m", Duration::from_secs(1), &Outbound::default());
        let body = m.body(&sample_turns(), &sample_tools());
        assert_eq!(body["temperature"], 0);
        assert_eq!(body["tools"][0]["type"], "function");
        assert_eq!(body["tools"][0]["function"]["name"], "acme_ats__search_leads");
        let call = &body["messages"][2];
        assert_eq!(call["content"], Value::Null);
        assert_eq!(call["tool_calls"][0]["id"], "call_1");
        assert_eq!(call["tool_calls"][0]["function"]["arguments"], "{\"query\":\"Nimbus\"}");
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "content": "{\"records\": []}", "tool_call_id": "call_1"})
        );
        assert!(m.body(&sample_turns()[..2], &[]).get("tools").is_none(), "no empty list of tools");
    }

    #[test]
    fn the_ollama_body_carries_arguments_as_objects_and_names_the_tool_answered() {
        let m = OllamaAgent::new("http://x:11434", "qwen3", Duration::from_secs(1), &Outbound::default());
        let body = m.body(&sample_turns(), &sample_tools());
        assert_eq!(body["options"]["temperature"], 0);
        assert_eq!(body["stream"], false);
        assert_eq!(body["messages"][2]["tool_calls"][0]["function"]["arguments"], json!({"query": "Nimbus"}));
        assert_eq!(body["messages"][3]["tool_name"], "acme_ats__search_leads");
    }

    #[test]
    fn replies_are_read_as_calls_or_text() {
        let id = |i: usize| format!("fresh_{i}");
        let calls = json!({"tool_calls": [{"function": {"name": "t", "arguments": "{\"a\": 1}"}}]});
        assert_eq!(
            reply_from(&calls, id).unwrap(),
            Reply::ToolCalls(vec![ToolCall { id: "fresh_0".into(), name: "t".into(), arguments: json!({"a": 1}) }])
        );
        assert_eq!(reply_from(&json!({"content": "hi", "tool_calls": []}), id).unwrap(), Reply::Answer("hi".into()));
        assert!(matches!(reply_from(&json!({"content": null}), id), Err(ModelError::BadResponse(_))));
        let bad = json!({"tool_calls": [{"id": "c", "function": {"name": "t", "arguments": "{not json"}}]});
        assert!(matches!(reply_from(&bad, id), Err(ModelError::BadResponse(_))));
    }
}
