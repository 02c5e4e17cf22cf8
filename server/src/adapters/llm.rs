//! The model providers the reflect step calls over HTTP: any OpenAI-compatible chat-completions
//! API, and Ollama's native API (`/api/tags` to probe it, `/api/chat` to call it, whose `format:
//! json` holds the reply to JSON). Every call has a timeout; a failure is the caller's to log and
//! skip.

use crate::adapters::outbound::{Outbound, OutboundError};
use async_trait::async_trait;
use engine::cards::access::DataLabel;
use engine::persona::model::{call_millicents, not_cleared, ChatModel, ModelChoice, ModelError, Models, Priced};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
const OLLAMA_PORT: u16 = 11434;
/// gpt-4o-mini's price for what it writes, the dearer half, so the ledger never counts low.
pub const DEFAULT_OPENAI_PRICE: u32 = 60;

#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// `ORG_REFLECT_MODEL`: `cheap`, `off` or `<provider>/<model>`; `None` when not set.
    pub reflect_model: Option<String>,
    /// `OLLAMA_HOST`, else the local default.
    pub ollama_host: String,
    pub ollama_model: String,
    pub openai_base_url: String,
    pub openai_api_key: Option<String>,
    pub openai_model: String,
    /// `ORG_OPENAI_CENTS_PER_MTOK`: what the OpenAI-compatible provider charges, in cents per
    /// million tokens, for memory's spend ledger; a local Ollama costs nothing.
    pub openai_price: u32,
    /// `ORG_OPENAI_CLEARED_FOR`: the highest data label memory's calls may send the
    /// OpenAI-compatible provider (public, internal, confidential or personal); internal unless
    /// set. A local Ollama is cleared for everything, as what it reads stays on this machine.
    pub openai_cleared_for: DataLabel,
    pub timeout: Duration,
    /// How long the one start-up probe of the local Ollama waits for its answer.
    pub probe_timeout: Duration,
    /// `ENGRAM_AGENT_MODEL`: the chat model agents answer through, `openai/<model>`,
    /// `ollama/<model>` or `off`; `None` when not set.
    pub agent_model: Option<String>,
    /// The OpenAI-compatible endpoint is the demo's scripted model, which needs no key. Only
    /// `engram demo` sets it.
    pub agent_model_is_demo: bool,
    /// The policy every outbound call follows (`ENGRAM_OUTBOUND_MAX_BYTES`). It lives here, with
    /// the providers it mostly governs; the connectors, the outbox and the live checks take the
    /// same one from here.
    pub outbound: Outbound,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            reflect_model: None,
            ollama_host: DEFAULT_OLLAMA_HOST.to_string(),
            ollama_model: "llama3.2".to_string(),
            openai_base_url: DEFAULT_OPENAI_BASE_URL.to_string(),
            openai_api_key: None,
            openai_model: "gpt-4o-mini".to_string(),
            openai_price: DEFAULT_OPENAI_PRICE,
            openai_cleared_for: DataLabel::Internal,
            timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_millis(1500),
            agent_model: None,
            agent_model_is_demo: false,
            outbound: Outbound::default(),
        }
    }
}

impl ModelSettings {
    pub fn from_env() -> Self {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let d = Self::default();
        Self {
            reflect_model: env("ORG_REFLECT_MODEL"),
            ollama_host: env("OLLAMA_HOST").map(|h| ollama_url(&h)).unwrap_or(d.ollama_host),
            ollama_model: env("ORG_OLLAMA_MODEL").unwrap_or(d.ollama_model),
            openai_base_url: env("OPENAI_BASE_URL").unwrap_or(d.openai_base_url),
            openai_api_key: env("OPENAI_API_KEY"),
            openai_model: env("ORG_OPENAI_MODEL").unwrap_or(d.openai_model),
            openai_price: env("ORG_OPENAI_CENTS_PER_MTOK").and_then(|s| s.parse().ok()).unwrap_or(d.openai_price),
            openai_cleared_for: env("ORG_OPENAI_CLEARED_FOR")
                .and_then(|s| DataLabel::parse(s.trim()))
                .unwrap_or(d.openai_cleared_for),
            timeout: env("ORG_MODEL_TIMEOUT_SECS")
                .and_then(|s| s.parse().ok())
                .map(Duration::from_secs)
                .unwrap_or(d.timeout),
            probe_timeout: d.probe_timeout,
            agent_model: env("ENGRAM_AGENT_MODEL"),
            agent_model_is_demo: false,
            outbound: Outbound::from_env(),
        }
    }
}

