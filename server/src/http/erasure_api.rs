//! `POST /api/erasures` with `{"value": "…"}`: an admin erases a third party's email address or
//! phone number from memory, and the answer counts what went. It takes a session or a personal
//! API token, as the API's other admin actions do; the engine decides who may. The value is never
//! answered back, logged or kept for a retry (see `idempotency::NOT_KEPT`).

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use engine::erasure::service::ErasureBy;
use engine::erasure::SOURCE_MAY_KEEP_AGAIN;
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

/// Where erasures are asked for, as the idempotency layer sees it.
pub const ROUTE: &str = "/api/erasures";

pub fn router() -> Router<AppState> {
    Router::new().route("/erasures", post(erase))
}

#[derive(Deserialize, ToSchema)]
struct EraseBody {
    value: String,
}

#[utoipa::path(post, path = "/erasures", tag = "erasures",
    request_body = EraseBody,
    responses((status = 200, description = "What was erased, counted", body = serde_json::Value), (status = 403, response = Refusal), (status = 422, response = Refusal))
)]
async fn erase(State(s): State<AppState>, Caller(by): Caller, Json(b): Json<EraseBody>) -> Result<Response, ApiError> {
    let erased = s.erasures.erase(ErasureBy::Person(&by), &b.value).await?;
    Ok(Json(json!({
        "kind": erased.kind,
        "removed": erased.counts,
        "message": erased.sentence(),
        "note": SOURCE_MAY_KEEP_AGAIN,
    }))
    .into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(erase))]
pub struct Doc;
