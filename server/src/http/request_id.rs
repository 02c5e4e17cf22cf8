//! A span per request with an id that is sent back in `X-Request-Id`, so a person reporting a
//! problem can quote it and it can be found in the log lines of that request.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest id taken from a client; anything longer could flood the log lines it is repeated in.
const MAX_LEN: usize = 64;

/// A proxy's id is kept, so one request can be followed across both logs, but only a short token
/// that cannot break or forge a log line.
fn is_safe(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// A short random id, for a job run or a request that came without a usable one.
pub fn new_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

pub async fn span(req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| is_safe(v))
        .map_or_else(new_id, str::to_owned);
    // The path only: a query string may hold what should not be in a log.
    // `otel.kind` and the status are for the exported trace (see `telemetry`); a log line shows them too.
    let span = tracing::info_span!(
        "request",
        id = %id,
        method = %req.method(),
        path = %req.uri().path(),
        otel.kind = "server",
        http.response.status_code = tracing::field::Empty,
    );
    async move {
        let started = std::time::Instant::now();
        tracing::debug!("received");
        let mut res = next.run(req).await;
        let status = res.status();
        tracing::Span::current().record("http.response.status_code", status.as_u16());
        tracing::debug!(status = status.as_u16(), ms = started.elapsed().as_millis() as u64, "answered");
        // Refusals are logged here, once for every route, so each one carries the request's id.
        if status.is_client_error() {
            tracing::info!(status = status.as_u16(), "refused");
        } else if status.is_server_error() {
            tracing::warn!(status = status.as_u16(), "failed");
        }
        if let Ok(value) = HeaderValue::from_str(&id) {
            res.headers_mut().insert(REQUEST_ID, value);
        }
        res
    }
    .instrument(span)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_tokens_are_safe() {
        assert!(is_safe("abc-123_X.y"));
        assert!(is_safe(&"a".repeat(MAX_LEN)));
        assert!(!is_safe(&"a".repeat(MAX_LEN + 1)));
        assert!(!is_safe(""));
        assert!(!is_safe("two words"));
        assert!(!is_safe("line\nbreak"));
        assert!(!is_safe("id=\"forged\""));
    }

    #[test]
    fn new_ids_are_safe_and_differ() {
        let (a, b) = (new_id(), new_id());
        assert!(is_safe(&a) && a.len() == 16);
        assert_ne!(a, b);
    }
}
