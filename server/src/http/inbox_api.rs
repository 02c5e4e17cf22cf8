//! The JSON API of a person's Inbox: what their runs would do that acts, to approve or decline.
//! Only a signed-in session may read or decide it: an API token gets `session_required`, so a
//! token that may ask an agent can never also approve what the agent would do.

use crate::http::api::{ApiError, SessionCaller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/inbox", get(inbox))
        .route("/inbox/{id}/approve", post(approve))
        .route("/inbox/{id}/decline", post(decline))
}

#[utoipa::path(get, path = "/inbox", tag = "inbox",
    responses((status = 200, description = "What the caller's runs would do that acts, waiting for them", body = Vec<serde_json::Value>))
)]
async fn inbox(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.inbox(&p).await?).into_response())
}

#[utoipa::path(post, path = "/inbox/{id}/approve", tag = "inbox",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The item, approved, and what the act did", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn approve(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.approve(&p, id).await?).into_response())
}

#[utoipa::path(post, path = "/inbox/{id}/decline", tag = "inbox",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The item, declined", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal))
)]
async fn decline(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.decline(&p, id).await?).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(inbox, approve, decline))]
pub struct Doc;
