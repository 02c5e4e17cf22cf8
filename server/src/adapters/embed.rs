//! The embedding endpoints lessons are ranked by beside their words: any OpenAI-compatible
//! `POST {base}/embeddings` (`{model, input: [...]}` answered with `data[].embedding`), or
//! Ollama's `POST {host}/api/embed` (`{model, input}` answered with `embeddings`). Every call
//! goes through the one outbound policy (no redirect to another host, a bounded answer) with a
//! timeout: a question's is short, as a run waits for it; lessons' is the models' timeout.

use crate::adapters::outbound::{Outbound, OutboundError};
use async_trait::async_trait;
use engine::kernel::embed::{EmbedError, EmbedFor, Embedder};
use engine::kernel::DataLabel;
use serde_json::{json, Value};
use std::time::Duration;

/// The similarity below which a lesson is not like a question, unless `ENGRAM_EMBED_MIN_SIMILARITY`
/// says otherwise.
pub const DEFAULT_MIN_SIMILARITY: f32 = 0.5;
/// How long a run waits for its question's vector, unless `ENGRAM_EMBED_TIMEOUT_MS` says otherwise.
pub const DEFAULT_QUESTION_TIMEOUT: Duration = Duration::from_millis(1500);

/// Which API the endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedApi {
    OpenAi,
    Ollama,
}

/// `ENGRAM_EMBED_MODEL` and what goes with it; `None` in the server's `Settings` when no embedder is set.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedSettings {
    pub api: EmbedApi,
    pub model: String,
    /// The OpenAI-compatible base URL (`ENGRAM_EMBED_BASE_URL`, else `OPENAI_BASE_URL`), or
    /// Ollama's host (`OLLAMA_HOST`).
    pub base_url: String,
    /// `ENGRAM_EMBED_API_KEY`, else `OPENAI_API_KEY`; Ollama takes none.
    pub api_key: Option<String>,
    /// The highest label it may be sent: the OpenAI-compatible provider's `ORG_OPENAI_CLEARED_FOR`;
    /// everything for Ollama, whose reading stays where the operator runs it.
    pub cleared_for: DataLabel,
    pub min_similarity: f32,
    pub question_timeout: Duration,
    pub lessons_timeout: Duration,
}

impl EmbedSettings {
    /// Reads `ENGRAM_EMBED_MODEL` (`openai/<model>`, `ollama/<model>`, or unset or `off` for
    /// none) with the rest of the model settings already read; `Err` is the sentence for the log
    /// when it names something unknown, and then there is no embedder.
    pub fn from_env(
        spec: Option<&str>,
        models: &super::llm::ModelSettings,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, String> {
        let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty() && *s != "off") else { return Ok(None) };
        let (api, model) = match spec.split_once('/') {
            Some(("openai", m)) if !m.is_empty() => (EmbedApi::OpenAi, m),
            Some(("ollama", m)) if !m.is_empty() => (EmbedApi::Ollama, m),
            _ => return Err(format!("ENGRAM_EMBED_MODEL is {spec:?}, not openai/<model>, ollama/<model> or off")),
        };
        let question_timeout = env("ENGRAM_EMBED_TIMEOUT_MS")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_QUESTION_TIMEOUT);
        let min_similarity = env("ENGRAM_EMBED_MIN_SIMILARITY")
            .and_then(|v| v.trim().parse::<f32>().ok())
            .filter(|s| (-1.0..1.0).contains(s))
            .unwrap_or(DEFAULT_MIN_SIMILARITY);
        let (base_url, api_key, cleared_for) = match api {
            EmbedApi::OpenAi => (
                env("ENGRAM_EMBED_BASE_URL").unwrap_or_else(|| models.openai_base_url.clone()),
                env("ENGRAM_EMBED_API_KEY").or_else(|| models.openai_api_key.clone()),
                models.openai_cleared_for,
            ),
            EmbedApi::Ollama => (models.ollama_host.clone(), None, DataLabel::Personal),
        };
        // OpenAI's own API answers nothing without a key; another OpenAI-compatible one may not need one.
        if api == EmbedApi::OpenAi
            && api_key.is_none()
            && base_url.trim_end_matches('/') == super::llm::DEFAULT_OPENAI_BASE_URL
        {
            return Err(format!(
                "ENGRAM_EMBED_MODEL is {spec} but neither ENGRAM_EMBED_API_KEY nor OPENAI_API_KEY is set"
            ));
        }
        tracing::info!(model = spec, "lessons rank by meaning beside their words");
        Ok(Some(Self {
            api,
            model: model.to_string(),
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            cleared_for,
            min_similarity,
            question_timeout,
            lessons_timeout: models.timeout,
        }))
    }
}

