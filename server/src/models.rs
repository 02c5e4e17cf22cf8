//! The model providers the reflect step calls over HTTP: any OpenAI-compatible chat-completions
//! API, and Ollama's `/api/chat`. Every call has a timeout; a failure is the caller's to log
//! and skip.

use async_trait::async_trait;
use engine::persona::model::{ChatModel, ModelChoice, ModelError, Models};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// `ORG_REFLECT_MODEL`: `cheap`, `off` or `<provider>/<model>`; `None` when not set.
    pub reflect_model: Option<String>,
    /// `OLLAMA_HOST`; `None` when not set.
    pub ollama_host: Option<String>,
    pub ollama_model: String,
    pub openai_base_url: String,
    pub openai_api_key: Option<String>,
    pub openai_model: String,
    pub timeout: Duration,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            reflect_model: None,
            ollama_host: None,
            ollama_model: "llama3.2".to_string(),
            openai_base_url: DEFAULT_OPENAI_BASE_URL.to_string(),
            openai_api_key: None,
            openai_model: "gpt-4o-mini".to_string(),
            timeout: Duration::from_secs(30),
        }
    }
}

impl ModelSettings {
    pub fn from_env() -> Self {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let d = Self::default();
        Self {
            reflect_model: env("ORG_REFLECT_MODEL"),
            ollama_host: env("OLLAMA_HOST"),
            ollama_model: env("ORG_OLLAMA_MODEL").unwrap_or(d.ollama_model),
            openai_base_url: env("OPENAI_BASE_URL").unwrap_or(d.openai_base_url),
            openai_api_key: env("OPENAI_API_KEY"),
            openai_model: env("ORG_OPENAI_MODEL").unwrap_or(d.openai_model),
            timeout: env("ORG_MODEL_TIMEOUT_SECS")
                .and_then(|s| s.parse().ok())
                .map(Duration::from_secs)
                .unwrap_or(d.timeout),
        }
    }
}

fn client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(3).min(timeout))
        .build()
        .unwrap_or_default()
}

fn failed(e: reqwest::Error, timeout: Duration) -> ModelError {
    if e.is_timeout() {
        ModelError::Timeout(timeout.as_secs())
    } else if e.is_connect() {
        ModelError::Unreachable(e.to_string())
    } else {
        ModelError::BadResponse(e.to_string())
    }
}

pub struct OpenAiChat {
    base_url: String,
    api_key: Option<String>,
    model: String,
    timeout: Duration,
    http: reqwest::Client,
}

impl OpenAiChat {
    pub fn new(base_url: &str, api_key: Option<String>, model: &str, timeout: Duration) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model: model.to_string(),
            timeout,
            http: client(timeout),
        }
    }
}

#[async_trait]
impl ChatModel for OpenAiChat {
    fn name(&self) -> String {
        format!("openai/{}", self.model)
    }

    async fn chat(&self, system: &str, user: &str) -> Result<String, ModelError> {
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        });
        let mut req = self.http.post(format!("{}/chat/completions", self.base_url)).json(&body);
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.map_err(|e| failed(e, self.timeout))?;
        if !resp.status().is_success() {
            return Err(ModelError::Status(resp.status().as_u16()));
        }
        let v: Value = resp.json().await.map_err(|e| failed(e, self.timeout))?;
        v.pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| ModelError::BadResponse("no choices[0].message.content".into()))
    }
}

pub struct OllamaChat {
    host: String,
    model: String,
    timeout: Duration,
    http: reqwest::Client,
}

impl OllamaChat {
    pub fn new(host: &str, model: &str, timeout: Duration) -> Self {
        Self { host: host.trim_end_matches('/').to_string(), model: model.to_string(), timeout, http: client(timeout) }
    }
}

#[async_trait]
impl ChatModel for OllamaChat {
    fn name(&self) -> String {
        format!("ollama/{}", self.model)
    }

    async fn chat(&self, system: &str, user: &str) -> Result<String, ModelError> {
        let body = json!({
            "model": self.model,
            "stream": false,
            "format": "json",
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        });
        let resp = self
            .http
            .post(format!("{}/api/chat", self.host))
            .json(&body)
            .send()
            .await
            .map_err(|e| failed(e, self.timeout))?;
        if !resp.status().is_success() {
            return Err(ModelError::Status(resp.status().as_u16()));
        }
        let v: Value = resp.json().await.map_err(|e| failed(e, self.timeout))?;
        v.pointer("/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| ModelError::BadResponse("no message.content".into()))
    }
}

/// `cheap`: the local Ollama first, then the chat provider that has a key, moving on only when
/// one cannot be reached.
pub struct FirstReachable(Vec<Arc<dyn ChatModel>>);

#[async_trait]
impl ChatModel for FirstReachable {
    fn name(&self) -> String {
        self.0.iter().map(|m| m.name()).collect::<Vec<_>>().join(", then ")
    }

    async fn chat(&self, system: &str, user: &str) -> Result<String, ModelError> {
        let mut last = ModelError::Unreachable("no model".into());
        for m in &self.0 {
            match m.chat(system, user).await {
                Err(ModelError::Unreachable(e)) => {
                    tracing::info!(model = m.name(), error = e, "model unreachable; trying the next");
                    last = ModelError::Unreachable(e);
                }
                other => return other,
            }
        }
        Err(last)
    }
}

pub struct ConfiguredModels {
    settings: ModelSettings,
}

impl ConfiguredModels {
    pub fn new(settings: ModelSettings) -> Self {
        Self { settings }
    }

