//! The JSON API of a person's Inbox: what their runs would do that acts, to approve or decline.
//! Only a signed-in session may read or decide it: an API token gets `session_required`, so a
//! token that may ask an agent can never also approve what the agent would do.

use crate::http::api::{ApiError, SessionCaller};
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

async fn inbox(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.inbox(&p).await?).into_response())
}

async fn approve(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.approve(&p, id).await?).into_response())
}

async fn decline(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.inbox.decline(&p, id).await?).into_response())
}
