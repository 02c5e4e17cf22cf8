//! The JSON API of a person's own lessons: keeping one in their words (`/knowledge`), What I've
//! learned, Correct and Forget. A person's own memory is read and written only in a signed-in
//! session: a token gets `session_required`.

use crate::http::api::{ApiError, SessionCaller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::lessons::service::CORRECTED;
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/knowledge", get(own).post(keep))
        .route("/memory/lessons", get(mine))
        .route("/memory/lessons/{id}/correct", post(correct))
        .route("/memory/lessons/{id}/forget", post(forget))
        .route("/memory/review", get(review_queue))
        .route("/memory/review/{id}/accept", post(accept))
        .route("/memory/review/{id}/decline", post(decline))
}

/// The proposals the person reviews: a team's lead or an admin, and for the company an admin.
#[utoipa::path(get, path = "/memory/review", tag = "lessons",
    responses((status = 200, description = "The proposals the caller reviews", body = Vec<serde_json::Value>))
)]
async fn review_queue(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.review_queue(&p).await?).into_response())
}

#[utoipa::path(post, path = "/memory/review/{id}/accept", tag = "lessons",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The proposal, accepted", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn accept(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.decide(&p, id, true).await?).into_response())
}

#[utoipa::path(post, path = "/memory/review/{id}/decline", tag = "lessons",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The proposal, declined", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn decline(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.decide(&p, id, false).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct Keep {
    scope: String,
    text: String,
}

#[utoipa::path(post, path = "/knowledge", tag = "lessons",
    request_body = Keep,
    responses((status = 201, description = "The lesson kept", body = serde_json::Value), (status = 403, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn keep(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Json(body): Json<Keep>,
) -> Result<Response, ApiError> {
    let lesson = s.lessons.keep(&p, &body.scope, &body.text).await?;
    Ok((StatusCode::CREATED, Json(lesson)).into_response())
}

/// Every lesson that came from the person, whatever its state, newest first.
#[utoipa::path(get, path = "/knowledge", tag = "lessons",
    responses((status = 200, description = "Every lesson that came from the caller, newest first", body = Vec<serde_json::Value>))
)]
async fn own(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.own(&p).await?).into_response())
}

/// What I've learned: in use, and no longer current.
#[utoipa::path(get, path = "/memory/lessons", tag = "lessons",
    responses((status = 200, description = "What I've learned: in use, and no longer current", body = serde_json::Value))
)]
async fn mine(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.mine(&p).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct Correct {
    text: String,
}

#[utoipa::path(post, path = "/memory/lessons/{id}/correct", tag = "lessons",
    params(("id" = i64, Path, description = "The id")),
    request_body = Correct,
    responses((status = 201, description = "The corrected lesson", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn correct(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
    Json(body): Json<Correct>,
) -> Result<Response, ApiError> {
    let lesson = s.lessons.correct(&p, id, &body.text).await?;
    Ok((StatusCode::CREATED, Json(json!({"message": CORRECTED, "lesson": lesson}))).into_response())
}

#[utoipa::path(post, path = "/memory/lessons/{id}/forget", tag = "lessons",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The lesson forgotten, and how many versions went", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn forget(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let versions = s.lessons.forget(&p, id).await?;
    Ok(Json(json!({"forgotten": id, "versions": versions})).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(own, keep, mine, correct, forget, review_queue, accept, decline))]
pub struct Doc;
