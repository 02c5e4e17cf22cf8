//! `Idempotency-Key` on the API's `POST`s: a retry whose first answer was lost (a dropped
//! connection, a server stopped mid-answer) gets that answer again and creates nothing.
//!
//! The key is claimed in the store before the handler runs, so of two racing requests only one
//! runs. Only a 2xx answer is kept; a refusal frees the key, so the caller can fix and retry.

use crate::http::api::{bearer, session_person};
use crate::http::state::AppState;
use axum::body::{to_bytes, Body};
use axum::extract::{OriginalUri, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use blake2::{Blake2b512, Digest};
use engine::store::IdemClaim;
use serde_json::json;

pub const HEADER: &str = "idempotency-key";
pub const REPLAYED: &str = "idempotent-replayed";
/// How long a key is remembered.
pub const KEEP_HOURS: i64 = 24;

pub const BAD_KEY: &str = "The Idempotency-Key must be 1 to 255 visible characters (letters, digits or punctuation).";
pub const KEY_REUSED: &str =
    "This Idempotency-Key was already used for a different request; use a new key for a new request.";
pub const IN_FLIGHT: &str = "A request with this Idempotency-Key is still being answered; wait a moment and try again.";

/// Routes whose requests no key may keep a trace of: an erasure's body is the value it erases, and
/// even its hash must not outlive it. Erasing again is harmless (it finds nothing), so a retry
/// needs no key there.
const NOT_KEPT: &[&str] = &[crate::http::erasure_api::ROUTE];

/// Whether no key may keep a trace of this route's requests or answers: the routes above, making
/// or rotating an agent's trigger, and making an agent token, whose answers hold a secret that is
/// kept nowhere but as its hash. Making it again is a rotation (or another token, revoked as
/// easily), so a retry needs no key there either.
fn not_kept(path: &str) -> bool {
    NOT_KEPT.contains(&path)
        || crate::http::schedules_api::answers_a_secret(path)
        || crate::http::agent_tokens_api::answers_a_secret(path)
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({ "error": code, "message": message }))).into_response()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let Some(key) = request.headers().get(HEADER).cloned() else {
        return next.run(request).await;
    };
    let original = request.extensions().get::<OriginalUri>().map(|u| u.0.path().to_owned());
    if not_kept(original.as_deref().unwrap_or(request.uri().path())) {
        return next.run(request).await;
    }
    let key = match key.to_str() {
        Ok(k) if !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic()) => k.to_owned(),
        _ => return refuse(StatusCode::BAD_REQUEST, "bad_idempotency_key", BAD_KEY),
    };
    let (mut parts, body) = request.into_parts();
    // Keys are the caller's own: a token's, or the signed-in person's. Without a caller there
    // is nothing to scope to, and the handler refuses anyway.
    let scope = if let Some(token) = bearer(&parts) {
        format!("token:{}", engine::auth::hash_api_token(token))
    } else {
        match session_person(&mut parts, &state).await {
            Ok(p) => format!("person:{}", p.id.0),
            Err(_) => return next.run(Request::from_parts(parts, body)).await,
        }
    };
    let path = parts.extensions.get::<OriginalUri>().map(|u| u.0.path().to_owned());
    let route = format!("POST {}", path.as_deref().unwrap_or(parts.uri.path()));
    let bytes = match to_bytes(body, usize::MAX).await {
        Ok(b) => b,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                "That request is too large; nothing was changed.",
            )
        }
    };
    let body_hash = hex(&Blake2b512::digest(&bytes)[..32]);
    let store = state.store.as_ref();
    let now = state.clock.now();
    let stale_before = now - chrono::Duration::hours(KEEP_HOURS);
    let claim = match store.idem_claim(&scope, &key, &route, &body_hash, now, stale_before).await {
        Ok(c) => c,
        Err(e) => return crate::http::api::ApiError::internal(e).into_response(),
    };
    match claim {
        IdemClaim::Fresh => {}
        IdemClaim::Replay { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let empty = body.is_empty();
            let mut answer = (status, body).into_response();
            if !empty {
                answer.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            }
            answer.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
            return answer;
        }
        IdemClaim::Mismatch => {
            return refuse(StatusCode::UNPROCESSABLE_ENTITY, "idempotency_key_reused", KEY_REUSED);
        }
        IdemClaim::InFlight => return refuse(StatusCode::CONFLICT, "idempotency_in_flight", IN_FLIGHT),
    }

    let answer = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    if !answer.status().is_success() {
        if let Err(e) = store.idem_release(&scope, &key).await {
            tracing::error!(error = %e, "could not free an idempotency key after a refusal");
        }
        return answer;
    }
    let (head, body) = answer.into_parts();
    let bytes = match to_bytes(body, usize::MAX).await {
        Ok(b) => b,
        Err(e) => {
            // The change is made but its answer cannot be read; keep the key held so a retry
            // is told to wait rather than making the change twice.
            tracing::error!(error = %e, "could not read an answer to keep for its idempotency key");
            return crate::http::api::ApiError::internal(e).into_response();
        }
    };
    if let Err(e) = store.idem_finish(&scope, &key, head.status.as_u16(), &bytes).await {
        tracing::error!(error = %e, "could not keep the answer for an idempotency key");
    }
    Response::from_parts(head, Body::from(bytes))
}
