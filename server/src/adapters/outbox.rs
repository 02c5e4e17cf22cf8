//! The outbox approved messages go to, over HTTP: `POST <ENGRAM_OUTBOX_URL>/messages` with
//! `{"from", "to", "subject", "body"}`. The demo serves one that keeps them in memory.

use crate::adapters::outbound::Outbound;
use async_trait::async_trait;
use engine::runs::outbox::{Outbox, OutboxError, OutgoingMessage};
use std::time::Duration;

pub struct HttpOutbox {
    url: String,
    http: reqwest::Client,
}

impl HttpOutbox {
    /// The outbox is an address the operator configured; its redirects are held to the outbound
    /// policy, and its answer is never read beyond the status.
    pub fn new(url: &str, outbound: &Outbound) -> Self {
        let http = outbound.client(Duration::from_secs(10));
        Self { url: url.trim_end_matches('/').to_string(), http }
    }
}

#[async_trait]
impl Outbox for HttpOutbox {
    async fn send(&self, message: &OutgoingMessage) -> Result<(), OutboxError> {
        let r = self.http.post(format!("{}/messages", self.url)).json(message).send().await.map_err(|e| {
            tracing::warn!(error = %e, "the outbox could not be reached");
            OutboxError::Unreachable
        })?;
        if r.status().is_success() {
            Ok(())
        } else {
            tracing::warn!(status = %r.status(), "the outbox refused a message");
            Err(OutboxError::Refused(r.status().as_u16()))
        }
    }
}
