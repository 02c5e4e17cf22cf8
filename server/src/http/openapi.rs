//! The OpenAPI 3.1 document of `/api` and `/api/org`, served at `GET /api/openapi.json`.
//!
//! It is generated from the handlers themselves: each handler carries `#[utoipa::path]` (its
//! method, path, parameters, body and the statuses it answers), each module lists its handlers in
//! its own `Doc`, and [`document`] nests those under `/api` or `/api/org`. The test
//! `server/tests/api/openapi.rs` compares the document with the routers' routes, so a route
//! without a description fails it. How to describe a new endpoint: docs/api.md.

use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use std::sync::OnceLock;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, Ref, RefOr};
use utoipa::{Modify, OpenApi, ToResponse, ToSchema};

/// The session cookie's name, as `startup.rs` sets it.
pub const SESSION_COOKIE: &str = "engram_session";

/// A refusal, as every API answer other than a success carries it: `error` is a stable code for
/// programs (`not_signed_in`, `session_required`, `bad_request`, `invalid`, `not_found`, ...),
/// `message` the plain sentence to show a person.
#[derive(Serialize, ToSchema, ToResponse)]
#[response(description = "A refusal: a stable code in `error` and the sentence for a person in `message`")]
pub struct Refusal {
    pub error: String,
    pub message: String,
}

/// The `/api` and `/api/org` document's frame: its title, the security schemes and the shared
/// refusal; the paths come from the modules' own `Doc`s.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Engram API",
        description = "Engram's JSON API. Sign in with a session cookie (the web sign-in) or send a personal API \
                       token as `Authorization: Bearer`. Memory, the Inbox and token management take only a \
                       session; a token gets `401 session_required` there. `/api/org` also takes a bot's own token. \
                       An agent token (`agt_…`, made on a company agent's page) acts for nobody and works only \
                       for external runs: `POST /api/runs/external`, its tools and its finish.",
    ),
    components(schemas(Refusal), responses(Refusal)),
    modifiers(&Security),
    nest(
        (path = "/api", api = crate::http::api::Doc),
        (path = "/api", api = crate::http::runs_api::Doc),
        (path = "/api", api = crate::http::inbox_api::Doc),
        (path = "/api", api = crate::http::knowledge_api::Doc),
        (path = "/api", api = crate::http::bots_api::PeopleDoc),
        (path = "/api", api = crate::http::agents_api::Doc),
        (path = "/api", api = crate::http::people_api::Doc),
        (path = "/api", api = crate::http::teams_api::Doc),
        (path = "/api", api = crate::http::erasure_api::Doc),
        (path = "/api", api = crate::http::ops_api::Doc),
        (path = "/api", api = crate::http::people_import_api::Doc),
        (path = "/api", api = crate::http::trigger_api::Doc),
        (path = "/api", api = crate::http::schedules_api::Doc),
        (path = "/api", api = crate::http::agent_tokens_api::Doc),
        (path = "/api", api = Served),
        (path = "/api/org", api = crate::http::bots_api::Doc),
    )
)]
struct ApiDoc;

#[derive(OpenApi)]
#[openapi(paths(openapi_json))]
struct Served;

/// The two ways to be signed in, offered on every operation (which one an operation takes is in
/// its description and its 401s): the session cookie and a bearer token.
struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                SESSION_COOKIE,
                "The web sign-in's session cookie (POST /auth/sign-in)",
            ))),
        );
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A personal API token (POST /api/tokens), or in /api/org a bot's own token"))
                    .build(),
            ),
        );
        let either = [
            utoipa::openapi::security::SecurityRequirement::new("session", Vec::<String>::new()),
            utoipa::openapi::security::SecurityRequirement::new("token", Vec::<String>::new()),
        ];
        doc.security = Some(either.to_vec());
        // Refusals every operation can give whatever it does, from the layers in front of the
        // handlers: a body, path or query the handler cannot read (400, 413, 415, 422), a path
        // parameter no route matches (404) and no caller (401). The handlers list their own refusals beside these.
        let refusal = || RefOr::Ref(Ref::from_response_name("Refusal"));
        for (path, item) in doc.paths.paths.iter_mut() {
            for op in [&mut item.get, &mut item.post, &mut item.delete].into_iter().flatten() {
                let takes_body = op.request_body.is_some();
                let mut codes = vec!["400", "401"];
                // A path parameter no route matches (empty, or holding a slash) is the API's 404.
                if path.contains('{') {
                    codes.push("404");
                }
                if takes_body {
                    codes.extend(["413", "415", "422"]);
                }
                for code in codes {
                    op.responses.responses.entry(code.to_string()).or_insert_with(refusal);
                }
            }
        }
        // The document itself needs no caller: it holds no data.
        if let Some(op) = doc.paths.paths.get_mut("/api/openapi.json").and_then(|i| i.get.as_mut()) {
            op.security = Some(vec![utoipa::openapi::security::SecurityRequirement::default()]);
            op.responses.responses.retain(|code, _| code == "200");
        }
    }
}

/// The document, built once: it depends only on the code.
pub fn document() -> &'static Document {
    static DOC: OnceLock<Document> = OnceLock::new();
    DOC.get_or_init(ApiDoc::openapi)
}

/// This document, served to anyone: it describes the API and holds no data.
#[utoipa::path(get, path = "/openapi.json", tag = "meta", responses(
    (status = 200, description = "This OpenAPI 3.1 document", content_type = "application/json"),
))]
pub async fn openapi_json() -> Response {
    match serde_json::to_value(document()) {
        Ok(v) => Json(v).into_response(),
        Err(e) => crate::http::api::ApiError::internal(e).into_response(),
    }
}
