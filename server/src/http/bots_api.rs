//! The bots' side of the API under /api/org. The dispatcher calls these with the bot owner's
//! token; a bot's own token may only read that bot's rows. Also the people routes under /api
//! (`people_router`).

use crate::http::api::{bearer, session_person, ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::org::PersonId;
use engine::persona::bot_tokens::TokenCheck;
use engine::persona::self_edit::EditRequest;
use engine::persona::self_edit_store::EditState;
use engine::persona::service::{AuditTarget, Caller as BotCaller, ProposalOutcome, WakeReport};
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/wake", post(wake))
        .route("/wake-done", post(wake_done))
        .route("/reflect", post(reflect))
        .route("/tasks", post(create_task))
        .route("/tasks/{id}/status", post(post_status))
        .route("/tasks/{id}/redo", post(redo))
        .route("/agents/{name}/memory", get(memory))
        .route("/agents/{name}/episodes", get(episodes))
        .route("/agents/{name}/stats", get(stats))
        .route("/agents/{name}/propose-improvement", post(propose))
        .route("/memory/{id}/edit", post(edit))
        .route("/memory/{id}/retire", post(retire))
        .route("/improve/{id}/apply", post(apply))
        .route("/improve/{id}/close", post(close))
        .route("/self/edit", post(self_edit))
        .route("/self/reflect", post(self_reflect))
        .route("/self/profile", get(self_profile))
        .route("/agents/{name}/self-edits", get(self_edits))
        .route("/self-edits/{id}/undo", post(undo_self_edit))
        .route("/self-edits/{id}/approve", post(approve_self_edit))
        .route("/self-edits/{id}/decline", post(decline_self_edit))
        .route("/agents/{name}/memory-audit", get(memory_audit_state).post(memory_audit))
        .route("/memory-audits/{id}/undo", post(undo_memory_audit))
        .route("/agents/{name}/tokens", get(agent_tokens))
        .route("/agents/{name}/tokens/{id}/revoke", post(revoke_agent_token))
}

/// The people routes under /api: an admin sets a person's manager.
pub fn people_router() -> Router<AppState> {
    Router::new().route("/people/{id}/manager", post(set_manager))
}

#[derive(Deserialize, ToSchema)]
struct ManagerBody {
    /// The manager's id, or null to clear it; required, so that a body without it clears nothing.
    manager: serde_json::Value,
}

#[utoipa::path(post, path = "/people/{id}/manager", tag = "people",
    params(("id" = i64, Path, description = "The id")),
    request_body = ManagerBody,
    responses((status = 204, description = "The manager is set"), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_manager(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<ManagerBody>,
) -> Result<StatusCode, ApiError> {
    let manager = match b.manager {
        serde_json::Value::Null => None,
        serde_json::Value::Number(n) if n.as_i64().is_some() => n.as_i64().map(PersonId),
        _ => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid",
                "The manager must be a person's id, or null for no manager",
            ))
        }
    };
    s.org.teams.set_manager(&by, PersonId(id), manager).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A person (session or personal token) or a bot (its own token).
pub struct OrgCaller(pub BotCaller);

impl FromRequestParts<AppState> for OrgCaller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(token) = bearer(parts) {
            if let Some(p) = state.auth.person_for_token(token).await? {
                return Ok(OrgCaller(BotCaller::Person(p)));
            }
            return match state.bots.tokens.agent_for_token(token).await? {
                TokenCheck::Live(agent) => Ok(OrgCaller(BotCaller::Bot(agent))),
                refused => {
                    let (code, message) = refused.refusal().unwrap_or(("bad_token", String::new()));
                    Err(ApiError::new(StatusCode::UNAUTHORIZED, code, message))
                }
            };
        }
        session_person(parts, state).await.map(|p| OrgCaller(BotCaller::Person(p)))
    }
}

/// A bot's tokens (never their secrets), for its owner or lead.
#[utoipa::path(get, path = "/agents/{name}/tokens", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, description = "The bot's tokens, never their secrets", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn agent_tokens(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.tokens.agent_tokens(&c, &name).await?))
}

