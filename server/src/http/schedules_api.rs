//! How a company agent runs unasked, under /api: anyone who sees the agent reads its schedule,
//! whether it has a trigger and whether it is paused (never a trigger's secret or its hash); its
//! owner or an admin sets and clears the schedule, pauses and resumes it, and makes, rotates and
//! clears its trigger, whose secret is answered once. Each takes a session or a personal API
//! token, as the other agent endpoints do. Refusals are the engine's sentences, translated once
//! by `ApiError`.
//!
//! `POST /api/agents/{id}/trigger` is the trigger itself (what another system posts to), not a
//! way to set it: these routes leave that path alone.

use crate::http::api::{ApiError, Caller};
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use engine::org::AgentId;
use engine::runs::schedules::service::AutomationView;
use engine::runs::schedules::{due_words, Schedule};
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/agents/{id}/automation", get(automation))
        .route("/agents/{id}/schedule", post(set_schedule))
        .route("/agents/{id}/schedule/clear", post(clear_schedule))
        .route("/agents/{id}/pause", post(pause))
        .route("/agents/{id}/resume", post(resume))
        .route("/agents/{id}/trigger/make", post(make_trigger))
        .route("/agents/{id}/trigger/clear", post(clear_trigger))
}

/// Whether `path` makes or rotates a trigger, so its answer holds a secret that no
/// `Idempotency-Key` may keep.
pub fn answers_a_secret(path: &str) -> bool {
    path.strip_prefix("/api/agents/")
        .and_then(|rest| rest.strip_suffix("/trigger/make"))
        .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

/// The path another system posts to, to fire the agent's trigger.
pub fn trigger_path(agent: i64) -> String {
    app::paths::agent_trigger(agent)
}

fn schedule_json(s: &Schedule, zone: chrono_tz::Tz) -> Value {
    json!({
        "instruction": s.instruction,
        "kind": s.when.kind(),
        "value": s.when.value(),
        "when": s.when.words(),
        "next_due": s.next_due,
        "next_due_local": due_words(zone, s.next_due),
        "set_by": s.set_by,
        "set_at": s.set_at,
    })
}

/// The state as data: what the page shows, in the same words.
fn view_json(agent: i64, v: &AutomationView) -> Value {
    let a = &v.automation;
    json!({
        "agent": agent,
        "zone": v.zone.name(),
        "schedule": a.schedule.as_ref().map(|s| schedule_json(s, v.zone)),
        "trigger": a.trigger.as_ref().map(|t| json!({
            "url": trigger_path(agent),
            "made_by": t.made_by,
            "made_at": t.made_at,
        })),
        "paused": a.paused,
        "manages": v.manages,
    })
}

#[utoipa::path(get, path = "/agents/{id}/automation", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "How the agent runs unasked: its schedule, whether it has a trigger (never its secret), whether it is paused, and whether the caller may change them", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn automation(State(s): State<AppState>, Caller(by): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    let v = s.schedules.view(&by, AgentId(id)).await?;
    Ok(Json(view_json(id, &v)).into_response())
}

#[derive(Deserialize, ToSchema)]
struct ScheduleBody {
    /// What the agent is asked each time.
    instruction: String,
    /// daily, weekdays or every.
    kind: String,
    /// HH:MM for daily and weekdays; how often (2h, 30m) for every.
    value: String,
}

#[utoipa::path(post, path = "/agents/{id}/schedule", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    request_body = ScheduleBody,
    responses((status = 200, description = "The schedule as saved, with when it is next due", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn set_schedule(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
    Json(b): Json<ScheduleBody>,
) -> Result<Response, ApiError> {
    let saved = s.schedules.set_schedule(&by, AgentId(id), &b.instruction, &b.kind, &b.value).await?;
    let zone = s.schedules.zone().await?;
    Ok(Json(json!({ "agent": id, "schedule": schedule_json(&saved, zone) })).into_response())
}

#[utoipa::path(post, path = "/agents/{id}/schedule/clear", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "The schedule is cleared", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn clear_schedule(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    s.schedules.clear_schedule(&by, AgentId(id)).await?;
    Ok(Json(json!({ "agent": id, "schedule": Value::Null })).into_response())
}

#[utoipa::path(post, path = "/agents/{id}/pause", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "Paused: neither its schedule nor its trigger fires", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn pause(State(s): State<AppState>, Caller(by): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    s.schedules.set_paused(&by, AgentId(id), true).await?;
    Ok(Json(json!({ "agent": id, "paused": true })).into_response())
}

#[utoipa::path(post, path = "/agents/{id}/resume", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "Resumed", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn resume(State(s): State<AppState>, Caller(by): Caller, Path(id): Path<i64>) -> Result<Response, ApiError> {
    s.schedules.set_paused(&by, AgentId(id), false).await?;
    Ok(Json(json!({ "agent": id, "paused": false })).into_response())
}

/// Makes the trigger, or rotates its secret when it has one: the old secret stops at once. The
/// secret is in this answer only; nothing reads it again.
#[utoipa::path(post, path = "/agents/{id}/trigger/make", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 201, description = "A new trigger, with its secret shown this once", body = Object), (status = 200, description = "The trigger's secret rotated: the new one, shown this once; the old one stops at once", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn make_trigger(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let rotated = s.schedules.view(&by, AgentId(id)).await?.automation.trigger.is_some();
    let (t, secret) = s.schedules.make_trigger(&by, AgentId(id)).await?;
    let body = json!({
        "agent": id,
        "url": trigger_path(id),
        "secret": secret,
        "rotated": rotated,
        "made_by": t.made_by,
        "made_at": t.made_at,
        "message": "Copy the secret now; it is not shown again",
    });
    let status = if rotated { StatusCode::OK } else { StatusCode::CREATED };
    // Shown once: no cache keeps it either.
    Ok((status, [(header::CACHE_CONTROL, "no-store")], Json(body)).into_response())
}

#[utoipa::path(post, path = "/agents/{id}/trigger/clear", tag = "schedules", params(("id" = i64, Path, description = "The agent's id")),
    responses((status = 200, description = "The trigger is cleared; its secret stops at once", body = Object), (status = 403, response = Refusal), (status = 404, response = Refusal), (status = 422, response = Refusal))
)]
async fn clear_trigger(
    State(s): State<AppState>,
    Caller(by): Caller,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    s.schedules.clear_trigger(&by, AgentId(id)).await?;
    Ok(Json(json!({ "agent": id, "trigger": Value::Null })).into_response())
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(automation, set_schedule, clear_schedule, pause, resume, make_trigger, clear_trigger))]
pub struct Doc;

#[cfg(test)]
mod tests {
    use super::answers_a_secret;

    #[test]
    fn only_making_a_trigger_answers_a_secret() {
        assert!(answers_a_secret("/api/agents/7/trigger/make"));
        for other in [
            "/api/agents/7/trigger",
            "/api/agents/7/trigger/clear",
            "/api/agents//trigger/make",
            "/api/agents/7/x/trigger/make",
            "/api/tokens",
        ] {
            assert!(!answers_a_secret(other), "{other}");
        }
    }
}