/// `OLLAMA_HOST` as Ollama itself reads it: the scheme and the port may be left out
/// (`0.0.0.0`, `localhost:11500`).
pub fn ollama_url(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let (scheme, rest) = host.split_once("://").unwrap_or(("http", host));
    let authority = rest.split('/').next().unwrap_or("");
    let has_port = authority.rsplit_once(':').is_some_and(|(_, p)| !p.is_empty() && !p.ends_with(']'));
    if has_port {
        format!("{scheme}://{rest}")
    } else {
        format!("{scheme}://{authority}:{OLLAMA_PORT}{}", &rest[authority.len()..])
    }
}

/// A provider's answer, read within the outbound policy's cap.
pub(crate) async fn read_json(
    outbound: &Outbound,
    resp: reqwest::Response,
    timeout: Duration,
) -> Result<Value, ModelError> {
    outbound.read_json(resp).await.map_err(|e| match e {
        OutboundError::Http(e) => failed(e, timeout),
        e => ModelError::BadResponse(e.to_string()),
    })
}

pub(crate) fn failed(e: reqwest::Error, timeout: Duration) -> ModelError {
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
    outbound: Outbound,
    /// Cents per million tokens, sent and received alike, for the spend ledger.
    price: u32,
}

impl OpenAiChat {
    pub fn new(base_url: &str, api_key: Option<String>, model: &str, timeout: Duration, outbound: &Outbound) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model: model.to_string(),
            timeout,
            http: outbound.client(timeout),
            outbound: outbound.clone(),
            price: 0,
        }
    }

    /// The price its calls are counted at in the spend ledger, in cents per million tokens.
    pub fn priced_at(mut self, cents_per_million_tokens: u32) -> Self {
        self.price = cents_per_million_tokens;
        self
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
        let v = read_json(&self.outbound, resp, self.timeout).await?;
        v.pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| ModelError::BadResponse("no choices[0].message.content".into()))
    }

    async fn chat_priced(&self, system: &str, user: &str) -> Result<Priced, ModelError> {
        let text = self.chat(system, user).await?;
        let millicents = call_millicents(self.price, &[system, user], &text);
        Ok(Priced { text, millicents })
    }
}

pub struct OllamaChat {
    host: String,
    model: String,
    timeout: Duration,
    http: reqwest::Client,
    outbound: Outbound,
}

impl OllamaChat {
    pub fn new(host: &str, model: &str, timeout: Duration, outbound: &Outbound) -> Self {
        Self {
            host: host.trim_end_matches('/').to_string(),
            model: model.to_string(),
            timeout,
            http: outbound.client(timeout),
            outbound: outbound.clone(),
        }
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
        let v = read_json(&self.outbound, resp, self.timeout).await?;
        v.pointer("/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| ModelError::BadResponse("no message.content".into()))
    }
}

/// What the one start-up probe of the local Ollama found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// It answered and has the model.
    Ready,
    /// It answered without the model: `ollama pull` it.
    NoModel,
    /// It did not answer, or not as Ollama does.
    Down(String),
}

