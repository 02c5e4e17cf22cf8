//! The connector protocol's client: lists a source's tools and calls them over HTTP.

use crate::adapters::outbound::{Outbound, OutboundError};
use async_trait::async_trait;
use engine::cards::source::{ReadKey, Source, SourceError, ToolInfo};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

pub const ACTING_FOR_HEADER: &str = "X-Acting-For";

/// How long a connector has to answer.
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct HttpSource {
    http: reqwest::Client,
    outbound: Outbound,
}

impl HttpSource {
    /// A connector is an address an admin configured, so it may be internal; its redirects and
    /// the size of its answers are held to the outbound policy.
    pub fn new(outbound: &Outbound) -> Self {
        Self { http: outbound.client(TIMEOUT), outbound: outbound.clone() }
    }
}

impl Default for HttpSource {
    fn default() -> Self {
        Self::new(&Outbound::default())
    }
}

fn sent(e: reqwest::Error) -> SourceError {
    SourceError::Down(if e.is_timeout() {
        "it did not answer in time".into()
    } else if e.is_redirect() {
        // The policy's own reason: another host, or too many hops.
        std::error::Error::source(&e).map_or_else(|| "it redirected too often".into(), |why| why.to_string())
    } else {
        e.to_string()
    })
}

async fn answer(outbound: &Outbound, resp: reqwest::Response) -> Result<Value, SourceError> {
    let status = resp.status();
    // An answer that is not JSON is judged by its status alone, as before; one past the cap is
    // refused whatever its status.
    let body: Value = match outbound.read_json(resp).await {
        Ok(v) => v,
        Err(e @ OutboundError::TooLarge { .. }) => return Err(SourceError::Invalid(e.to_string())),
        Err(OutboundError::Http(e)) => return Err(sent(e)),
        Err(_) => Value::Null,
    };
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
        let body = answer(&self.outbound, resp).await?;
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
        let body = answer(&self.outbound, req.send().await.map_err(sent)?).await?;
        // A body that says "not found" is as good as a 404.
        if body.get("error").and_then(Value::as_str) == Some("not_found") {
            return Err(SourceError::NotFound);
        }
        body.get("result").cloned().ok_or_else(|| SourceError::Invalid("no \"result\" in its answer".into()))
    }
}
