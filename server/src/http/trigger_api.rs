//! `POST /api/agents/{id}/trigger`: another system starts a company agent's run. It signs in with
//! nobody: the trigger's own secret comes as `Authorization: Bearer trg_…`, and the JSON body is
//! what the run's instruction quotes, as data. The run starts in the background; the post answers
//! at once with `202` and the run's ids.

use crate::http::api::{bearer, ApiError};
use crate::http::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use engine::org::AgentId;
use engine::runs::schedules::TriggerError;
use serde_json::{json, Value};

/// A trigger's post carries at most this many bytes; what the run quotes of it is bounded again.
pub const TRIGGER_POST_MAX_BYTES: usize = 16 * 1024;

pub fn router() -> Router<AppState> {
    Router::new().route("/agents/{id}/trigger", post(fire))
}

/// The secret a post carries; none is refused as a wrong one is, in the same words.
struct TriggerSecret(String);

impl FromRequestParts<AppState> for TriggerSecret {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, ApiError> {
        match bearer(parts).filter(|s| !s.is_empty()) {
            Some(s) => Ok(TriggerSecret(s.to_string())),
            None => Err(ApiError::refusal(&TriggerError::Refused)),
        }
    }
}

async fn fire(
    State(s): State<AppState>,
    Path(id): Path<i64>,
    TriggerSecret(secret): TriggerSecret,
    body: Bytes,
) -> Result<Response, ApiError> {
    if body.len() > TRIGGER_POST_MAX_BYTES {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("A trigger's post can be at most {} KB of JSON", TRIGGER_POST_MAX_BYTES / 1024),
        ));
    }
    let posted: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_json", format!("Post JSON to a trigger: {e}")))?
    };
    let started = s.firing.trigger(AgentId(id), &secret, &posted).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({"run": started.run, "thread": started.thread}))).into_response())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_secret_hears_the_wrong_secret_sentence() {
        use engine::UserSafe;
        let e = engine::runs::schedules::TriggerError::Refused;
        assert_eq!(e.user_message(), engine::runs::schedules::TRIGGER_REFUSED);
        assert_eq!(e.code(), "trigger_refused");
    }
}