/// Asks Ollama once which models it has (`GET /api/tags`), within `timeout`.
pub async fn probe_ollama(host: &str, model: &str, timeout: Duration, outbound: &Outbound) -> Probe {
    let answer = outbound.client(timeout).get(format!("{host}/api/tags")).send().await;
    let resp = match answer {
        Ok(r) if r.status().is_success() => r,
        Ok(r) => return Probe::Down(format!("status {}", r.status().as_u16())),
        Err(e) if e.is_timeout() => return Probe::Down(format!("no answer within {} ms", timeout.as_millis())),
        Err(e) if e.is_connect() => return Probe::Down("nothing listens there".into()),
        Err(e) => return Probe::Down(e.to_string()),
    };
    let v: Value = match outbound.read_json(resp).await {
        Ok(v) => v,
        Err(e @ OutboundError::TooLarge { .. }) => return Probe::Down(e.to_string()),
        Err(_) => return Probe::Down("not an Ollama answer".into()),
    };
    let Some(models) = v.get("models").and_then(Value::as_array) else {
        return Probe::Down("not an Ollama answer".into());
    };
    // `llama3.2` is pulled as `llama3.2:latest`.
    let has = models
        .iter()
        .filter_map(|m| m.get("name").and_then(Value::as_str))
        .any(|n| n == model || n.strip_suffix(":latest") == Some(model) || model.strip_suffix(":latest") == Some(n));
    if has {
        Probe::Ready
    } else {
        Probe::NoModel
    }
}

/// `cheap`: the local Ollama first, when the start-up probe found it ready, then the
/// OpenAI-compatible provider when it has a key. A call moves on when one does not answer
/// (unreachable, too slow, an error status); an answer out of shape is the answer.
struct Cheap {
    ollama: OllamaChat,
    ollama_label: String,
    openai: Option<(OpenAiChat, String)>,
    probe_timeout: Duration,
    /// Filled once, by the probe started with the server; a call made before it finishes waits
    /// for it, never probes again. Shared by the chains that try the same Ollama.
    probe: Arc<tokio::sync::OnceCell<Probe>>,
    /// What the last call that no model answered tried, for the agent page; an answer clears it.
    last_failure: Mutex<Option<String>>,
}

impl Cheap {
    async fn probed(&self) -> &Probe {
        self.probe
            .get_or_init(|| async {
                let probe =
                    probe_ollama(&self.ollama.host, &self.ollama.model, self.probe_timeout, &self.ollama.outbound)
                        .await;
                match &probe {
                    Probe::Ready => tracing::info!(ollama = self.ollama_label, "the local Ollama answers"),
                    Probe::NoModel => tracing::warn!(
                        ollama = self.ollama_label,
                        "the local Ollama answers without the model; cheap skips it until a restart"
                    ),
                    Probe::Down(why) => {
                        tracing::info!(
                            ollama = self.ollama_label,
                            why,
                            "no local Ollama; cheap skips it until a restart"
                        )
                    }
                }
                probe
            })
            .await
    }

    /// Why Ollama is not tried, once the probe has found it so.
    fn ollama_skipped(&self, probe: &Probe) -> Option<String> {
        match probe {
            Probe::Ready => None,
            Probe::NoModel => Some(format!(
                "{} answered at start-up without {} (ollama pull {})",
                self.ollama_label, self.ollama.model, self.ollama.model
            )),
            Probe::Down(why) => Some(format!("{} did not answer at start-up ({why})", self.ollama_label)),
        }
    }

    fn remember(&self, failure: Option<String>) {
        if let Ok(mut last) = self.last_failure.lock() {
            *last = failure;
        }
    }
}

struct CheapChain(Arc<Cheap>);

#[async_trait]
impl ChatModel for CheapChain {
    fn name(&self) -> String {
        let c = &self.0;
        let ollama_first = matches!(c.probe.get(), None | Some(Probe::Ready));
        let mut chain: Vec<&str> = Vec::new();
        if ollama_first {
            chain.push(&c.ollama_label);
        }
        if let Some((_, label)) = &c.openai {
            chain.push(label);
        }
        chain.join(", then ")
    }

    fn status(&self) -> Option<String> {
        let c = &self.0;
        if let Some(tried) = c.last_failure.lock().ok().and_then(|l| l.clone()) {
            return Some(format!("At the last call no model answered: tried {tried}."));
        }
        c.probe.get().and_then(|p| c.ollama_skipped(p)).map(|s| format!("Not tried: {s}."))
    }

