//! `GET /api/ops/report`: what memory costs, for admins, as the Operations page shows it. Counts,
//! sizes and ids only, so an admin's personal API token may read it, as a monitoring script would.

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use engine::operations::OperationsReport;

pub fn router() -> Router<AppState> {
    Router::new().route("/ops/report", get(report))
}

#[utoipa::path(get, path = "/ops/report", tag = "operations",
    responses((status = 200, description = "The operations report", body = serde_json::Value), (status = 403, response = Refusal))
)]
async fn report(State(s): State<AppState>, Caller(p): Caller) -> Result<Json<OperationsReport>, ApiError> {
    Ok(Json(s.operations.report(&p).await?))
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(report))]
pub struct Doc;
