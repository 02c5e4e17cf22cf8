//! `POST /api/agents/{id}/trigger`: another system starts a company agent's run. It signs in with
//! nobody: the trigger's own secret comes as `Authorization: Bearer trg_…`, and the JSON body is
//! what the run's instruction quotes, as data. The run starts in the background; the post answers
//! at once with `202` and the run's ids.

use crate::http::api::{bearer, ApiError};
use crate::http::openapi::Refusal;
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
use engine::runs::{RunId, ThreadId};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

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

/// What a trigger's post answers at once: the run it started, and the agent's thread it answers in.
#[derive(Serialize, ToSchema)]
struct Fired {
    #[schema(value_type = i64)]
    run: RunId,
    #[schema(value_type = i64)]
    thread: ThreadId,
}

#[utoipa::path(post, path = "/agents/{id}/trigger", tag = "schedules",
    description = "Starts a company agent's run for nobody, in the background. Signed in with the trigger's own \
        secret as `Authorization: Bearer trg_…`, never a session or a personal token; the JSON body (at most \
        16 KB) is quoted in the run's instruction as data.",
    params(("id" = i64, Path, description = "The agent's id")),
    request_body(content = Object, description = "Any JSON the run's instruction quotes as data", content_type = "application/json"),
    responses(
        (status = 202, description = "The run started; it answers in the agent's thread", body = Fired),
        (status = 400, response = Refusal),
        (status = 401, response = Refusal),
        (status = 409, response = Refusal),
        (status = 413, response = Refusal),
        (status = 429, response = Refusal),
    ),
    security(("token" = []))
)]
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
    Ok((StatusCode::ACCEPTED, Json(Fired { run: started.run, thread: started.thread })).into_response())
}

/// This module's operation in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(fire))]
pub struct Doc;

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
