//! The JSON API for asking agents and reading threads, runs and events.
//!
//! An API token may ask: that ask is unwatched, and the run records it. Asking waits for the
//! answer unless `?wait=false`, when it answers at once with the run still running.
//!
//! The REST pair for outside agents without MCP: `POST /api/runs/external {agent, question}`
//! starts an external run and returns its block and tools; `POST /api/runs/{id}/tools/{name}`
//! (the body is the tool's arguments) reads or acts through Engram's gate; `POST
//! /api/runs/{id}/finish {answer}` checks the answer and ends the run.

use crate::http::api::{ApiError, Caller};
use crate::http::state::AppState;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::runs::service::{Asker, Started};
use engine::runs::{RunId, ThreadId};
use serde::Deserialize;
use serde_json::{json, Value};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/ask", post(ask))
        .route("/ask/agents", get(agents))
        .route("/threads", get(my_threads))
        .route("/threads/{id}", get(thread))
        .route("/threads/{id}/ask", post(ask_in_thread))
        .route("/runs/external", post(start_external))
        .route("/runs/{id}", get(run))
        .route("/runs/{id}/tools/{name}", post(external_tool))
        .route("/runs/{id}/finish", post(external_finish))
        .route("/runs/{id}/retry", post(retry))
        .route("/runs/{id}/steps/{n}/retry", post(retry_step))
        .route("/events", get(events))
        .route("/checked-only", get(checked_only).post(set_checked_only))
}

/// Who asks, and whether anyone watches: a token's ask is unwatched.
struct Asking(Asker);

impl FromRequestParts<AppState> for Asking {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &AppState) -> Result<Self, ApiError> {
        let unwatched = crate::http::api::bearer(parts).is_some();
        let Caller(person) = Caller::from_request_parts(parts, state).await?;
        Ok(Asking(Asker { person, unwatched }))
    }
}

#[derive(Deserialize)]
struct Wait {
    wait: Option<bool>,
}

#[derive(Deserialize)]
struct AskBody {
    /// The agent's id or name.
    agent: Value,
    question: String,
}

#[derive(Deserialize)]
struct FollowUp {
    question: String,
}

/// Answers the run now (or, with `wait=false`, in the background) and replies with it.
async fn answered(s: &AppState, asker: &Asker, started: Started, wait: Option<bool>) -> Result<Response, ApiError> {
    let run = if wait.unwrap_or(true) {
        s.runs.answering.execute(started.run).await?
    } else {
        s.runs.launch(started.run);
        s.runs.threads.run(&asker.person, started.run).await?
    };
    Ok((StatusCode::CREATED, Json(json!({ "thread": started.thread, "run": run }))).into_response())
}

async fn ask(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Query(w): Query<Wait>,
    Json(body): Json<AskBody>,
) -> Result<Response, ApiError> {
    let agent = named_agent(&s, &asker, &body.agent).await?;
    let started = s.runs.ask(&asker, agent, &body.question).await?;
    answered(&s, &asker, started, w.wait).await
}

async fn ask_in_thread(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Path(id): Path<i64>,
    Query(w): Query<Wait>,
    Json(body): Json<FollowUp>,
) -> Result<Response, ApiError> {
    let started = s.runs.ask_in_thread(&asker, ThreadId(id), &body.question).await?;
    answered(&s, &asker, started, w.wait).await
}

/// The agent an ask names, by its id or its name.
async fn named_agent(s: &AppState, asker: &Asker, agent: &Value) -> Result<engine::org::AgentId, ApiError> {
    let name = match agent {
        Value::String(n) => n.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "Name the agent by its id or its name")),
    };
    Ok(s.runs.find_agent(&asker.person, &name).await?)
}

async fn start_external(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Json(body): Json<AskBody>,
) -> Result<Response, ApiError> {
    let agent = named_agent(&s, &asker, &body.agent).await?;
    let started = s.runs.start_external(&asker, agent, &body.question).await?;
    Ok((StatusCode::CREATED, Json(started)).into_response())
}

async fn external_tool(
    State(s): State<AppState>,
    Caller(p): Caller,
    Path((id, name)): Path<(i64, String)>,
    Json(arguments): Json<Value>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.answering.external_call(&p, RunId(id), &name, arguments).await?).into_response())
}

#[derive(Deserialize)]
struct Finish {
    answer: String,
}

async fn external_finish(
    State(s): State<AppState>,
    Caller(p): Caller,
    Path(id): Path<i64>,
    Json(body): Json<Finish>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.answering.external_finish(&p, RunId(id), &body.answer).await?).into_response())
}

async fn agents(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.agents_to_ask(&p).await?).into_response())
}

async fn my_threads(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.my_threads(&p).await?).into_response())
}

async fn thread(State(s): State<AppState>, Caller(p): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.thread(&p, ThreadId(id)).await?).into_response())
}

async fn run(State(s): State<AppState>, Caller(p): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.run(&p, RunId(id)).await?).into_response())
}

async fn retry(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Path(id): Path<i64>,
    Query(w): Query<Wait>,
) -> Result<Response, ApiError> {
    let started = s.runs.retry(&asker, RunId(id)).await?;
    answered(&s, &asker, started, w.wait).await
}

async fn retry_step(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Path((id, n)): Path<(i64, u32)>,
    Query(w): Query<Wait>,
) -> Result<Response, ApiError> {
    let started = s.runs.retry_step(&asker, RunId(id), n).await?;
    answered(&s, &asker, started, w.wait).await
}

#[derive(Deserialize)]
struct After {
    after: Option<i64>,
}

/// Events after an id, for admins to follow: ids and names only.
async fn events(State(s): State<AppState>, Caller(p): Caller, Query(a): Query<After>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.events_after(&p, a.after.unwrap_or(0)).await?).into_response())
}

/// The roles and teams whose people see only checked answers (admins).
async fn checked_only(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.checked_only_scopes(&p).await?).into_response())
}

#[derive(Deserialize)]
struct CheckedOnly {
    /// "role:sales" or "team:3".
    scope: String,
    on: bool,
}

async fn set_checked_only(
    State(s): State<AppState>,
    Caller(p): Caller,
    Json(body): Json<CheckedOnly>,
) -> Result<Response, ApiError> {
    let message = s.runs.set_checked_only(&p, &body.scope, body.on).await?;
    Ok(Json(json!({ "message": message })).into_response())
}
