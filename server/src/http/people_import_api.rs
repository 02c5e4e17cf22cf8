//! Importing people from a CSV file over HTTP: `POST /api/people/import` (the CSV as the body;
//! `?apply=true` adds the people), and the two form posts of the Import people page. A file comes
//! as a multipart post, which a server function does not read, so the page's forms post here, keep
//! the file in the session and send the browser back to the page, with JavaScript on or off.

use crate::http::api::{ApiError, Caller};
use crate::http::guard::encode_component;
use crate::http::openapi::Refusal;
use crate::http::state::AppState;
use app::flash::{notice_key, Notice};
use app::people_import::{
    ImportResult, Invited, KeptFile, APPLY, DONE_KEY, KEPT_FILE_KEY, PASTED_KEY, PEOPLE_IMPORT, UPLOAD,
};
use app::ssr::{person_in_session, refusal};
use axum::body::{Body, Bytes};
use axum::extract::multipart::{Multipart, MultipartError};
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::{Extension, Form, Json, Router};
use engine::auth::invite::INVITE_DAYS;
use engine::error::INTERNAL_MESSAGE;
use engine::org::import::{decode_csv, people_count, ImportDone, RefusedRow, MAX_IMPORT_BYTES};
use engine::org::service::ImportBy;
use engine::org::Person;
use serde::Deserialize;
use serde_json::{json, Value};
use tower::{Layer, ServiceExt};
use tower_http::limit::RequestBodyLimitLayer;
use tower_sessions::Session;
use utoipa::IntoParams;

/// What may be posted to an import: more than the file's own cap, so that a file somewhat too
/// large is refused with the cap's sentence rather than a bare 413.
pub const IMPORT_BODY_LIMIT: usize = 4 * MAX_IMPORT_BYTES;
pub const API_PATH: &str = "/api/people/import";

/// Where invite links begin: the configured public address, if any.
#[derive(Clone)]
struct PublicUrl(Option<String>);

/// `POST /people/import`, for the router nested under /api.
pub fn api_router(public_url: Option<String>) -> Router<AppState> {
    Router::new()
        .route("/people/import", post(api_import))
        .layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT))
        .layer(Extension(PublicUrl(public_url)))
}

/// The Import people page's form posts.
pub fn page_router(public_url: Option<String>) -> Router<AppState> {
    Router::new()
        .route(UPLOAD, post(upload))
        .route(APPLY, post(apply))
        .layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT))
        .layer(Extension(PublicUrl(public_url)))
}

/// The most a request to the bots' API (`/api/org`, `/mcp`) may carry. What bots send is stored
/// (a self-edit's content and reason, a task, a wake's summary), refused requests too, so its
/// size is bounded where it arrives, before anything reads it. `/mcp?agent=…` is a person's
/// outside agent (a bot's token is refused there), whose answer may be longer: it gets the
/// settings' limit, as the REST pair does.
pub const BOT_BODY_LIMIT: usize = 8 * 1024;

/// The request body limit: the settings' for every route, [`IMPORT_BODY_LIMIT`] for the two that
/// take a CSV file, and [`BOT_BODY_LIMIT`] for the bots' API.
pub async fn body_limit(State(limit): State<usize>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let mcp = path == "/mcp" || path.starts_with("/mcp/");
    let outside_agent = mcp && crate::http::mcp::names_an_agent(req.uri());
    let bots = path.starts_with("/api/org/") || (mcp && !outside_agent);
    let limit = if path == API_PATH || path == UPLOAD {
        IMPORT_BODY_LIMIT.max(limit)
    } else if bots {
        BOT_BODY_LIMIT.min(limit)
    } else {
        limit
    };
    let next = tower::util::MapRequestLayer::new(|r: Request<_>| r.map(Body::new)).layer(next);
    let response = match RequestBodyLimitLayer::new(limit).layer(next).oneshot(req).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    if bots && response.status() == StatusCode::PAYLOAD_TOO_LARGE {
        let message = format!("A request to the bots' API can be at most {} KiB", BOT_BODY_LIMIT / 1024);
        return (StatusCode::PAYLOAD_TOO_LARGE, Json(json!({"error": "too_large", "message": message})))
            .into_response();
    }
    response
}

