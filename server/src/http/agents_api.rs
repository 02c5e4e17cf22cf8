//! Agents and their access under /api: an admin creates a company agent and sets its clearance;
//! anyone makes private agents of their own;
//! whoever manages an agent copies it for a team and gives it toolsets; an admin chooses the roles
//! a toolset admits and the tools that read with people's own keys. Each takes a session or a
//! personal API token: these are not memory endpoints.

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::org::agents::AgentForm;
use engine::org::{AgentId, PersonId, RoleId, TeamId};
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/agents", post(create_agent))
        .route("/agents/private", get(private_agents).post(create_private_agent))
        .route("/agents/{id}", get(agent))
        .route("/agents/{id}/copy", post(copy_agent))
        .route("/agents/{id}/toolsets", post(set_toolsets))
        .route("/agents/{id}/clearance", post(set_clearance))
        .route("/connectors/{id}/admits-roles", post(set_admits_roles))
        .route("/connectors/{id}/own-keys", post(set_own_keys))
        .route("/connectors/{id}/write-targets", post(set_write_target))
}

#[derive(Deserialize, ToSchema)]
struct NewAgentBody {
    name: String,
    /// The department role's id, or null for none.
    #[serde(default)]
    role: Option<i64>,
    owner: i64,
    #[serde(default)]
    description: String,
}

