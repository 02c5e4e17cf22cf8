//! A company agent's tokens for outside agents acting for nobody, under /api: its owner or an
//! admin lists them (never a secret or its hash), makes one named after where it is used (the
//! secret is answered once) and revokes one (it stops at once, and the runs it started take no
//! more calls). Each takes a session or a personal API token, as the other agent endpoints do;
//! refusals are the engine's sentences, translated once by `ApiError`.

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::org::AgentId;
use engine::runs::agent_tokens::AgentToken;
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/agents/{id}/tokens", get(list))
        .route("/agents/{id}/tokens/make", post(make))
        .route("/agents/{id}/tokens/{token}/revoke", post(revoke))
}

/// Whether `path` makes an agent token, so its answer holds a secret that no `Idempotency-Key`
/// may keep.
pub fn answers_a_secret(path: &str) -> bool {
    path.strip_prefix("/api/agents/")
        .and_then(|rest| rest.strip_suffix("/tokens/make"))
        .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

fn token_json(t: &AgentToken) -> Value {
    json!({
        "id": t.id,
        "agent": t.agent.0,
        "name": t.name,
        "live": t.live(),
        "made_by": t.made_by,
        "made_at": t.made_at,
        "last_used_at": t.last_used_at,
        "revoked_at": t.revoked_at,
        "revoked_by": t.revoked_by,
    })
}

#[utoipa::path(get, path = "/agents/{id}/tokens", tag = "agent tokens", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "The agent's tokens, newest first, revoked ones marked so; never a secret or its hash", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn list(State(s): State<AppState>, Caller(by): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    let tokens = s.agent_tokens.list(&by, AgentId(id)).await?;
    Ok(Json(json!({ "agent": id, "tokens": tokens.iter().map(token_json).collect::<Vec<_>>() })).into_response())
}

#[derive(Deserialize, ToSchema)]
struct MakeBody {
    /// Where the token is used: "LangGraph on the support server".
    name: String,
}

/// Makes a token: its secret is in this answer only; nothing reads it again.
#[utoipa::path(post, path = "/agents/{id}/tokens/make", tag = "agent tokens", params(("id" = i64, Path, description = "The agent's id")),
    request_body = MakeBody,
    responses((status = 201, description = "A new agent token, with its secret shown this once", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn make(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<MakeBody>,
) -> Result<Response, ApiError> {
    let (t, secret) = s.agent_tokens.make(&by, AgentId(id), &b.name).await?;
    let mut body = token_json(&t);
    body["secret"] = Value::String(secret);
    body["message"] = Value::String("Copy the token now; it is not shown again".into());
    // Shown once: no cache keeps it either.
    Ok((StatusCode::CREATED, [(header::CACHE_CONTROL, "no-store")], Json(body)).into_response())
}

#[utoipa::path(post, path = "/agents/{id}/tokens/{token}/revoke", tag = "agent tokens",
    params(("id" = i64, Path, description = "The agent's id"), ("token" = i64, Path, description = "The token's id")),
    responses((status = 200, description = "Revoked: the token stops at once, and the runs it started take no more calls", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn revoke(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path((id, token)): Path<(i64, i64)>,
) -> Result<Response, ApiError> {
    s.agent_tokens.revoke(&by, AgentId(id), token).await?;
    Ok(Json(json!({ "agent": id, "token": token, "live": false })).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, make, revoke))]
pub struct Doc;

#[cfg(test)]
mod tests {
    use super::answers_a_secret;

    #[test]
    fn only_making_a_token_answers_a_secret() {
        assert!(answers_a_secret("/api/agents/7/tokens/make"));
        for other in [
            "/api/agents/7/tokens",
            "/api/agents/7/tokens/3/revoke",
            "/api/agents//tokens/make",
            "/api/agents/7/x/tokens/make",
            "/api/tokens",
        ] {
            assert!(!answers_a_secret(other), "{other}");
        }
    }
}