/// The origin invite links begin with: the configured public address, else the one the browser
/// used (a form post's Origin, which `same_origin_writes` has checked), else the Host asked for.
fn origin(public: &PublicUrl, headers: &HeaderMap) -> String {
    if let Some(url) = &public.0 {
        return url.clone();
    }
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty() && *v != "null");
    match (header(header::ORIGIN), header(header::HOST)) {
        (Some(origin), _) => origin.trim_end_matches('/').to_string(),
        (None, Some(host)) => format!("http://{host}"),
        (None, None) => String::new(),
    }
}

fn refused_rows(rows: &[RefusedRow]) -> Vec<Value> {
    rows.iter().map(|r| json!({ "line": r.line, "reason": r.reason, "message": r.sentence() })).collect()
}

fn invited(done: &ImportDone, origin: &str) -> Vec<Invited> {
    done.added
        .iter()
        .map(|p| Invited {
            line: p.line,
            name: p.name.clone(),
            email: p.email.clone(),
            link: format!("{origin}{}", p.invite_path),
        })
        .collect()
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ImportQuery {
    #[serde(default)]
    apply: bool,
    /// The dry run's `check`: the apply is refused if the file now checks differently.
    check: Option<String>,
}

/// The dry run, or with `?apply=true` the import itself, of the CSV in the body.
#[utoipa::path(post, path = "/people/import", tag = "people",
    params(ImportQuery),
    request_body(content = String, content_type = "text/csv", description = "The CSV: a header line, then one person a line"),
    responses((status = 200, description = "The dry run: `check`, the people it would add and the rows it refuses", body = serde_json::Value), (status = 201, description = "The import: the people added with their invite links, and the rows refused", body = serde_json::Value), (status = 403, response = Refusal), (status = 409, response = Refusal), (status = 422, response = Refusal))
)]
async fn api_import(
    State(s): State<AppState>,
    Extension(public): Extension<PublicUrl>,
    Caller(me): Caller,
    headers: HeaderMap,
    Query(q): Query<ImportQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let by = ImportBy::Person(&me);
    by.admitted()?;
    let text = decode_csv(&body)?;
    if !q.apply {
        let plan = s.org.import_dry_run(by, &text).await?;
        return Ok(Json(json!({
            "check": plan.check(),
            "to_add": plan.to_add,
            "refused": refused_rows(&plan.refused),
        }))
        .into_response());
    }
    let done = s.org.import_people(by, &text, q.check.as_deref()).await?;
    tracing::info!(by = %me.id, added = done.added.len(), refused = done.refused.len(), "people imported");
    let added: Vec<Value> = invited(&done, &origin(&public, &headers))
        .into_iter()
        .zip(&done.added)
        .map(|(i, p)| {
            json!({ "id": p.id, "line": i.line, "name": i.name, "email": i.email, "invite_link": i.link, "invite_path": p.invite_path })
        })
        .collect();
    Ok((StatusCode::CREATED, Json(json!({ "added": added, "refused": refused_rows(&done.refused) }))).into_response())
}

/// The person signed in, or the answer that sends the browser to sign in.
async fn signed_in(s: &AppState, session: &Session) -> Result<Person, Response> {
    match person_in_session(session, &s.auth).await {
        Ok(Some(p)) => Ok(p),
        Ok(None) => Err(Redirect::to(&format!("/signin?next={}", encode_component(PEOPLE_IMPORT))).into_response()),
        Err(e) => {
            tracing::error!(error = %e, "could not read the session");
            Err((StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE).into_response())
        }
    }
}

async fn keep<T: serde::Serialize>(session: &Session, key: &str, value: T) {
    if let Err(e) = session.insert(key, value).await {
        tracing::error!(error = %e, key, "could not keep the import in the session");
    }
}

/// Back to the page, with the notice it shows.
async fn back(session: &Session, notice: Notice) -> Response {
    keep(session, &notice_key(PEOPLE_IMPORT), notice).await;
    Redirect::to(PEOPLE_IMPORT).into_response()
}

