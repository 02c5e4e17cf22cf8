//! The JSON API of a person's private knowledge: notes their own asks load as data. A person's
//! own memory is read and written only in a signed-in session: a token gets `session_required`.

use crate::api::{ApiError, SessionCaller};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

pub fn router() -> Router<AppState> {
    Router::new().route("/knowledge", get(mine).post(keep))
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
    let note = s.runs.keep_note(&p, &body.scope, &body.text).await?;
    Ok((StatusCode::CREATED, Json(note)).into_response())
}

async fn mine(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.my_notes(&p).await?).into_response())
}
