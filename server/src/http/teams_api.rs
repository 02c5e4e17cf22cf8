//! Teams under /api: an admin makes a team, and changes its name, role and lead; a team's lead
//! may rename it. An admin moves a person to another main team. Each takes a session or a
//! personal API token; the engine decides who may do what.

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use engine::org::service::TeamEdit;
use engine::org::{PersonId, RoleId, Team, TeamId};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/teams", post(create_team))
        .route("/teams/{id}", post(change_team))
        .route("/people/{id}/team", post(move_person))
}

fn team_json(t: &Team) -> Value {
    json!({ "id": t.id.0, "name": t.name, "role": t.role.map(|r| r.0), "lead": t.lead.map(|p| p.0) })
}

/// A field as the body has it, so that `null` (which clears) differs from absent (which leaves
/// it as it is); serde alone reads both as `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// An id or null, as a body names a role or a lead: absent leaves it as it is.
fn id_or_null(field: &str, v: Option<Value>, what: &str) -> Result<Option<Option<i64>>, ApiError> {
    match v {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(Some(n.as_i64())),
        Some(_) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            format!("The {field} must be {what}'s id, or null for no {field}"),
        )),
    }
}

fn name_field(v: Option<Value>) -> Result<Option<String>, ApiError> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", "The name must be text")),
    }
}

#[derive(Deserialize, ToSchema)]
struct NewTeam {
    #[serde(default, deserialize_with = "present")]
    name: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    role: Option<Value>,
}

#[utoipa::path(post, path = "/teams", tag = "teams",
    request_body = NewTeam,
    responses((status = 201, description = "The new team", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn create_team(
    State(s): State<AppState>,
    Caller(by): Caller,
    Json(b): Json<NewTeam>,
) -> Result<Response, ApiError> {
    let name = name_field(b.name)?.unwrap_or_default();
    let role = id_or_null("role", b.role, "a role")?.flatten().map(RoleId);
    let team = s.org.teams.create_team(&by, &name, role).await?;
    Ok((StatusCode::CREATED, Json(team_json(&team))).into_response())
}

/// Any of name, role and lead; those given change together, or none does.
#[derive(Deserialize, ToSchema)]
struct TeamBody {
    #[serde(default, deserialize_with = "present")]
    name: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    role: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    lead: Option<Value>,
}

#[utoipa::path(post, path = "/teams/{id}", tag = "teams",
    params(("id" = i64, Path, description = "The id")),
    request_body = TeamBody,
    responses((status = 200, description = "The team as it now is", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn change_team(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<TeamBody>,
) -> Result<Response, ApiError> {
    let edit = TeamEdit {
        name: name_field(b.name)?,
        role: id_or_null("role", b.role, "a role")?.map(|r| r.map(RoleId)),
        lead: id_or_null("lead", b.lead, "a person")?.map(|p| p.map(PersonId)),
    };
    let team = s.org.teams.change_team(&by, TeamId(id), &edit).await?;
    Ok(Json(team_json(&team)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct MoveBody {
    #[serde(default, deserialize_with = "present")]
    team: Option<Value>,
}

#[utoipa::path(post, path = "/people/{id}/team", tag = "teams",
    params(("id" = i64, Path, description = "The id")),
    request_body = MoveBody,
    responses((status = 200, description = "Where the person now is", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn move_person(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<MoveBody>,
) -> Result<Response, ApiError> {
    let Some(Value::Number(team)) = b.team else {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", "The team must be a team's id"));
    };
    let Some(team) = team.as_i64() else {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", "The team must be a team's id"));
    };
    let message = s.org.teams.move_person(&by, PersonId(id), TeamId(team)).await?;
    Ok(Json(json!({ "person": id, "team": team, "message": message })).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(create_team, change_team, move_person))]
pub struct Doc;
