//! The memory audit's checks against live systems (seed 004's `verify_endpoint` and
//! `verify_model`), each a bounded request with a short timeout. A URL in a memory file was
//! written by a bot, so it is called as an untrusted address (see `outbound`): http and https
//! only, never this machine or an internal network, pinned to the address checked, no redirects.
//! The provider's model list is at an address the admin configured, so it is called as any
//! provider call is.

use crate::adapters::llm::ModelSettings;
use crate::adapters::outbound::OutboundError;
use async_trait::async_trait;
use engine::persona::memory_audit_checks::{LiveChecks, NotListed, ProviderModels, Reach};
use serde_json::Value;
use std::time::Duration;

pub const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

pub struct HttpLiveChecks {
    /// For the provider's list only: memory's URLs get a client of their own, pinned.
    client: reqwest::Client,
    models: ModelSettings,
}

impl HttpLiveChecks {
    pub fn new(models: ModelSettings) -> Self {
        Self { client: models.outbound.client(CHECK_TIMEOUT), models }
    }

    /// The names a provider lists: each `{list}[].{name}` of its answer.
    async fn names(&self, url: &str, key: Option<&str>, list: &str, name: &str) -> Result<Vec<String>, NotListed> {
        let v = self.json(url, key).await?;
        Ok(v.get(list)
            .and_then(Value::as_array)
            .ok_or_else(|| NotListed::NoList { url: url.to_string() })?
            .iter()
            .filter_map(|m| m.get(name).and_then(Value::as_str).map(str::to_string))
            .collect())
    }

    async fn json(&self, url: &str, key: Option<&str>) -> Result<Value, NotListed> {
        let url = url.to_string();
        let mut req = self.client.get(&url);
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                NotListed::Slow { url: url.clone(), secs: CHECK_TIMEOUT.as_secs() }
            } else {
                NotListed::Unreachable { url: url.clone() }
            }
        })?;
        if !resp.status().is_success() {
            return Err(NotListed::Status { url, status: resp.status().as_u16() });
        }
        self.models.outbound.read_json(resp).await.map_err(|e| match e {
            e @ OutboundError::TooLarge { .. } => NotListed::Unread { url, why: e.to_string() },
            _ => NotListed::NotJson { url },
        })
    }
}

#[async_trait]
impl LiveChecks for HttpLiveChecks {
    async fn reachable(&self, url: &str) -> Reach {
        let (client, parsed) = match self.models.outbound.untrusted(url, CHECK_TIMEOUT).await {
            Ok(c) => c,
            // A name that resolves to nothing is as good as a service that does not answer.
            Err(e @ OutboundError::Unresolved { .. }) => {
                tracing::info!(url, why = %e, "a URL in a memory file did not resolve");
                return Reach::Silent;
            }
            Err(e) => {
                tracing::info!(url, why = %e, "a URL in a memory file was not called");
                return Reach::NotAsked(e.to_string());
            }
        };
        // Any answer, whatever its status, means the service is there.
        match client.head(parsed).send().await {
            Ok(_) => Reach::Answered,
            Err(e) => {
                tracing::info!(url, error = %e, "a URL in a memory file did not answer");
                Reach::Silent
            }
        }
    }

    async fn provider_models(&self) -> Result<ProviderModels, NotListed> {
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
