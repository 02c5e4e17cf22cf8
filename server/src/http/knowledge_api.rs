//! The JSON API of a person's own lessons: keeping one in their words (`/knowledge`), What I've
//! learned, Correct and Forget. A person's own memory is read and written only in a signed-in
//! session: a token gets `session_required`.

use crate::http::api::{ApiError, SessionCaller};
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::lessons::service::CORRECTED;
use serde::Deserialize;
use serde_json::json;

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
async fn review_queue(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.review_queue(&p).await?).into_response())
}

async fn accept(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.decide(&p, id, true).await?).into_response())
}

async fn decline(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.decide(&p, id, false).await?).into_response())
}

#[derive(Deserialize)]
struct Keep {
    scope: String,
    text: String,
}

async fn keep(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Json(body): Json<Keep>,
) -> Result<Response, ApiError> {
    let lesson = s.lessons.keep(&p, &body.scope, &body.text).await?;
    Ok((StatusCode::CREATED, Json(lesson)).into_response())
}

/// Every lesson that came from the person, whatever its state, newest first.
async fn own(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.own(&p).await?).into_response())
}

/// What I've learned: in use, and no longer current.
async fn mine(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.lessons.mine(&p).await?).into_response())
}

#[derive(Deserialize)]
struct Correct {
    text: String,
}

async fn correct(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
    Json(body): Json<Correct>,
) -> Result<Response, ApiError> {
    let lesson = s.lessons.correct(&p, id, &body.text).await?;
    Ok((StatusCode::CREATED, Json(json!({"message": CORRECTED, "lesson": lesson}))).into_response())
}

async fn forget(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let versions = s.lessons.forget(&p, id).await?;
    Ok(Json(json!({"forgotten": id, "versions": versions})).into_response())
}
