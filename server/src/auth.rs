//! Sign-in and sign-out: the only handlers that start and end sessions.

use crate::guard::encode_component;
use crate::startup::AppState;
use app::auth::load_sign_in::{SignInFlash, SIGN_IN_FLASH_KEY};
use app::ssr::{begin_session, local_path};
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use engine::auth::AuthError;
use serde::Deserialize;
use tower_sessions::Session;

#[derive(Deserialize)]
pub struct SignInForm {
    email: String,
    password: String,
    #[serde(default)]
    next: String,
}

pub async fn sign_in(State(state): State<AppState>, session: Session, Form(form): Form<SignInForm>) -> Response {
    let next = local_path(&form.next, "/");
    let refused = |message: String| async {
        let flash = SignInFlash { email: form.email.trim().to_string(), message };
        if let Err(e) = session.insert(SIGN_IN_FLASH_KEY, flash).await {
            tracing::error!(error = %e, "could not keep the sign-in form");
        }
        Redirect::to(&format!("/signin?next={}", encode_component(&next))).into_response()
    };
    match state.engine.sign_in(&form.email, &form.password).await {
        Ok(person) => match begin_session(&session, &state.engine, &person).await {
            Ok(()) => {
                tracing::info!(person = %person.id, "signed in");
                Redirect::to(&next).into_response()
            }
            Err(e) => {
                tracing::error!(error = %e, "could not start a session");
                refused(AuthError::Internal(e).to_string()).await
            }
        },
        Err(AuthError::Internal(detail)) => {
            tracing::error!(%detail, "sign-in failed inside");
            refused(AuthError::Internal(detail).to_string()).await
        }
        Err(e) => refused(e.to_string()).await,
    }
}

/// Ends the session on the server, not only in the browser.
pub async fn sign_out(session: Session) -> Response {
    if let Err(e) = session.flush().await {
        tracing::error!(error = %e, "could not end a session");
    }
    Redirect::to("/signin").into_response()
}