pub struct HttpEmbedder {
    settings: EmbedSettings,
    http: reqwest::Client,
    outbound: Outbound,
}

impl HttpEmbedder {
    pub fn new(settings: EmbedSettings, outbound: &Outbound) -> Self {
        let longest = settings.lessons_timeout.max(settings.question_timeout);
        Self { http: outbound.client(longest), outbound: outbound.clone(), settings }
    }
}

/// Why a call failed, in the port's words: a redirect elsewhere is the policy's refusal.
fn failed(e: reqwest::Error, timeout: Duration) -> EmbedError {
    if e.is_timeout() {
        EmbedError::Timeout(timeout.as_millis() as u64)
    } else if e.is_redirect() {
        EmbedError::Refused(
            std::error::Error::source(&e).map_or_else(|| "it redirected too often".into(), |why| why.to_string()),
        )
    } else if e.is_connect() {
        EmbedError::Unreachable(e.to_string())
    } else {
        EmbedError::BadResponse(e.to_string())
    }
}

/// The vectors of an answer: OpenAI's `data[].embedding`, put in the order of their `index`
/// where given, or Ollama's `embeddings`.
fn vectors(api: EmbedApi, v: &Value) -> Result<Vec<Vec<f32>>, EmbedError> {
    let bad = |why: &str| EmbedError::BadResponse(why.into());
    let numbers = |e: &Value| -> Result<Vec<f32>, EmbedError> {
        e.as_array()
            .ok_or_else(|| bad("a vector is not a list"))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32).ok_or_else(|| bad("a vector holds something not a number")))
            .collect()
    };
    match api {
        EmbedApi::OpenAi => {
            let data = v.get("data").and_then(Value::as_array).ok_or_else(|| bad("no data"))?;
            let mut out: Vec<(u64, Vec<f32>)> = Vec::with_capacity(data.len());
            for (i, d) in data.iter().enumerate() {
                let index = d.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                out.push((index, numbers(d.get("embedding").ok_or_else(|| bad("no data[].embedding"))?)?));
            }
            out.sort_by_key(|(i, _)| *i);
            Ok(out.into_iter().map(|(_, v)| v).collect())
        }
        EmbedApi::Ollama => {
            let all = v.get("embeddings").and_then(Value::as_array).ok_or_else(|| bad("no embeddings"))?;
            all.iter().map(numbers).collect()
        }
    }
}

#[async_trait]
impl Embedder for HttpEmbedder {
    fn model(&self) -> String {
        let provider = match self.settings.api {
            EmbedApi::OpenAi => "openai",
            EmbedApi::Ollama => "ollama",
        };
        format!("{provider}/{}", self.settings.model)
    }

    fn cleared_for(&self) -> DataLabel {
        self.settings.cleared_for
    }

    fn min_similarity(&self) -> f32 {
        self.settings.min_similarity
    }

