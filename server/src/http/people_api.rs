//! Adding people and what admins do for them, under /api: `POST /api/people` adds someone and
//! answers with their one-time invite link, `POST /api/people/{id}/invite` resets a password with a
//! new link, and `POST /api/people/{id}/admin` makes someone an admin or takes it away. Each takes a
//! session or a personal API token, but a reset only a session and the admin's own password again;
//! the engine decides who may.

use crate::http::api::{ApiError, Caller, SessionCaller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use app::people::invite_link::{invite_link, site_origin};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use engine::org::service::{AddPerson, InviteLink};
use engine::org::{PersonId, RoleId, TeamId};
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/people", post(add_person))
        .route("/people/{id}/invite", post(reset_password))
        .route("/people/{id}/admin", post(set_admin))
}

#[derive(Deserialize, ToSchema)]
struct NewPersonBody {
    name: String,
    email: String,
    #[serde(default)]
    main_team: Option<i64>,
    /// Their own department role; left out, they take their main team's.
    #[serde(default)]
    role: Option<i64>,
}

/// The link is in the answer this once; only its hash is kept.
fn invite_json(headers: &HeaderMap, link: &InviteLink) -> serde_json::Value {
    json!({
        "person": link.person,
        "invite": {
            "link": invite_link(&site_origin(headers), &link.secret),
            "path": engine::auth::invite::invite_path(&link.secret),
            "expires_at": link.expires_at,
        },
    })
}

#[utoipa::path(post, path = "/people", tag = "people",
    request_body = NewPersonBody,
    responses((status = 201, description = "The person, and their invite link this once", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn add_person(
    State(s): State<AppState>,
    Caller(by): Caller,
    headers: HeaderMap,
    Json(b): Json<NewPersonBody>,
) -> Result<Response, ApiError> {
    let new = AddPerson { name: b.name, email: b.email, main_team: b.main_team.map(TeamId), role: b.role.map(RoleId) };
    let link = s.org.people.add_person(&by, &new).await?;
    tracing::info!(person = %link.person.id, by = %by.id, "added a person");
    Ok((StatusCode::CREATED, Json(invite_json(&headers, &link))).into_response())
}

#[derive(Deserialize, ToSchema)]
struct ResetBody {
    /// The admin's own current password, typed again.
    #[serde(default)]
    password: String,
}

/// Only a signed-in session may reset: a token gets `session_required`, since a token leaked from
/// a script must not be able to take over someone's account.
#[utoipa::path(post, path = "/people/{id}/invite", tag = "people",
    params(("id" = i64, Path, description = "The id")),
    request_body = ResetBody,
    responses((status = 201, description = "A new invite link for the person, this once", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal), (status = 429, response = Refusal))
)]
async fn reset_password(
    State(s): State<AppState>,
    SessionCaller(by): SessionCaller,
    headers: HeaderMap,
    Path(id): Path<i64>,
    Json(b): Json<ResetBody>,
) -> Result<Response, ApiError> {
    let link = s.org.people.reset_password(&by, &b.password, PersonId(id)).await?;
    tracing::info!(person = id, by = %by.id, "reset a password");
    Ok((StatusCode::CREATED, Json(invite_json(&headers, &link))).into_response())
}

#[derive(Deserialize, ToSchema)]
struct AdminBody {
    admin: bool,
}

#[utoipa::path(post, path = "/people/{id}/admin", tag = "people",
    params(("id" = i64, Path, description = "The id")),
    request_body = AdminBody,
    responses((status = 200, description = "What changed", body = serde_json::Value), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_admin(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<AdminBody>,
) -> Result<Response, ApiError> {
    let message = s.org.people.set_admin(&by, PersonId(id), b.admin).await?;
    Ok(Json(json!({ "message": message })).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(add_person, reset_password, set_admin))]
pub struct Doc;