    fn provider_model(&self, spec: &str) -> ModelChoice {
        let s = &self.settings;
        let Some((provider, model)) = spec.split_once('/') else {
            return ModelChoice::Off(format!("{spec:?} is not cheap, off or <provider>/<model>"));
        };
        match provider {
            "ollama" => ModelChoice::Use(Arc::new(OllamaChat::new(
                s.ollama_host.as_deref().unwrap_or(DEFAULT_OLLAMA_HOST),
                model,
                s.timeout,
            ))),
            "openai" => match &s.openai_api_key {
                Some(key) => {
                    ModelChoice::Use(Arc::new(OpenAiChat::new(&s.openai_base_url, Some(key.clone()), model, s.timeout)))
                }
                None => ModelChoice::Off("openai is named but OPENAI_API_KEY is not set".into()),
            },
            other => ModelChoice::Off(format!(
                "the provider {other:?} is not known here; use ollama, or openai with OPENAI_BASE_URL for any OpenAI-compatible API"
            )),
        }
    }

    fn cheap(&self) -> ModelChoice {
        let s = &self.settings;
        let explicit = s.reflect_model.as_deref() == Some("cheap");
        let mut chain: Vec<Arc<dyn ChatModel>> = Vec::new();
        if s.ollama_host.is_some() || explicit {
            chain.push(Arc::new(OllamaChat::new(
                s.ollama_host.as_deref().unwrap_or(DEFAULT_OLLAMA_HOST),
                &s.ollama_model,
                s.timeout,
            )));
        }
        if let Some(key) = &s.openai_api_key {
            chain.push(Arc::new(OpenAiChat::new(&s.openai_base_url, Some(key.clone()), &s.openai_model, s.timeout)));
        }
        match chain.len() {
            0 => ModelChoice::Off(
                "no model is configured here (set ORG_REFLECT_MODEL, OLLAMA_HOST or OPENAI_API_KEY)".into(),
            ),
            1 => ModelChoice::Use(chain.remove(0)),
            _ => ModelChoice::Use(Arc::new(FirstReachable(chain))),
        }
    }
}

impl Models for ConfiguredModels {
    fn resolve(&self, agent_model: &str) -> ModelChoice {
        let global = self.settings.reflect_model.as_deref().unwrap_or("cheap");
        if global == "off" {
            return ModelChoice::Off("ORG_REFLECT_MODEL is off".into());
        }
        match agent_model {
            "off" => ModelChoice::Off("this agent's reflect.model is off".into()),
            "cheap" if global == "cheap" => self.cheap(),
            "cheap" => self.provider_model(global),
            spec => self.provider_model(spec),
        }
    }

    fn describe(&self) -> String {
        match self.resolve("cheap") {
            ModelChoice::Use(m) => format!("Reflect uses {}.", m.name()),
            ModelChoice::Off(why) => format!("The model step is off: {why}."),
        }
    }
}

/// Replays recorded replies in order: the demo seeds its episodes through the real pipeline with
/// these, so no model is needed to show real content.
pub struct RecordedModel {
    replies: std::sync::Mutex<std::collections::VecDeque<String>>,
}

impl RecordedModel {
    pub fn new(replies: Vec<String>) -> Self {
        Self { replies: std::sync::Mutex::new(replies.into()) }
    }
}

#[async_trait]
impl ChatModel for RecordedModel {
    fn name(&self) -> String {
        "recorded/demo".to_string()
    }

    async fn chat(&self, _system: &str, _user: &str) -> Result<String, ModelError> {
        let mut q = self.replies.lock().map_err(|_| ModelError::BadResponse("poisoned".into()))?;
        q.pop_front().ok_or_else(|| ModelError::Unreachable("no recorded reply left".into()))
    }
}

pub struct Recorded(pub Arc<RecordedModel>);

impl Models for Recorded {
    fn resolve(&self, agent_model: &str) -> ModelChoice {
        if agent_model == "off" {
            return ModelChoice::Off("this agent's reflect.model is off".into());
        }
        ModelChoice::Use(self.0.clone())
    }

    fn describe(&self) -> String {
        "Reflect replays recorded replies.".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(model: Option<&str>, ollama: Option<&str>, key: Option<&str>) -> ModelSettings {
        ModelSettings {
            reflect_model: model.map(String::from),
            ollama_host: ollama.map(String::from),
            openai_api_key: key.map(String::from),
            ..ModelSettings::default()
        }
    }

    fn name(m: &ConfiguredModels, agent: &str) -> String {
        match m.resolve(agent) {
            ModelChoice::Use(m) => m.name(),
            ModelChoice::Off(why) => format!("off: {why}"),
        }
    }

    #[test]
    fn resolution() {
        let none = ConfiguredModels::new(settings(None, None, None));
        assert!(name(&none, "cheap").starts_with("off: no model is configured"));
        let explicit = ConfiguredModels::new(settings(Some("cheap"), None, None));
        assert_eq!(name(&explicit, "cheap"), "ollama/llama3.2");
        let both = ConfiguredModels::new(settings(None, Some("http://x"), Some("k")));
        assert_eq!(name(&both, "cheap"), "ollama/llama3.2, then openai/gpt-4o-mini");
        let off = ConfiguredModels::new(settings(Some("off"), Some("http://x"), Some("k")));
        assert!(name(&off, "openai/gpt-4o").starts_with("off: ORG_REFLECT_MODEL is off"));
        let pinned = ConfiguredModels::new(settings(Some("openai/gpt-4.1-mini"), None, Some("k")));
        assert_eq!(name(&pinned, "cheap"), "openai/gpt-4.1-mini");
        assert_eq!(name(&pinned, "ollama/qwen"), "ollama/qwen");
        assert!(name(&pinned, "off").starts_with("off: this agent"));
        assert!(name(&none, "openai/gpt-4o").contains("OPENAI_API_KEY"));
        assert!(name(&none, "mistral/small").contains("not known"));
    }
}
