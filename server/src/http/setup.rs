//! The first run: until the company exists every page leads to Set up Engram, and after it the
//! setup page leads to sign-in.

use crate::http::guard::is_page;
use crate::http::state::AppState;
use app::paths::SIGN_IN;
use app::setup::SETUP;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

/// The pages an empty database sends to the setup: every page of the app, sign-in and sign-out.
fn leads_to_setup(path: &str) -> bool {
    is_page(path) || path == SIGN_IN || path == "/signout"
}

pub async fn first_run(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let setup_page = path == SETUP;
    if req.method() != Method::GET || !(setup_page || leads_to_setup(path)) {
        return next.run(req).await;
    }
    match state.set_up.is_set_up(&state.org).await {
        Ok(false) if !setup_page => Redirect::to(SETUP).into_response(),
        Ok(true) if setup_page => Redirect::to(SIGN_IN).into_response(),
        Ok(_) => next.run(req).await,
        Err(e) => {
            tracing::error!(error = %e, "could not read whether Engram is set up");
            (StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong on our side. Try again.").into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_but_the_setup_itself_leads_there() {
        for path in ["/", "/signin", "/signout", "/company/people", "/profile/memory", "/ask"] {
            assert!(leads_to_setup(path), "{path}");
        }
        for path in ["/setup", "/pkg/engram.js", "/api/me", "/fn/set_up", "/favicon.svg"] {
            assert!(!leads_to_setup(path), "{path}");
        }
    }
}