    async fn embed(&self, texts: &[String], purpose: EmbedFor) -> Result<Vec<Vec<f32>>, EmbedError> {
        let s = &self.settings;
        let timeout = match purpose {
            EmbedFor::Question => s.question_timeout,
            EmbedFor::Lessons => s.lessons_timeout,
        };
        let (url, body) = match s.api {
            EmbedApi::OpenAi => (format!("{}/embeddings", s.base_url), json!({"model": s.model, "input": texts})),
            EmbedApi::Ollama => (format!("{}/api/embed", s.base_url), json!({"model": s.model, "input": texts})),
        };
        let mut req = self.http.post(url).timeout(timeout).json(&body);
        if let Some(key) = &s.api_key {
            req = req.bearer_auth(key);
        }
        let call = async {
            let resp = req.send().await.map_err(|e| failed(e, timeout))?;
            if !resp.status().is_success() {
                return Err(EmbedError::Status(resp.status().as_u16()));
            }
            self.outbound.read_json::<Value>(resp).await.map_err(|e| match e {
                OutboundError::Http(e) => failed(e, timeout),
                e => EmbedError::BadResponse(e.to_string()),
            })
        };
        // The request's own timeout covers reading the answer too; this bounds the whole call
        // however the answer trickles in.
        let answer = tokio::time::timeout(timeout, call)
            .await
            .map_err(|_| EmbedError::Timeout(timeout.as_millis() as u64))??;
        let out = vectors(s.api, &answer)?;
        if out.len() != texts.len() {
            return Err(EmbedError::BadResponse(format!("{} vectors for {} texts", out.len(), texts.len())));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_answers_are_read_in_order_and_anything_else_is_refused() {
        let openai = json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.5]},
        ]});
        assert_eq!(vectors(EmbedApi::OpenAi, &openai).unwrap(), vec![vec![1.0, 0.5], vec![0.0, 1.0]]);
        let ollama = json!({"model": "nomic-embed-text", "embeddings": [[0.25, 0.5]]});
        assert_eq!(vectors(EmbedApi::Ollama, &ollama).unwrap(), vec![vec![0.25, 0.5]]);
        assert!(vectors(EmbedApi::OpenAi, &ollama).is_err());
        assert!(vectors(EmbedApi::Ollama, &json!({"embeddings": [["a"]]})).is_err());
    }

    #[test]
    fn the_setting_names_a_provider_and_a_model_or_nothing() {
        let models = super::super::llm::ModelSettings::default();
        let none = |_: &str| None;
        assert_eq!(EmbedSettings::from_env(None, &models, none), Ok(None));
        assert_eq!(EmbedSettings::from_env(Some("off"), &models, none), Ok(None));
        assert!(EmbedSettings::from_env(Some("mistral/embed"), &models, none)
            .unwrap_err()
            .contains("ENGRAM_EMBED_MODEL"));
        let o = EmbedSettings::from_env(Some("ollama/nomic-embed-text"), &models, none).unwrap().unwrap();
        assert_eq!(
            (o.api, o.base_url.as_str(), o.cleared_for),
            (EmbedApi::Ollama, "http://127.0.0.1:11434", DataLabel::Personal)
        );
        let env = |k: &str| match k {
            "ENGRAM_EMBED_BASE_URL" => Some("http://embed.internal/v1/".to_string()),
            "ENGRAM_EMBED_TIMEOUT_MS" => Some("400".to_string()),
            "ENGRAM_EMBED_MIN_SIMILARITY" => Some("0.3".to_string()),
            _ => None,
        };
        let keyless = EmbedSettings::from_env(Some("openai/text-embedding-3-small"), &models, none);
        assert!(keyless.unwrap_err().contains("OPENAI_API_KEY"), "OpenAI's own API needs a key");
        let a = EmbedSettings::from_env(Some("openai/text-embedding-3-small"), &models, env).unwrap().unwrap();
        assert_eq!(a.base_url, "http://embed.internal/v1");
        assert_eq!(
            (a.question_timeout, a.min_similarity, a.cleared_for),
            (Duration::from_millis(400), 0.3, DataLabel::Internal)
        );
    }
}
