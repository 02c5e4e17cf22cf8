//! Seed 004's `verify_endpoint` and `verify_model`: the audit's checks against live systems,
//! which the server makes over HTTP with bounded requests.

use async_trait::async_trait;

/// The most URLs one audit checks; the rest wait for the next audit.
pub const MAX_URLS: usize = 10;

#[async_trait]
pub trait LiveChecks: Send + Sync {
    /// Whether anything answers at the URL within the bounded request (any HTTP status counts),
    /// or why the URL was not asked at all.
    async fn reachable(&self, url: &str) -> Reach;
    /// The configured provider's model names and the model it is configured with, or why they
    /// could not be read.
    async fn provider_models(&self) -> Result<ProviderModels, NotListed>;
}

/// Why the provider's model names could not be read, naming the address asked; the audit's notes
/// say it after "models were not checked: ".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotListed {
    #[error("{url} did not answer within {secs} s")]
    Slow { url: String, secs: u64 },
    #[error("{url} could not be reached")]
    Unreachable { url: String },
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    /// Its answer was not read: `why` says what limit it broke.
    #[error("{url}: {why}")]
    Unread { url: String, why: String },
    #[error("{url} did not answer with JSON")]
    NotJson { url: String },
    #[error("{url} did not list models")]
    NoList { url: String },
}

/// What checking a URL a memory names found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Something answered, whatever its status.
    Answered,
    /// Nothing answered within the bounded request.
    Silent,
    /// The URL was not asked: an address taken from memory is never called on this machine or
    /// an internal network, nor with a scheme other than http and https. The sentence says why.
    NotAsked(String),
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
