//! The demo's outbox: where Engram "sends" an approved email. It keeps each message in memory and
//! lists them, so a person (or a test) can see what was sent. Nothing leaves the machine.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::Value;
use std::sync::{Arc, Mutex};

type Sent = Arc<Mutex<Vec<Value>>>;

/// Binds 127.0.0.1:<port> (0 for any) and serves in a spawned task; returns the base URL.
pub async fn spawn(port: u16) -> std::io::Result<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}", listener.local_addr()?);
    tracing::info!(%url, "the demo outbox is serving");
    Ok((url, tokio::spawn(async move { axum::serve(listener, router()).await })))
}

/// `POST /messages` keeps a message `{"from", "to", "subject", "body"}`; `GET /messages` lists
/// them, oldest first.
pub fn router() -> Router {
    let sent: Sent = Arc::default();
    Router::new().route("/messages", post(keep).get(list)).with_state(sent)
}

async fn keep(State(sent): State<Sent>, Json(message): Json<Value>) -> StatusCode {
    let has = |k: &str| message.get(k).and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty());
    if !has("from") || !has("to") {
        return StatusCode::UNPROCESSABLE_ENTITY;
    }
    sent.lock().expect("the outbox lock").push(message);
    StatusCode::CREATED
}

async fn list(State(sent): State<Sent>) -> Json<Vec<Value>> {
    Json(sent.lock().expect("the outbox lock").clone())
}
