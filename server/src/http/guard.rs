//! Request guards: writes only from our own pages, and pages only for people signed in.

use crate::http::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use tower_sessions::Session;

/// Refuses a state-changing request that a browser says came from another site. Server
/// functions and sign-in are plain POSTs with a cookie, so SameSite=Lax alone is not enough.
pub async fn same_origin_writes(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    let headers = req.headers();
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let refused = match fetch_site {
        Some(site) => !matches!(site, "same-origin" | "none"),
        None => match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
            Some(origin) => {
                let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
                let origin_host = origin.split("://").nth(1).unwrap_or("");
                origin == "null" || origin_host != host
            }
            // No browser marks at all: a script or the CLI, which carries no ambient cookie of
            // someone else's.
            None => false,
        },
    };
    if refused {
        tracing::warn!(path = %req.uri().path(), ?fetch_site, "refused a cross-site write");
        return (StatusCode::FORBIDDEN, "This request came from another site, so it was refused.").into_response();
    }
    next.run(req).await
}

pub(crate) fn is_page(path: &str) -> bool {
    path == "/"
        || ["/company", "/cores", "/profile", "/org", "/ask", "/threads", "/inbox"]
            .iter()
            .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// Percent-encodes a path and query for the `next` parameter.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Sends someone who is not signed in to sign-in, and back to this page afterwards.
pub async fn pages_need_sign_in(
    State(state): State<AppState>,
    session: Session,
    mut req: Request<Body>,
    next: Next,
) -> Response {
    if req.method() != Method::GET || !is_page(req.uri().path()) {
        return next.run(req).await;
    }
    match app::ssr::check_session(&session, &state.auth).await {
        Ok(Some(signed_in)) => {
            // The page's reads take this answer rather than reading the person again.
            req.extensions_mut().insert(signed_in);
            next.run(req).await
        }
        Ok(None) => {
            let here = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
            Redirect::to(&format!("/signin?next={}", encode_component(here))).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "could not read the session");
            (StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong on our side. Try again.").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_recognised() {
        assert!(is_page("/"));
        assert!(is_page("/company/roles"));
        assert!(is_page("/cores/company:role:sales/edit"));
        assert!(is_page("/ask") && is_page("/threads/4") && is_page("/inbox"));
        assert!(!is_page("/signin"));
        assert!(!is_page("/invite/inv_0123"), "an invite link is opened signed out");
        assert!(is_page("/profile/password"));
        assert!(!is_page("/pkg/engram.js"));
        assert!(!is_page("/companyx"));
    }

    #[test]
    fn next_is_encoded() {
        assert_eq!(encode_component("/company/people?person=3"), "/company/people%3Fperson%3D3");
    }
}
