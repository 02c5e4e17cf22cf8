//! The JSON API under /api. Refusals carry a code in `error` and the plain sentence in `message`,
//! both from the engine error itself (see `ApiError::refusal`).
//!
//! Memory (cores included) is served only to a person signed in with a session: an API token is
//! refused with `session_required`, whoever holds it.

use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use engine::cores::{parse_before, CoreScope};
use engine::error::INTERNAL_MESSAGE;
use engine::org::{Person, RoleSlug};
use engine::{ErrorKind, UserSafe};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use tower_sessions::Session;
use utoipa::ToSchema;

pub const SESSION_REQUIRED: &str =
    "Memory is only served to a person signed in to Engram; API tokens are refused here. Sign in and use your session.";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/me", get(me))
        .route("/tokens", get(list_tokens).post(create_token))
        .route("/tokens/{id}", delete(revoke_token))
        .route("/memory/roles", get(memory_roles))
        .route("/memory/cards", get(my_cards))
        .route("/memory/cores/{scope}", get(get_core).post(save_core))
        .route("/memory/cores/{scope}/versions", get(core_versions))
        .route("/memory/cores/{scope}/versions/{version}", get(core_version))
        .route("/memory/cores/{scope}/restore", post(restore_core))
        .route("/memory/cores/{scope}/limit", post(set_limit))
        .route("/memory/suggestions/{id}/accept", post(accept_suggestion))
        .route("/memory/suggestions/{id}/dismiss", post(dismiss_suggestion))
        .route("/connectors/{id}/whos-who", post(set_whos_who))
        .route("/openapi.json", get(crate::http::openapi::openapi_json))
}

/// A path under `/api` or `/api/org` that no route serves: the API's own 404, not a page.
pub async fn no_such_route() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "There is no such route in Engram's API; see /api/openapi.json")
}

/// The most of a plain-text refusal [`json_refusals`] reads: axum's own are one sentence.
const PLAIN_REFUSAL_LIMIT: usize = 16 * 1024;

/// Axum's own refusals (a body, path or query the handler cannot read, a body too large) come as
/// plain text; the API answers every refusal in its one JSON shape, so they are rewritten here
/// with their sentence and a code for their status. Layered on `/api` and `/api/org`.
pub async fn json_refusals(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !status.is_client_error() || is_json {
        return res;
    }
    let code = match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "invalid",
        _ => "refused",
    };
    let (mut parts, body) = res.into_parts();
    let message = match axum::body::to_bytes(body, PLAIN_REFUSAL_LIMIT).await {
        Ok(b) if !b.is_empty() => String::from_utf8_lossy(&b).trim().to_string(),
        _ => status.canonical_reason().unwrap_or("Refused").to_string(),
    };
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut answer = ApiError::new(status, code, message).into_response();
    for (name, value) in &parts.headers {
        answer.headers_mut().entry(name).or_insert_with(|| value.clone());
    }
    answer
}

/// A refusal as the API answers it: a status, a code for `error` and the sentence for `message`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into() }
    }

    /// For failures that are not the engine's (the session layer, reading a body): logged, and
    /// answered with the plain sentence.
    pub(crate) fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(%detail, "internal error in the API");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", INTERNAL_MESSAGE)
    }

    /// The one path from an engine error to the API's answer: the error's own code and sentence,
    /// with the status for its kind.
    pub(crate) fn refusal(e: &impl UserSafe) -> Self {
        if let Some(detail) = e.internal_detail() {
            return Self::internal(detail);
        }
        let status = match e.kind() {
            ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
            ErrorKind::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::NotAllowed => StatusCode::FORBIDDEN,
            ErrorKind::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Throttled => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, e.code(), e.user_message())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.code, "message": self.message }))).into_response()
    }
}

/// So a handler's `?` on any engine error answers through [`ApiError::refusal`].
impl<E: UserSafe> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError::refusal(&e)
    }
}

pub(crate) fn bearer(parts: &Parts) -> Option<&str> {
    parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")).unwrap_or(v).trim())
}

pub(crate) async fn session_person(parts: &mut Parts, state: &AppState) -> Result<Person, ApiError> {
    let session = Session::from_request_parts(parts, state)
        .await
        .map_err(|(_, m)| ApiError::internal(format!("no session layer: {m}")))?;
    match app::ssr::person_in_session(&session, &state.auth).await {
        Ok(Some(p)) => Ok(p),
        Ok(None) => Err(ApiError::new(StatusCode::UNAUTHORIZED, "not_signed_in", "Sign in to continue")),
        Err(e) => Err(ApiError::internal(e)),
    }
}

