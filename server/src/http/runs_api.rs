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
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::runs::agent_tokens::{looks_like_agent_token, AGENT_TOKEN_REFUSED};
use engine::runs::service::{Asker, ExternalCall, ExternalStart, Outside, RunView, Started};
use engine::runs::{RunId, ThreadId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

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

/// Who drives an external run: an agent token (acting for nobody), else a person by their API
/// token or session.
struct Driving(Outside);

impl FromRequestParts<AppState> for Driving {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(token) = crate::http::api::bearer(parts).filter(|t| looks_like_agent_token(t)) {
            return match state.agent_tokens.judge(token).await? {
                Some(live) => Ok(Driving(Outside::Token(live))),
                None => Err(ApiError::new(StatusCode::UNAUTHORIZED, "bad_token", AGENT_TOKEN_REFUSED)),
            };
        }
        let Caller(person) = Caller::from_request_parts(parts, state).await?;
        Ok(Driving(Outside::Person(person)))
    }
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

#[derive(Deserialize, ToSchema)]
struct AskBody {
    /// The agent's id or name.
    agent: Value,
    question: String,
}

#[derive(Deserialize, ToSchema)]
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
    Ok((StatusCode::CREATED, Json(Asked { thread: started.thread, run })).into_response())
}

/// What an ask answers: its thread, and the run (answered, or still running with `wait=false`).
#[derive(Serialize, ToSchema)]
struct Asked {
    #[schema(value_type = i64)]
    thread: ThreadId,
    #[schema(value_type = Object)]
    run: RunView,
}

/// A plain sentence saying what changed.
#[derive(Serialize, ToSchema)]
struct Said {
    message: String,
}

#[utoipa::path(post, path = "/ask", tag = "runs",
    params(("wait" = Option<bool>, Query, description = "false: answer at once, with the run still running; the default waits for the answer")),
    request_body = AskBody,
    responses((status = 201, description = "The thread and the run", body = Asked), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
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

#[utoipa::path(post, path = "/threads/{id}/ask", tag = "runs",
    params(("id" = i64, Path, description = "The id"), ("wait" = Option<bool>, Query, description = "false: answer at once, with the run still running; the default waits for the answer")),
    request_body = FollowUp,
    responses((status = 201, description = "The thread and the new run", body = Asked), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
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

/// An external run's question, and the agent it uses: by id or name; with an agent token, its own
/// agent (which it may leave out).
#[derive(Deserialize, ToSchema)]
struct ExternalBody {
    /// The agent's id or name.
    #[serde(default)]
    agent: Value,
    question: String,
}

#[utoipa::path(post, path = "/runs/external", tag = "external runs",
    request_body = ExternalBody,
    responses((status = 201, description = "The external run: its id, the memory block and the tools it may call", body = ExternalStart), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn start_external(
    State(s): State<AppState>,
    Driving(outside): Driving,
    Json(body): Json<ExternalBody>,
) -> Result<Response, ApiError> {
    let agent = match &outside {
        Outside::Person(p) => {
            let asker = Asker { person: p.clone(), unwatched: true };
            named_agent(&s, &asker, &body.agent).await?
        }
        Outside::Token(t) => token_agent(&s, t, &body.agent).await?,
    };
    let started = s.runs.start_external(&outside, agent, &body.question).await?;
    Ok((StatusCode::CREATED, Json(started)).into_response())
}

/// The agent an agent token's run names: its own, by id or name, or left out.
async fn token_agent(
    s: &AppState,
    token: &engine::runs::agent_tokens::LiveAgentToken,
    named: &Value,
) -> Result<engine::org::AgentId, ApiError> {
    let named = match named {
        Value::Null => None,
        Value::String(n) => Some(n.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "Name the agent by its id or its name")),
    };
    Ok(s.runs.agent_for_token(token, named.as_deref()).await?)
}

#[utoipa::path(post, path = "/runs/{id}/tools/{name}", tag = "external runs",
    params(("id" = i64, Path, description = "The id"), ("name" = String, Path, description = "The tool's name")),
    request_body = serde_json::Value,
    responses((status = 200, description = "What the tool read, or what the gate made of the act", body = ExternalCall), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn external_tool(
    State(s): State<AppState>,
    Driving(p): Driving,
    Path((id, name)): Path<(i64, String)>,
    Json(arguments): Json<Value>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.answering.external_call(&p, RunId(id), &name, arguments).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct Finish {
    answer: String,
}

#[utoipa::path(post, path = "/runs/{id}/finish", tag = "external runs",
    params(("id" = i64, Path, description = "The id")),
    request_body = Finish,
    responses((status = 200, description = "The check's state and change lines; the run has ended", body = RunView), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn external_finish(
    State(s): State<AppState>,
    Driving(p): Driving,
    Path(id): Path<i64>,
    Json(body): Json<Finish>,
) -> Result<Response, ApiError> {
    Ok(Json(s.runs.answering.external_finish(&p, RunId(id), &body.answer).await?).into_response())
}

#[utoipa::path(get, path = "/ask/agents", tag = "runs",
    responses((status = 200, description = "The agents the caller may ask", body = Vec<serde_json::Value>))
)]
async fn agents(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.agents_to_ask(&p).await?).into_response())
}

#[utoipa::path(get, path = "/threads", tag = "runs",
    responses((status = 200, description = "The caller's threads, newest first", body = Vec<serde_json::Value>))
)]
async fn my_threads(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.my_threads(&p).await?).into_response())
}