/// A chosen file (`file`) or pasted text (`text`), as the form sent them.
async fn read_form(mut form: Multipart) -> Result<(Option<(String, Bytes)>, String), MultipartError> {
    let (mut file, mut text) = (None, String::new());
    while let Some(field) = form.next_field().await? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_string();
                let bytes = field.bytes().await?;
                if !bytes.is_empty() {
                    file = Some((name, bytes));
                }
            }
            Some("text") => text = field.text().await?,
            _ => {}
        }
    }
    Ok((file, text))
}

/// "Check the file": keeps the file in the session for the page's dry run. A refusal keeps
/// pasted text for the form.
async fn upload(State(s): State<AppState>, session: Session, form: Multipart) -> Response {
    let me = match signed_in(&s, &session).await {
        Ok(p) => p,
        Err(answer) => return answer,
    };
    let by = ImportBy::Person(&me);
    if let Err(e) = by.admitted() {
        return back(&session, Notice::refused(refusal(&e))).await;
    }
    // A new file replaces the one checked before, whatever becomes of it.
    if let Err(e) = session.remove::<KeptFile>(KEPT_FILE_KEY).await {
        tracing::error!(error = %e, "could not forget the file checked before");
    }
    let (file, pasted) = match read_form(form).await {
        Ok(read) => read,
        Err(e) => {
            tracing::info!(error = %e, "an import's upload could not be read");
            let message = if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                format!("The file is too large: an import can be at most {} MB", MAX_IMPORT_BYTES / (1024 * 1024))
            } else {
                "The upload could not be read; choose the file again".to_string()
            };
            return back(&session, Notice::refused(message)).await;
        }
    };
    let (text, source, was_pasted) = match file {
        Some((name, bytes)) => match decode_csv(&bytes) {
            Ok(text) => (text, if name.is_empty() { "the file".to_string() } else { name }, false),
            Err(e) => return back(&session, Notice::refused(refusal(&e))).await,
        },
        None if !pasted.trim().is_empty() => (pasted, "the pasted CSV".to_string(), true),
        None => return back(&session, Notice::refused("Choose a CSV file, or paste its text, to check it")).await,
    };
    match s.org.import_dry_run(by, &text).await {
        Ok(_) => {
            keep(&session, KEPT_FILE_KEY, KeptFile { text, source }).await;
            Redirect::to(PEOPLE_IMPORT).into_response()
        }
        Err(e) => {
            if was_pasted {
                keep(&session, PASTED_KEY, text).await;
            }
            back(&session, Notice::refused(refusal(&e))).await
        }
    }
}

#[derive(Deserialize)]
struct ApplyForm {
    #[serde(default)]
    check: String,
}

/// "Add N people": adds the checked file's people, and shows them with their invite links once.
async fn apply(
    State(s): State<AppState>,
    Extension(public): Extension<PublicUrl>,
    session: Session,
    headers: HeaderMap,
    Form(form): Form<ApplyForm>,
) -> Response {
    let me = match signed_in(&s, &session).await {
        Ok(p) => p,
        Err(answer) => return answer,
    };
    let file = match session.get::<KeptFile>(KEPT_FILE_KEY).await {
        Ok(Some(file)) => file,
        Ok(None) => {
            return back(&session, Notice::refused("There is no checked file to add people from: choose one first"))
                .await
        }
        Err(e) => {
            tracing::error!(error = %e, "could not read the checked file");
            return back(&session, Notice::refused(INTERNAL_MESSAGE)).await;
        }
    };
    match s.org.import_people(ImportBy::Person(&me), &file.text, Some(&form.check)).await {
        Ok(done) => {
            tracing::info!(by = %me.id, added = done.added.len(), refused = done.refused.len(), "people imported");
            if let Err(e) = session.remove::<KeptFile>(KEPT_FILE_KEY).await {
                tracing::error!(error = %e, "could not forget the imported file");
            }
            let result = ImportResult {
                added: invited(&done, &origin(&public, &headers)),
                refused: done.refused.iter().map(RefusedRow::sentence).collect(),
                valid_days: INVITE_DAYS,
            };
            keep(&session, DONE_KEY, result).await;
            back(&session, Notice::ok(format!("Added {} from {}.", people_count(done.added.len()), file.source))).await
        }
        Err(e) => back(&session, Notice::refused(refusal(&e))).await,
    }
}

/// This module's operations in the OpenAPI document (`crate::http::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(api_import))]
pub struct Doc;