/// Said to an agent token presented anywhere but an external run's endpoints.
pub const AGENT_TOKEN_ONLY: &str = "An agent token acts for nobody and works only for external runs: \
     POST /api/runs/external, its tools and finish, and /mcp";

/// Anyone signed in: a session, or a live personal API token.
pub struct Caller(pub Person);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(token) = bearer(parts) {
            if engine::runs::agent_tokens::looks_like_agent_token(token) {
                // It acts for nobody, so it is nobody to the endpoints a person calls.
                return Err(ApiError::new(StatusCode::UNAUTHORIZED, "agent_token", AGENT_TOKEN_ONLY));
            }
            return match state.auth.person_for_token(token).await? {
                Some(p) => Ok(Caller(p)),
                None => {
                    Err(ApiError::new(StatusCode::UNAUTHORIZED, "bad_token", "That API token is unknown or revoked"))
                }
            };
        }
        session_person(parts, state).await.map(Caller)
    }
}

/// A person signed in with a session. Memory endpoints take only this.
pub struct SessionCaller(pub Person);

impl FromRequestParts<AppState> for SessionCaller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(token) = bearer(parts) {
            if engine::runs::agent_tokens::looks_like_agent_token(token) {
                return Err(ApiError::new(StatusCode::UNAUTHORIZED, "agent_token", AGENT_TOKEN_ONLY));
            }
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "session_required", SESSION_REQUIRED));
        }
        session_person(parts, state).await.map(SessionCaller)
    }
}

fn scope(key: &str) -> Result<CoreScope, ApiError> {
    CoreScope::parse(key).map_err(ApiError::from)
}

#[derive(Serialize, ToSchema)]
struct Me {
    id: i64,
    name: String,
    email: String,
    is_admin: bool,
}

#[utoipa::path(get, path = "/me", tag = "people",
    responses((status = 200, description = "The caller", body = Me))
)]
async fn me(Caller(p): Caller) -> Json<Me> {
    Json(Me { id: p.id.0, name: p.name, email: p.email, is_admin: p.is_admin })
}

#[utoipa::path(get, path = "/tokens", tag = "tokens",
    responses((status = 200, description = "The caller's API tokens, never their secrets", body = Vec<serde_json::Value>))
)]
async fn list_tokens(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.auth.api_tokens(&p).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct NewToken {
    name: String,
}

/// Tokens are made by a person in a session, never by another token.
#[utoipa::path(post, path = "/tokens", tag = "tokens",
    request_body = NewToken,
    responses((status = 201, description = "The token; its secret is shown this once", body = TokenMade), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn create_token(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Json(body): Json<NewToken>,
) -> Result<Response, ApiError> {
    let (info, secret) = s.auth.create_api_token(&p, &body.name).await?;
    Ok((StatusCode::CREATED, Json(TokenMade { id: info.id, name: info.name, token: secret })).into_response())
}

/// A new token: its secret is in `token` this once, and only its hash is kept.
#[derive(Serialize, ToSchema)]
struct TokenMade {
    id: i64,
    name: String,
    token: String,
}

#[utoipa::path(delete, path = "/tokens/{id}", tag = "tokens",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 204, description = "Revoked"), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn revoke_token(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    s.auth.revoke_api_token(&p, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The person's own cards; only to them, in their session.
#[utoipa::path(get, path = "/memory/cards", tag = "memory",
    responses((status = 200, description = "The caller's own cards", body = Vec<serde_json::Value>))
)]
async fn my_cards(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    let cards = s.memory.mine.my_cards(&p).await?;
    Ok(Json(cards).into_response())
}

#[utoipa::path(get, path = "/memory/roles", tag = "memory",
    responses((status = 200, description = "The company cores and team cores the caller may read", body = serde_json::Value))
)]
async fn memory_roles(State(s): State<AppState>, SessionCaller(p): SessionCaller) -> Result<Response, ApiError> {
    Ok(Json(s.cores.roles_overview(&p).await?).into_response())
}

