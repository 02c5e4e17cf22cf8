//! The memory audit's checks against live systems (seed 004's `verify_endpoint` and
//! `verify_model`), each a bounded request: a short timeout, no redirects followed, and only
//! http and https.

use crate::llm::ModelSettings;
use async_trait::async_trait;
use engine::persona::memory_audit_checks::{LiveChecks, ProviderModels};
use serde_json::Value;
use std::time::Duration;

pub const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

pub struct HttpLiveChecks {
    client: reqwest::Client,
    models: ModelSettings,
}

impl HttpLiveChecks {
    pub fn new(models: ModelSettings) -> Self {
        let client = reqwest::Client::builder()
            .timeout(CHECK_TIMEOUT)
            .connect_timeout(CHECK_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self { client, models }
    }

    /// The names a provider lists: each `{list}[].{name}` of its answer.
    async fn names(&self, url: &str, key: Option<&str>, list: &str, name: &str) -> Result<Vec<String>, String> {
        let v = self.json(url, key).await?;
        Ok(v.get(list)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{url} did not list models"))?
            .iter()
            .filter_map(|m| m.get(name).and_then(Value::as_str).map(str::to_string))
            .collect())
    }

    async fn json(&self, url: &str, key: Option<&str>) -> Result<Value, String> {
        let mut req = self.client.get(url);
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                format!("{url} did not answer within {} s", CHECK_TIMEOUT.as_secs())
            } else {
                format!("{url} could not be reached")
            }
        })?;
        if !resp.status().is_success() {
            return Err(format!("{url} answered {}", resp.status().as_u16()));
        }
        resp.json().await.map_err(|_| format!("{url} did not answer with JSON"))
    }
}

#[async_trait]
impl LiveChecks for HttpLiveChecks {
    async fn reachable(&self, url: &str) -> bool {
        let Ok(parsed) = reqwest::Url::parse(url) else { return false };
        if !matches!(parsed.scheme(), "http" | "https") {
            return false;
        }
        // Any answer, whatever its status, means the service is there.
        match self.client.head(parsed).send().await {
            Ok(_) => true,
            Err(e) => {
                tracing::info!(url, error = %e, "a URL in a memory file did not answer");
                false
            }
        }
    }

    async fn provider_models(&self) -> Result<ProviderModels, String> {
        let s = &self.models;
        if s.openai_api_key.is_some() || s.agent_model_is_demo {
            let url = format!("{}/models", s.openai_base_url.trim_end_matches('/'));
            let models = self.names(&url, s.openai_api_key.as_deref(), "data", "id").await?;
            Ok(ProviderModels { provider: "openai".into(), models, configured: s.openai_model.clone() })
        } else {
            let url = format!("{}/api/tags", s.ollama_host.trim_end_matches('/'));
            let models = self.names(&url, None, "models", "name").await?;
            Ok(ProviderModels { provider: "ollama".into(), models, configured: s.ollama_model.clone() })
        }
    }
}