#[utoipa::path(post, path = "/agents/{name}/tokens/{id}/revoke", tag = "bots",
    params(("name" = String, Path, description = "The bot's name"), ("id" = i64, Path, description = "The id")),
    responses((status = 204, description = "Revoked"), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn revoke_agent_token(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path((name, id)): Path<(String, i64)>,
) -> Result<StatusCode, ApiError> {
    s.bots.tokens.revoke_agent_token(&c, &name, id).await?;
    tracing::info!(agent = %name, token = id, "revoked a bot token");
    Ok(StatusCode::NO_CONTENT)
}

fn ok(v: impl serde::Serialize) -> Response {
    Json(v).into_response()
}

#[derive(Deserialize, ToSchema)]
struct Wake {
    agent: String,
    task: Option<i64>,
    reason: String,
}

#[utoipa::path(post, path = "/wake", tag = "bots",
    request_body = Wake,
    responses((status = 201, description = "The wake-up", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn wake(State(s): State<AppState>, OrgCaller(c): OrgCaller, Json(b): Json<Wake>) -> Result<Response, ApiError> {
    let w = s.bots.wakes.wake(&c, &b.agent, b.task, &b.reason).await?;
    Ok((StatusCode::CREATED, Json(w)).into_response())
}

#[derive(Deserialize)]
struct WakeDone {
    wakeups: Vec<i64>,
    #[serde(flatten)]
    report: WakeReport,
}

#[utoipa::path(post, path = "/wake-done", tag = "bots",
    request_body = serde_json::Value,
    responses((status = 200, description = "The wake-ups, done, with the report kept", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn wake_done(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Json(b): Json<WakeDone>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.wakes.wake_done(&c, &b.wakeups, &b.report).await?))
}

#[derive(Deserialize)]
struct Reflect {
    agent: String,
    reason: Option<String>,
    #[serde(default)]
    dry_run: bool,
    #[serde(flatten)]
    report: WakeReport,
}

#[utoipa::path(post, path = "/reflect", tag = "bots",
    request_body = serde_json::Value,
    responses((status = 200, description = "The reflection, or with `dry_run` what it would do", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn reflect(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Json(b): Json<Reflect>,
) -> Result<Response, ApiError> {
    let reason = b.reason.as_deref().unwrap_or("task");
    Ok(ok(s.bots.reflect.reflect(&c, &b.agent, reason, &b.report, b.dry_run).await?))
}

#[derive(Deserialize, ToSchema)]
struct NewTask {
    agent: String,
    title: String,
    #[serde(default)]
    body: String,
}

#[utoipa::path(post, path = "/tasks", tag = "bots",
    request_body = NewTask,
    responses((status = 201, description = "The task", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn create_task(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Json(b): Json<NewTask>,
) -> Result<Response, ApiError> {
    let t = s.bots.wakes.create_task(&c, &b.agent, &b.title, &b.body).await?;
    Ok((StatusCode::CREATED, Json(t)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct Status {
    status: String,
    #[serde(default)]
    note: String,
}

#[utoipa::path(post, path = "/tasks/{id}/status", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Status,
    responses((status = 204, description = "The status is posted"), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn post_status(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    Json(b): Json<Status>,
) -> Result<StatusCode, ApiError> {
    s.bots.wakes.post_status(&c, id, &b.status, &b.note).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/tasks/{id}/redo", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The task, to be done again", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal))
)]
async fn redo(State(s): State<AppState>, OrgCaller(c): OrgCaller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(ok(s.bots.wakes.redo(&c, id).await?))
}

#[derive(Deserialize)]
struct MemoryQuery {
    #[serde(default)]
    all: bool,
}

#[utoipa::path(get, path = "/agents/{name}/memory", tag = "bots",
    params(("name" = String, Path, description = "The bot's name"), ("all" = Option<bool>, Query, description = "true: retired memory too")),
    responses((status = 200, description = "The bot's memory", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn memory(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
    Query(q): Query<MemoryQuery>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.pages.memory(&c, &name, q.all).await?))
}

#[utoipa::path(get, path = "/agents/{name}/episodes", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, description = "The bot's episodes", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn episodes(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.wakes.episodes(&c, &name).await?))
}

#[derive(Deserialize)]
struct StatsQuery {
    days: Option<u32>,
}

#[utoipa::path(get, path = "/agents/{name}/stats", tag = "bots",
    params(("name" = String, Path, description = "The bot's name"), ("days" = Option<u32>, Query, description = "Over how many days; 30 unless given")),
    responses((status = 200, description = "The bot's numbers", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn stats(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
    Query(q): Query<StatsQuery>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.pages.stats(&c, &name, q.days.unwrap_or(30)).await?))
}

#[derive(Deserialize, ToSchema)]
struct Propose {
    memory_id: i64,
    #[serde(default)]
    dry_run: bool,
}

#[utoipa::path(post, path = "/agents/{name}/propose-improvement", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    request_body = Propose,
    responses((status = 200, description = "The proposal, or with `dry_run` what it would be", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn propose(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
    Json(b): Json<Propose>,
) -> Result<Response, ApiError> {
    match s.bots.improve.propose_improvement(&c, &name, b.memory_id, b.dry_run).await? {
        // Refused as the validator's refusals are, so a caller tells a refusal from a card.
        ProposalOutcome::Refused(why) => {
            Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "proposal_refused", format!("no proposal: {why}")))
        }
        outcome => Ok(ok(outcome)),
    }
}

#[derive(Deserialize, ToSchema)]
struct Edit {
    text: String,
}

#[utoipa::path(post, path = "/memory/{id}/edit", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Edit,
    responses((status = 200, description = "The memory, edited", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn edit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    Json(b): Json<Edit>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.pages.edit_memory(&c, id, &b.text).await?))
}

#[derive(Deserialize, ToSchema)]
struct Why {
    reason: String,
}

#[utoipa::path(post, path = "/memory/{id}/retire", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Why,
    responses((status = 200, description = "The memory retired", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn retire(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    Json(b): Json<Why>,
) -> Result<Response, ApiError> {
    s.bots.pages.retire_memory(&c, id, &b.reason).await?;
    Ok(ok(json!({"retired": id})))
}

#[utoipa::path(post, path = "/improve/{id}/apply", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The improvement, applied", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn apply(State(s): State<AppState>, OrgCaller(c): OrgCaller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(ok(s.bots.improve.apply_improvement(&c, id).await?))
}

#[utoipa::path(post, path = "/improve/{id}/close", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Why,
    responses((status = 200, description = "The improvement, closed", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn close(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    Json(b): Json<Why>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.improve.close_improvement(&c, id, &b.reason).await?))
}

/// `memory_self_edit` over HTTP: 200 when applied, 202 when it waits for a person, 422 with the
/// sentence when refused. Each is recorded, and the body is the record.
#[utoipa::path(post, path = "/self/edit", tag = "bots",
    request_body = serde_json::Value,
    responses((status = 200, description = "The self-edit, applied (or the reflection, for `action: reflect`)", body = serde_json::Value), (status = 202, description = "The self-edit, waiting for a person", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn self_edit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Json(b): Json<EditRequest>,
) -> Result<Response, ApiError> {
    if b.action.trim() == "reflect" {
        return Ok(ok(s.bots.reflect.self_reflect(&c, None).await?));
    }
    let edit = s.bots.self_edits.self_edit(&c, &b).await?;
    if edit.state == EditState::Refused {
        // An error's shape, with the id of the audit row that recorded the refusal.
        let body = json!({
            "error": "self_edit_refused",
            "message": edit.refusal.clone().unwrap_or_default(),
            "self_edit": edit,
        });
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response());
    }
    let status = if edit.state == EditState::Waiting { StatusCode::ACCEPTED } else { StatusCode::OK };
    Ok((status, Json(edit)).into_response())
}

#[derive(Deserialize, Default, ToSchema)]
struct ReflectBody {
    agent: Option<String>,
}

/// The reflection cycle: the calling bot's, or for a person the named bot's.
#[utoipa::path(post, path = "/self/reflect", tag = "bots",
    request_body = Option<ReflectBody>,
    responses((status = 200, description = "The reflection", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn self_reflect(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    b: Option<Json<ReflectBody>>,
) -> Result<Response, ApiError> {
    let b = b.map(|Json(b)| b).unwrap_or_default();
    Ok(ok(s.bots.reflect.self_reflect(&c, b.agent.as_deref()).await?))
}

#[derive(Deserialize)]
struct ProfileQuery {
    agent: Option<String>,
}

#[utoipa::path(get, path = "/self/profile", tag = "bots",
    params(("agent" = Option<String>, Query, description = "For a person: the bot's name")),
    responses((status = 200, description = "The bot's profile", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn self_profile(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Query(q): Query<ProfileQuery>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.self_edits.self_profile(&c, q.agent.as_deref()).await?))
}

#[utoipa::path(get, path = "/agents/{name}/self-edits", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, description = "The bot's self-edits", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn self_edits(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.self_edits.self_edits(&c, &name).await?))
}

#[utoipa::path(post, path = "/self-edits/{id}/undo", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The self-edit, undone", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn undo_self_edit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.self_edits.undo_self_edit(&c, id).await?))
}

#[derive(Deserialize, Default, ToSchema)]
struct Decision {
    reason: Option<String>,
}

#[utoipa::path(post, path = "/self-edits/{id}/approve", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Option<Decision>,
    responses((status = 200, description = "The self-edit, approved", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn approve_self_edit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    b: Option<Json<Decision>>,
) -> Result<Response, ApiError> {
    let b = b.map(|Json(b)| b).unwrap_or_default();
    Ok(ok(s.bots.self_edits.decide_self_edit(&c, id, true, b.reason.as_deref()).await?))
}

#[utoipa::path(post, path = "/self-edits/{id}/decline", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    request_body = Option<Decision>,
    responses((status = 200, description = "The self-edit, declined", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn decline_self_edit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
    b: Option<Json<Decision>>,
) -> Result<Response, ApiError> {
    let b = b.map(|Json(b)| b).unwrap_or_default();
    Ok(ok(s.bots.self_edits.decide_self_edit(&c, id, false, b.reason.as_deref()).await?))
}

#[derive(Deserialize, Default, ToSchema)]
struct AuditBody {
    #[serde(default)]
    dry_run: bool,
}

/// Seed 004 on request: the audit, or with `dry_run` the actions it would take.
#[utoipa::path(post, path = "/agents/{name}/memory-audit", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    request_body = Option<AuditBody>,
    responses((status = 200, description = "The audit, or with `dry_run` what it would do", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn memory_audit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
    b: Option<Json<AuditBody>>,
) -> Result<Response, ApiError> {
    let b = b.map(|Json(b)| b).unwrap_or_default();
    Ok(ok(s.bots.memory_audits.memory_audit(&c, AuditTarget::Agent(name), b.dry_run).await?))
}

#[utoipa::path(get, path = "/agents/{name}/memory-audit", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, description = "The bot's last memory audit", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn memory_audit_state(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.memory_audits.memory_audit_state(&c, &name).await?))
}

#[utoipa::path(post, path = "/memory-audits/{id}/undo", tag = "bots",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The audit, undone", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn undo_memory_audit(
    State(s): State<AppState>,
    OrgCaller(c): OrgCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    Ok(ok(s.bots.memory_audits.undo_memory_audit(&c, id, None).await?))
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(set_manager))]
pub struct PeopleDoc;

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    wake,
    wake_done,
    reflect,
    create_task,
    post_status,
    redo,
    memory,
    episodes,
    stats,
    propose,
    edit,
    retire,
    apply,
    close,
    self_edit,
    self_reflect,
    self_profile,
    self_edits,
    undo_self_edit,
    approve_self_edit,
    decline_self_edit,
    memory_audit_state,
    memory_audit,
    undo_memory_audit,
    agent_tokens,
    revoke_agent_token
))]
pub struct Doc;