#[utoipa::path(get, path = "/memory/cores/{scope}", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`")),
    responses((status = 200, description = "The core, its current version and what the caller may do", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn get_core(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(key): Path<String>,
) -> Result<Response, ApiError> {
    let view = s.cores.core_view(&p, &scope(&key)?, None).await?;
    Ok(Json(view).into_response())
}

#[derive(Deserialize, ToSchema)]
struct SaveBody {
    based_on: u32,
    text: String,
    #[serde(default)]
    note: String,
}

#[utoipa::path(post, path = "/memory/cores/{scope}", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`")),
    request_body = SaveBody,
    responses((status = 201, description = "The saved version", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn save_core(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(key): Path<String>,
    Json(body): Json<SaveBody>,
) -> Result<Response, ApiError> {
    let saved = s.cores.save_core(&p, &scope(&key)?, body.based_on, &body.text, &body.note).await?;
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

/// One page of History: `?before=N` for the versions older than N. The answer says how to ask
/// for the next page (`next`), or that there is none.
#[utoipa::path(get, path = "/memory/cores/{scope}/versions", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`"), ("before" = Option<u32>, Query, description = "Only versions older than this one")),
    responses((status = 200, description = "One page of the core's versions, newest first, with `next` for the older ones", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn core_versions(
    State(s): State<AppState>,
    SessionCaller(_): SessionCaller,
    Path(key): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let scope = scope(&key)?;
    let before = query.get("before").map(|b| parse_before(b)).transpose()?;
    let page = s.cores.core_history(&scope, before).await?;
    let next = page.next_before.map(|n| format!("/api/memory/cores/{}/versions?before={n}", scope.key()));
    Ok(Json(json!({ "versions": page.versions, "next_before": page.next_before, "next": next })).into_response())
}

#[utoipa::path(get, path = "/memory/cores/{scope}/versions/{version}", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`"), ("version" = u32, Path, description = "The version's number")),
    responses((status = 200, description = "One version of the core", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn core_version(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path((key, version)): Path<(String, u32)>,
) -> Result<Response, ApiError> {
    Ok(Json(s.cores.version_view(&p, &scope(&key)?, version).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct RestoreBody {
    from: u32,
    based_on: u32,
}

#[utoipa::path(post, path = "/memory/cores/{scope}/restore", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`")),
    request_body = RestoreBody,
    responses((status = 201, description = "The new version, a copy of the older one", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn restore_core(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(key): Path<String>,
    Json(body): Json<RestoreBody>,
) -> Result<Response, ApiError> {
    let saved = s.cores.restore_core(&p, &scope(&key)?, body.from, body.based_on).await?;
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct LimitBody {
    limit: u32,
}

#[utoipa::path(post, path = "/memory/cores/{scope}/limit", tag = "memory",
    params(("scope" = String, Path, description = "The core: `company:<role slug>` or `team:<team id>`")),
    request_body = LimitBody,
    responses((status = 204, description = "The limit is set"), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_limit(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(key): Path<String>,
    Json(body): Json<LimitBody>,
) -> Result<StatusCode, ApiError> {
    let slug: RoleSlug = match scope(&key)? {
        CoreScope::Company(slug) => slug,
        CoreScope::Team(_) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid",
                "A team core's limit is fixed at 1,000 tokens",
            ))
        }
    };
    s.cores.set_company_core_limit(&p, &slug, body.limit).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/memory/suggestions/{id}/accept", tag = "memory",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 201, description = "The core's new version with the suggested line", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn accept_suggestion(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let saved = s.cores.accept_suggestion(&p, id).await?;
    Ok((StatusCode::CREATED, Json(saved)).into_response())
}

#[utoipa::path(post, path = "/memory/suggestions/{id}/dismiss", tag = "memory",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 204, description = "Dismissed"), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal))
)]
async fn dismiss_suggestion(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    s.cores.dismiss_suggestion(&p, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
struct WhosWho {
    on: bool,
}

/// An admin marks a toolset as who's who, acting as themselves: only in a session.
#[utoipa::path(post, path = "/connectors/{id}/whos-who", tag = "connectors",
    params(("id" = i64, Path, description = "The id")),
    request_body = WhosWho,
    responses((status = 200, description = "Whether the connector is now who's who", body = WhosWhoSet), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_whos_who(
    State(s): State<AppState>,
    SessionCaller(p): SessionCaller,
    Path(id): Path<i64>,
    Json(body): Json<WhosWho>,
) -> Result<Response, ApiError> {
    s.lists.set_whos_who(&p, id, body.on).await?;
    Ok(Json(WhosWhoSet { connector: id, whos_who: body.on }).into_response())
}

#[derive(Serialize, ToSchema)]
struct WhosWhoSet {
    connector: i64,
    whos_who: bool,
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    me,
    list_tokens,
    create_token,
    revoke_token,
    my_cards,
    memory_roles,
    get_core,
    save_core,
    core_versions,
    core_version,
    restore_core,
    set_limit,
    accept_suggestion,
    dismiss_suggestion,
    set_whos_who
))]
pub struct Doc;
