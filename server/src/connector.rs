//! The connector protocol's client: lists a source's tools and calls them over HTTP.

use async_trait::async_trait;
use engine::cards::source::{ReadKey, Source, SourceError, ToolInfo};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

pub const ACTING_FOR_HEADER: &str = "X-Acting-For";

pub struct HttpSource {
    http: reqwest::Client,
}

impl HttpSource {
    pub fn new(timeout: Duration) -> Self {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(3).min(timeout))
            .build()
            .unwrap_or_default();
        Self { http }
    }
}

impl Default for HttpSource {
    fn default() -> Self {
        Self::new(Duration::from_secs(10))
    }
}

fn sent(e: reqwest::Error) -> SourceError {
    SourceError::Down(if e.is_timeout() { "it did not answer in time".into() } else { e.to_string() })
}

async fn answer(resp: reqwest::Response) -> Result<Value, SourceError> {
    let status = resp.status();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    let code = body.get("error").and_then(Value::as_str).unwrap_or("");
    match status {
        s if s.is_success() => Ok(body),
        StatusCode::NOT_FOUND if code != "unknown_tool" => Err(SourceError::NotFound),
        StatusCode::UNAUTHORIZED => Err(SourceError::Unauthorized),
        StatusCode::FORBIDDEN => Err(SourceError::Forbidden),
        s if s.is_server_error() => Err(SourceError::Down(format!("it answered {s}"))),
        s => Err(SourceError::Invalid(format!("{s}: {}", body.get("message").and_then(Value::as_str).unwrap_or(code)))),
    }
}

#[async_trait]
impl Source for HttpSource {
    async fn tools(&self, base_url: &str, company_key: &str) -> Result<Vec<ToolInfo>, SourceError> {
        let url = format!("{}/tools", base_url.trim_end_matches('/'));
        let resp = self.http.get(url).bearer_auth(company_key).send().await.map_err(sent)?;
        let body = answer(resp).await?;
        serde_json::from_value(body.get("tools").cloned().unwrap_or(Value::Null))
            .map_err(|e| SourceError::Invalid(format!("its tool list: {e}")))
    }

    async fn call(
        &self,
        base_url: &str,
        company_key: Option<&str>,
        key: &ReadKey,
        tool: &str,
        arguments: &Value,
    ) -> Result<Value, SourceError> {
        let url = format!("{}/tools/{tool}", base_url.trim_end_matches('/'));
        let mut req = self.http.post(url).json(&json!({ "arguments": arguments }));
        req = match key {
            ReadKey::Company => req.bearer_auth(company_key.unwrap_or_default()),
            ReadKey::ActingFor(email) => {
                req.bearer_auth(company_key.unwrap_or_default()).header(ACTING_FOR_HEADER, email.as_str())
            }
            ReadKey::OwnKey(secret) => req.bearer_auth(secret),
        };
        let body = answer(req.send().await.map_err(sent)?).await?;
        // A body that says "not found" is as good as a 404.
        if body.get("error").and_then(Value::as_str) == Some("not_found") {
            return Err(SourceError::NotFound);
        }
        body.get("result").cloned().ok_or_else(|| SourceError::Invalid("no \"result\" in its answer".into()))
    }
}