#[utoipa::path(post, path = "/agents", tag = "agents",
    request_body = NewAgentBody,
    responses((status = 201, description = "The new company agent", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn create_agent(
    State(s): State<AppState>,
    Caller(by): Caller,
    Json(b): Json<NewAgentBody>,
) -> Result<Response, ApiError> {
    let form =
        AgentForm { name: b.name, role: b.role.map(RoleId), owner: PersonId(b.owner), description: b.description };
    let agent = s.org.agents.create_agent(&by, &form).await?;
    Ok((StatusCode::CREATED, Json(agent)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct NewPrivateAgentBody {
    name: String,
    #[serde(default)]
    description: String,
}

/// A private agent of the caller's own: only they see it and ask it.
#[utoipa::path(post, path = "/agents/private", tag = "agents",
    request_body = NewPrivateAgentBody,
    responses((status = 201, description = "The new private agent", body = serde_json::Value), (status = 403, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn create_private_agent(
    State(s): State<AppState>,
    Caller(by): Caller,
    Json(b): Json<NewPrivateAgentBody>,
) -> Result<Response, ApiError> {
    let agent = s.org.agents.create_private_agent(&by, &b.name, &b.description).await?;
    Ok((StatusCode::CREATED, Json(agent)).into_response())
}

/// The caller's own private agents.
#[utoipa::path(get, path = "/agents/private", tag = "agents",
    responses((status = 200, description = "The caller's own private agents", body = Vec<serde_json::Value>))
)]
async fn private_agents(State(s): State<AppState>, Caller(by): Caller) -> Result<Response, ApiError> {
    Ok(Json(s.org.agents.private_agents(&by).await?).into_response())
}

/// The agent's page as data: the agent, the toolsets it holds and its clearance, with what the
/// caller may change.
#[utoipa::path(get, path = "/agents/{id}", tag = "agents",
    params(("id" = i64, Path, description = "The id")),
    responses((status = 200, description = "The agent, the toolsets it holds and its clearance, with what the caller may change", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal))
)]
async fn agent(State(s): State<AppState>, Caller(by): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(Json(s.org.agents.agent_access(&by, AgentId(id)).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
struct CopyBody {
    team: i64,
}

#[utoipa::path(post, path = "/agents/{id}/copy", tag = "agents",
    params(("id" = i64, Path, description = "The id")),
    request_body = CopyBody,
    responses((status = 201, description = "The team's copy", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn copy_agent(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<CopyBody>,
) -> Result<Response, ApiError> {
    let copy = s.org.agents.copy_agent_for_team(&by, AgentId(id), TeamId(b.team)).await?;
    Ok((StatusCode::CREATED, Json(copy)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct ToolsetsBody {
    toolsets: Vec<i64>,
}

#[utoipa::path(post, path = "/agents/{id}/toolsets", tag = "agents",
    params(("id" = i64, Path, description = "The id")),
    request_body = ToolsetsBody,
    responses((status = 200, description = "The toolsets the agent now holds", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_toolsets(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<ToolsetsBody>,
) -> Result<Response, ApiError> {
    s.org.agents.set_agent_toolsets(&by, AgentId(id), &b.toolsets).await?;
    let held = s.store.agent_access(AgentId(id)).await.map_err(ApiError::internal)?.map(|(_, t)| t).unwrap_or_default();
    Ok(Json(json!({ "agent": id, "toolsets": held })).into_response())
}

#[derive(Deserialize, ToSchema)]
struct ClearanceBody {
    clearance: String,
}

#[utoipa::path(post, path = "/agents/{id}/clearance", tag = "agents",
    params(("id" = i64, Path, description = "The id")),
    request_body = ClearanceBody,
    responses((status = 200, description = "The agent's clearance and what it means", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_clearance(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<ClearanceBody>,
) -> Result<Response, ApiError> {
    let meaning = s.org.agents.set_agent_clearance(&by, AgentId(id), &b.clearance).await?;
    Ok(Json(json!({ "agent": id, "clearance": b.clearance.trim(), "meaning": meaning })).into_response())
}

#[derive(Deserialize, ToSchema)]
struct AdmitsBody {
    /// Role slugs, as in `sales`; an empty list admits everyone in the company.
    roles: Vec<String>,
}

#[utoipa::path(post, path = "/connectors/{id}/admits-roles", tag = "connectors",
    params(("id" = i64, Path, description = "The id")),
    request_body = AdmitsBody,
    responses((status = 200, description = "The roles the connector now admits", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_admits_roles(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<AdmitsBody>,
) -> Result<Response, ApiError> {
    let message = s.memory.connectors.set_admits_roles(&by, id, &b.roles).await?;
    let c = s.store.connector(id).await.map_err(ApiError::internal)?;
    let admits = c.map(|c| c.admits_roles).unwrap_or_default();
    Ok(Json(json!({ "connector": id, "admits_roles": admits, "message": message })).into_response())
}

#[derive(Deserialize, ToSchema)]
struct OwnKeysBody {
    /// The ticked tools that read with people's own keys; empty for none.
    tools: Vec<String>,
}

#[utoipa::path(post, path = "/connectors/{id}/own-keys", tag = "connectors",
    params(("id" = i64, Path, description = "The id")),
    request_body = OwnKeysBody,
    responses((status = 200, description = "The tools that now read with people's own keys", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_own_keys(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<OwnKeysBody>,
) -> Result<Response, ApiError> {
    let message = s.memory.connectors.set_own_key_tools(&by, id, &b.tools).await?;
    let c = s.store.connector(id).await.map_err(ApiError::internal)?;
    let tools = c.map(|c| c.own_key_tools).unwrap_or_default();
    Ok(Json(json!({ "connector": id, "own_key_tools": tools, "message": message })).into_response())
}

#[derive(Deserialize, ToSchema)]
struct WriteTargetBody {
    /// A ticked tool that acts.
    tool: String,
    /// The kind of record it changes, and the argument holding its id; both absent to clear.
    kind: Option<String>,
    id_argument: Option<String>,
}

/// An admin sets what a tool that acts changes, so the change reads the record first.
#[utoipa::path(post, path = "/connectors/{id}/write-targets", tag = "connectors",
    params(("id" = i64, Path, description = "The id")),
    request_body = WriteTargetBody,
    responses((status = 200, description = "What the connector's acting tools change", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_write_target(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<WriteTargetBody>,
) -> Result<Response, ApiError> {
    let target = b.kind.as_deref().map(|k| (k, b.id_argument.as_deref().unwrap_or("")));
    let message = s.memory.connectors.set_write_target(&by, id, &b.tool, target).await?;
    let c = s.store.connector(id).await.map_err(ApiError::internal)?;
    let targets = c.map(|c| c.write_targets).unwrap_or_default();
    Ok(Json(json!({ "connector": id, "write_targets": targets, "message": message })).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    create_agent,
    private_agents,
    create_private_agent,
    agent,
    copy_agent,
    set_toolsets,
    set_clearance,
    set_admits_roles,
    set_own_keys,
    set_write_target
))]
pub struct Doc;
