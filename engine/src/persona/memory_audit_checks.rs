//! Seed 004's `verify_endpoint` and `verify_model`: the audit's checks against live systems,
//! which the server makes over HTTP with bounded requests.

use async_trait::async_trait;

/// The most URLs one audit checks; the rest wait for the next audit.
pub const MAX_URLS: usize = 10;

#[async_trait]
pub trait LiveChecks: Send + Sync {
    /// Whether anything answers at the URL within the bounded request (any HTTP status counts).
    async fn reachable(&self, url: &str) -> bool;
    /// The configured provider's model names and the model it is configured with, or why they
    /// could not be read.
    async fn provider_models(&self) -> Result<ProviderModels, String>;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderModels {
    /// The provider, for the report: `openai` or `ollama`.
    pub provider: String,
    pub models: Vec<String>,
    /// The model Engram is configured to use there, which a mismatched `model:` is corrected to.
    pub configured: String,
}

impl ProviderModels {
    /// Whether the provider has the model (Ollama lists `llama3.2` as `llama3.2:latest`).
    pub fn has(&self, name: &str) -> bool {
        self.models.iter().any(|m| m == name || m.strip_suffix(":latest") == Some(name))
    }
}