#[utoipa::path(get, path = "/threads/{id}", tag = "runs",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The thread with its runs", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn thread(State(s): State<AppState>, Caller(p): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.thread(&p, ThreadId(id)).await?).into_response())
}

#[utoipa::path(get, path = "/runs/{id}", tag = "runs",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The run, its steps and what it used", body = RunView), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn run(State(s): State<AppState>, Caller(p): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.run(&p, RunId(id)).await?).into_response())
}

#[utoipa::path(post, path = "/runs/{id}/retry", tag = "runs",
    params(("id" = i64, Path, description = "The id"), ("wait" = Option<bool>, Query, description = "false: answer at once, with the run still running; the default waits for the answer")),
    responses((status = 201, description = "The thread and the new run", body = Asked), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn retry(
    State(s): State<AppState>,
    Asking(asker): Asking,
    Path(id): Path<i64>,
    Query(w): Query<Wait>,
) -> Result<Response, ApiError> {
    let started = s.runs.retry(&asker, RunId(id)).await?;
    answered(&s, &asker, started, w.wait).await
}

#[utoipa::path(post, path = "/runs/{id}/steps/{n}/retry", tag = "runs",
    params(("id" = i64, Path, description = "The id"), ("n" = u32, Path, description = "The step's number"), ("wait" = Option<bool>, Query, description = "false: answer at once, with the run still running; the default waits for the answer")),
    responses((status = 201, description = "The thread and the new run", body = Asked), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
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
#[utoipa::path(get, path = "/events", tag = "runs",
    params(("after" = Option<i64>, Query, description = "Only events after this id")),
    responses((status = 200, description = "Events after the id: ids and names only", body = Vec<serde_json::Value>), (status = 403, response = Refusal))
)]
async fn events(State(s): State<AppState>, Caller(p): Caller, Query(a): Query<After>) -> Result<Response, ApiError> {
    Ok(Json(s.runs.threads.events_after(&p, a.after.unwrap_or(0)).await?).into_response())
}

/// The roles and teams whose people see only checked answers (admins).
#[utoipa::path(get, path = "/checked-only", tag = "runs",
    responses((status = 200, description = "The roles and teams whose people see only checked answers", body = Vec<serde_json::Value>), (status = 403, response = Refusal))
)]
async fn checked_only(State(s): State<AppState>, Caller(p): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.runs.checked_only_scopes(&p).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct CheckedOnly {
    /// "role:sales" or "team:3".
    scope: String,
    on: bool,
}

#[utoipa::path(post, path = "/checked-only", tag = "runs",
    request_body = CheckedOnly,
    responses((status = 200, description = "What changed", body = Said), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_checked_only(
    State(s): State<AppState>,
    Caller(p): Caller,
    Json(body): Json<CheckedOnly>,
) -> Result<Response, ApiError> {
    let message = s.runs.set_checked_only(&p, &body.scope, body.on).await?;
    Ok(Json(Said { message }).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    ask,
    agents,
    my_threads,
    thread,
    ask_in_thread,
    start_external,
    run,
    external_tool,
    external_finish,
    retry,
    retry_step,
    events,
    checked_only,
    set_checked_only
))]
pub struct Doc;