    async fn chat(&self, system: &str, user: &str) -> Result<String, ModelError> {
        self.chat_priced(system, user).await.map(|p| p.text)
    }

    async fn chat_priced(&self, system: &str, user: &str) -> Result<Priced, ModelError> {
        let c = &self.0;
        let mut tried = Vec::new();
        let probe = c.probed().await;
        match c.ollama_skipped(probe) {
            Some(why) => tried.push(why),
            None => match c.ollama.chat(system, user).await {
                Ok(text) => {
                    c.remember(None);
                    return Ok(Priced { text, millicents: 0 });
                }
                Err(e @ ModelError::BadResponse(_)) => return Err(e),
                Err(e) => {
                    tracing::warn!(model = c.ollama_label, error = %e, "Ollama did not answer; trying the next");
                    tried.push(format!("{} ({e})", c.ollama_label));
                }
            },
        }
        match &c.openai {
            Some((openai, label)) => match openai.chat_priced(system, user).await {
                Ok(priced) => {
                    c.remember(None);
                    return Ok(priced);
                }
                Err(e @ ModelError::BadResponse(_)) => return Err(e),
                Err(e) => tried.push(format!("{label} ({e})")),
            },
            None => tried.push("no OpenAI-compatible provider, as OPENAI_API_KEY is not set".into()),
        }
        let tried = tried.join(", then ");
        c.remember(Some(tried.clone()));
        Err(ModelError::NoneAnswered(tried))
    }
}

pub struct ConfiguredModels {
    settings: ModelSettings,
    cheap: Arc<Cheap>,
    /// `cheap` without the provider, for calls carrying more than it is cleared for.
    local: Arc<Cheap>,
}

impl ConfiguredModels {
    /// The models as configured; Ollama is probed at the first call that needs it.
    pub fn new(settings: ModelSettings) -> Self {
        let s = &settings;
        let probe = Arc::new(tokio::sync::OnceCell::new());
        let chain = |with_provider: bool| Cheap {
            ollama: OllamaChat::new(&s.ollama_host, &s.ollama_model, s.timeout, &s.outbound),
            ollama_label: format!("ollama/{} at {}", s.ollama_model, s.ollama_host.trim_end_matches('/')),
            openai: s.openai_api_key.as_ref().filter(|_| with_provider).map(|key| {
                (
                    OpenAiChat::new(&s.openai_base_url, Some(key.clone()), &s.openai_model, s.timeout, &s.outbound)
                        .priced_at(s.openai_price),
                    format!("openai/{} at {}", s.openai_model, s.openai_base_url.trim_end_matches('/')),
                )
            }),
            probe_timeout: s.probe_timeout,
            probe: probe.clone(),
            last_failure: Mutex::new(None),
        };
        let (cheap, local) = (Arc::new(chain(true)), Arc::new(chain(false)));
        Self { settings, cheap, local }
    }

    /// As `new`, and probes the local Ollama once, now, in the background: start-up never waits
    /// for it, and no call probes again. Needs a Tokio runtime.
    pub fn start(settings: ModelSettings) -> Self {
        let models = Self::new(settings);
        if models.global() == "cheap" {
            let cheap = models.cheap.clone();
            tokio::spawn(async move {
                cheap.probed().await;
            });
        }
        models
    }

    fn global(&self) -> &str {
        self.settings.reflect_model.as_deref().unwrap_or("cheap")
    }

    fn provider_model(&self, spec: &str) -> ModelChoice {
        let s = &self.settings;
        let Some((provider, model)) = spec.split_once('/') else {
            return ModelChoice::Off(format!("{spec:?} is not cheap, off or <provider>/<model>"));
        };
        match provider {
            "ollama" => ModelChoice::Use(Arc::new(OllamaChat::new(&s.ollama_host, model, s.timeout, &s.outbound))),
            "openai" => match &s.openai_api_key {
                Some(key) => {
                    ModelChoice::Use(Arc::new(
                    OpenAiChat::new(&s.openai_base_url, Some(key.clone()), model, s.timeout, &s.outbound).priced_at(s.openai_price),
                ))
                }
                None => ModelChoice::Off("openai is named but OPENAI_API_KEY is not set".into()),
            },
            other => ModelChoice::Off(format!(
                "the provider {other:?} is not known here; use ollama, or openai with OPENAI_BASE_URL for any OpenAI-compatible API"
            )),
        }
    }

    fn cheap(&self) -> ModelChoice {
        let c = &self.cheap;
        // Known to have nothing to try: say so without a call. Until the probe answers, the
        // call itself waits for it.
        if c.openai.is_none() {
            if let Some(why) = c.probe.get().and_then(|p| c.ollama_skipped(p)) {
                return ModelChoice::Off(format!(
                    "no model answers here: {why}, and no OpenAI-compatible provider has a key (OPENAI_API_KEY)"
                ));
            }
        }
        ModelChoice::Use(Arc::new(CheapChain(c.clone())))
    }
}

impl Models for ConfiguredModels {
    fn resolve(&self, agent_model: &str) -> ModelChoice {
        let global = self.global();
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

    fn memory(&self) -> ModelChoice {
        // The demo company has no provider: its scripted model serves memory's jobs too.
        if self.settings.agent_model_is_demo && self.settings.openai_api_key.is_none() {
            let s = &self.settings;
            let model = s.agent_model.as_deref().and_then(|m| m.strip_prefix("openai/")).unwrap_or(&s.openai_model);
            return ModelChoice::Use(Arc::new(OpenAiChat::new(
                &s.openai_base_url,
                None,
                model,
                s.timeout,
                &s.outbound,
            )));
        }
        self.resolve("cheap")
    }

    fn memory_cleared_for(&self, carried: DataLabel) -> ModelChoice {
        let s = &self.settings;
        // The demo's scripted model runs on this machine, as a local model would.
        if (s.agent_model_is_demo && s.openai_api_key.is_none()) || carried <= s.openai_cleared_for {
            return self.memory();
        }
        let provider = format!(
            "the OpenAI-compatible provider is cleared for data up to {} (ORG_OPENAI_CLEARED_FOR)",
            s.openai_cleared_for.as_str()
        );
        match self.global() {
            "off" => ModelChoice::Off("ORG_REFLECT_MODEL is off".into()),
            "cheap" => {
                let local = &self.local;
                match local.probe.get().and_then(|p| local.ollama_skipped(p)) {
                    Some(why) => ModelChoice::Off(format!("{}: {why}, and {provider}", not_cleared(carried))),
                    None => ModelChoice::Use(Arc::new(CheapChain(local.clone()))),
                }
            }
            spec if spec.starts_with("ollama/") => self.provider_model(spec),
            _ => ModelChoice::Off(format!("{}: {provider}", not_cleared(carried))),
        }
    }

    fn describe(&self) -> String {
        match self.resolve("cheap") {
            ModelChoice::Use(m) => match m.status() {
                Some(status) => format!("Reflect uses {}. {status}", m.name()),
                None => format!("Reflect uses {}.", m.name()),
            },
            ModelChoice::Off(why) => format!("The model step is off: {why}."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(model: Option<&str>, ollama: &str, key: Option<&str>) -> ModelSettings {
        ModelSettings {
            reflect_model: model.map(String::from),
            ollama_host: ollama.to_string(),
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
        let none = ConfiguredModels::new(settings(None, DEFAULT_OLLAMA_HOST, None));
        assert_eq!(name(&none, "cheap"), "ollama/llama3.2 at http://127.0.0.1:11434", "Ollama is tried by default");
        none.cheap.probe.set(Probe::Down("nothing listens there".into())).unwrap();
        assert_eq!(
            name(&none, "cheap"),
            "off: no model answers here: ollama/llama3.2 at http://127.0.0.1:11434 did not answer at start-up \
             (nothing listens there), and no OpenAI-compatible provider has a key (OPENAI_API_KEY)"
        );
        let both = ConfiguredModels::new(settings(None, "http://x:1", Some("k")));
        assert_eq!(
            name(&both, "cheap"),
            "ollama/llama3.2 at http://x:1, then openai/gpt-4o-mini at https://api.openai.com/v1"
        );
        both.cheap.probe.set(Probe::NoModel).unwrap();
        assert_eq!(name(&both, "cheap"), "openai/gpt-4o-mini at https://api.openai.com/v1");
        assert_eq!(
            both.describe(),
            "Reflect uses openai/gpt-4o-mini at https://api.openai.com/v1. Not tried: ollama/llama3.2 at http://x:1 \
             answered at start-up without llama3.2 (ollama pull llama3.2)."
        );
        let off = ConfiguredModels::new(settings(Some("off"), "http://x:1", Some("k")));
        assert!(name(&off, "openai/gpt-4o").starts_with("off: ORG_REFLECT_MODEL is off"));
        let pinned = ConfiguredModels::new(settings(Some("openai/gpt-4.1-mini"), DEFAULT_OLLAMA_HOST, Some("k")));
        assert_eq!(name(&pinned, "cheap"), "openai/gpt-4.1-mini");
        assert_eq!(name(&pinned, "ollama/qwen"), "ollama/qwen");
        assert!(name(&pinned, "off").starts_with("off: this agent"));
        assert!(name(&none, "openai/gpt-4o").contains("OPENAI_API_KEY"));
        assert!(name(&none, "mistral/small").contains("not known"));
    }

    #[test]
    fn memory_sends_the_provider_only_what_it_is_cleared_for() {
        let cleared = |m: &ConfiguredModels, carried: DataLabel| match m.memory_cleared_for(carried) {
            ModelChoice::Use(m) => m.name(),
            ModelChoice::Off(why) => format!("off: {why}"),
        };
        let both = ConfiguredModels::new(settings(None, "http://x:1", Some("k")));
        assert_eq!(
            cleared(&both, DataLabel::Internal),
            "ollama/llama3.2 at http://x:1, then openai/gpt-4o-mini at https://api.openai.com/v1"
        );
        assert_eq!(cleared(&both, DataLabel::Confidential), "ollama/llama3.2 at http://x:1", "the local model alone");
        both.local.probe.set(Probe::Down("nothing listens there".into())).unwrap();
        assert!(
            cleared(&both, DataLabel::Personal).starts_with("off: no model of memory's is cleared for personal data: "),
            "{}",
            cleared(&both, DataLabel::Personal)
        );
        let pinned = ConfiguredModels::new(settings(Some("openai/gpt-4.1-mini"), DEFAULT_OLLAMA_HOST, Some("k")));
        assert_eq!(
            cleared(&pinned, DataLabel::Confidential),
            "off: no model of memory's is cleared for confidential data: the OpenAI-compatible provider is cleared \
             for data up to internal (ORG_OPENAI_CLEARED_FOR)"
        );
        let trusted = ConfiguredModels::new(ModelSettings {
            openai_cleared_for: DataLabel::Confidential,
            ..settings(Some("openai/gpt-4.1-mini"), DEFAULT_OLLAMA_HOST, Some("k"))
        });
        assert_eq!(cleared(&trusted, DataLabel::Confidential), "openai/gpt-4.1-mini");
        let local = ConfiguredModels::new(settings(Some("ollama/qwen"), DEFAULT_OLLAMA_HOST, None));
        assert_eq!(cleared(&local, DataLabel::Personal), "ollama/qwen");
    }

    #[test]
    fn ollama_host_is_read_as_ollama_reads_it() {
        assert_eq!(ollama_url("0.0.0.0"), "http://0.0.0.0:11434");
        assert_eq!(ollama_url("localhost:11500"), "http://localhost:11500");
        assert_eq!(ollama_url("https://ollama.example/"), "https://ollama.example:11434");
        assert_eq!(ollama_url("http://127.0.0.1:11434"), "http://127.0.0.1:11434");
        assert_eq!(ollama_url("[::1]"), "http://[::1]:11434");
    }
}
