//! Sign-in and sign-out: the only handlers that start and end sessions.

use crate::http::guard::encode_component;
use crate::http::state::AppState;
use app::auth::load_sign_in::{SignInFlash, SIGN_IN_FLASH_KEY};
use app::ssr::{begin_session, local_path};
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use engine::auth::AuthError;
use engine::error::INTERNAL_MESSAGE;
use engine::UserSafe;
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr};
use tower_sessions::Session;

#[derive(Deserialize)]
pub struct SignInForm {
    email: String,
    password: String,
    #[serde(default)]
    next: String,
}

/// The address sign-in attempts are counted against: the connected peer, or, behind a proxy the
/// settings say to trust, the address that proxy appended to X-Forwarded-For (the last one;
/// earlier ones are whatever the client sent).
fn client_address(peer: SocketAddr, headers: &HeaderMap, trust_forwarded_for: bool) -> IpAddr {
    if trust_forwarded_for {
        let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).next_back();
        if let Some(ip) = forwarded.and_then(|v| v.rsplit(',').next()).and_then(|a| a.trim().parse().ok()) {
            return ip;
        }
    }
    peer.ip()
}

pub async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    session: Session,
    Form(form): Form<SignInForm>,
) -> Response {
    let next = local_path(&form.next, "/");
    let keep_form = |message: String| async {
        let flash = SignInFlash { email: form.email.trim().to_string(), message };
        if let Err(e) = session.insert(SIGN_IN_FLASH_KEY, flash).await {
            tracing::error!(error = %e, "could not keep the sign-in form");
        }
    };
    // A refusal keeps the form in the session for the sign-in page after the redirect; but a
    // session that holds nothing yet (no cookie, or one the server does not know) is not created
    // for it, or every cookieless post would add a row to the sessions table. A browser then gets
    // the sign-in page with the sentence at once; anything else just the redirect.
    let refused = |message: String| async {
        if session.is_empty().await {
            if wants_html(&headers) {
                keep_form(message).await;
                // The page takes the form back out of the session, which is left empty and unsaved.
                return sign_in_page(&state, &session, &next).await;
            }
        } else {
            keep_form(message).await;
        }
        Redirect::to(&format!("/signin?next={}", encode_component(&next))).into_response()
    };
    let client = client_address(peer, &headers, state.trust_forwarded_for);
    match state.auth.sign_in(&form.email, &form.password, client).await {
        Ok(person) => match begin_session(&session, &state.auth, &person).await {
            Ok(()) => {
                tracing::info!(person = %person.id, "signed in");
                Redirect::to(&next).into_response()
            }
            Err(e) => {
                tracing::error!(error = %e, "could not start a session");
                refused(INTERNAL_MESSAGE.to_string()).await
            }
        },
        Err(e @ AuthError::Throttled { retry_after_secs, cause }) => {
            tracing::warn!(%client, ?cause, "sign-in throttled");
            let message = e.to_string();
            let mut response = if wants_html(&headers) {
                // A form post shows the sentence on the sign-in page itself, with the email kept.
                keep_form(message).await;
                sign_in_page(&state, &session, &next).await
            } else {
                ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], message).into_response()
            };
            *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            response
        }
        // A refusal answers with a redirect, which the request's span does not count as one.
        Err(e) => {
            if e.internal_detail().is_none() {
                tracing::info!(reason = %e, "sign-in refused");
            }
            refused(app::ssr::refusal(&e)).await
        }
    }
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/html"))
}

/// The sign-in page as `GET /signin` renders it for this session, for an answer that cannot be
/// a redirect to it.
///
/// The browser shows it at the form's address, /auth/sign-in, which is no page of the app: the
/// hydrated router would find nothing there and the page would fail to hydrate. So a first
/// script (with the page's nonce) moves the address to the sign-in page's before the app starts;
/// a reload then shows the sign-in page rather than posting the form again.
async fn sign_in_page(state: &AppState, session: &Session, next: &str) -> Response {
    let uri = format!("/signin?next={}", encode_component(next));
    let mut request = match Request::get(&uri).body(Body::empty()) {
        Ok(r) => r,
        Err(e) => return page_failed(e.to_string()),
    };
    request.extensions_mut().insert(session.clone());
    let options = state.leptos_options.clone();
    let render = leptos_axum::render_app_async_with_context(crate::http::state::page_context(state), move || {
        crate::http::state::page_shell(options.clone())
    });
    let (mut parts, body) = render(request).await.into_parts();
    let html = match axum::body::to_bytes(body, usize::MAX).await.map(|b| String::from_utf8(b.to_vec())) {
        Ok(Ok(html)) => html,
        Ok(Err(e)) => return page_failed(e.to_string()),
        Err(e) => return page_failed(e.to_string()),
    };
    let policy = parts.headers.get(header::CONTENT_SECURITY_POLICY).and_then(|v| v.to_str().ok()).unwrap_or("");
    let Some(nonce) = policy.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()) else {
        return page_failed("the sign-in page has no nonce".to_string());
    };
    // `uri` is percent-encoded, so it cannot end the script early.
    let script = format!("<script nonce=\"{nonce}\">history.replaceState(null, \"\", \"{uri}\");</script>");
    let html = html.replacen("<head>", &format!("<head>{script}"), 1);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(html))
}

fn page_failed(detail: String) -> Response {
    tracing::error!(%detail, "could not render the sign-in page");
    (StatusCode::INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE).into_response()
}

/// Ends the session on the server, not only in the browser.
pub async fn sign_out(session: Session) -> Response {
    if let Err(e) = session.flush().await {
        tracing::error!(error = %e, "could not end a session");
    }
    Redirect::to("/signin").into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::ssr::is_local_path;
    use rand::{Rng, SeedableRng};

    /// What a browser does to a `Location` before it resolves it: tabs and newlines go, and
    /// (for http) `\` is `/`; and what a proxy that decodes once would make of it.
    fn as_browsers_and_proxies_read(value: &str) -> [String; 3] {
        let browser: String = value.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
        let browser = browser.replace('\\', "/");
        let bytes = value.as_bytes();
        let mut decoded = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let escape =
                bytes.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match (bytes[i], escape) {
                (b'%', Some(b)) => {
                    decoded.push(b);
                    i += 3;
                }
                (b, _) => {
                    decoded.push(b);
                    i += 1;
                }
            }
        }
        [value.to_string(), browser, String::from_utf8_lossy(&decoded).into_owned()]
    }

    /// Any `next` that sign-in accepts, resolved against this server's address as it is, as a
    /// browser reads it, or decoded once more, stays on this server.
    #[test]
    fn every_accepted_next_keeps_the_host() {
        const PIECES: &[&str] = &[
            "/",
            "//",
            "\\",
            ".",
            "..",
            "%",
            "2F",
            "2f",
            "5C",
            "5c",
            "09",
            "0A",
            "0d",
            "25",
            "2e",
            "20",
            "%2F",
            "%5C",
            "%09",
            "%25",
            "%2e",
            "\t",
            "\n",
            "\r",
            " ",
            "evil.example",
            "a",
            "x",
            ":",
            "@",
            "?",
            "#",
            "=",
            "&",
            "http:",
            "https:",
            "javascript:",
            "\u{ff0f}",
            "\u{3002}",
            "\u{2215}",
            "\u{0}",
            "\u{7f}",
            "%C3%A9",
        ];
        let base = reqwest::Url::parse("http://engram.local/").unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(34);
        let mut accepted = 0;
        for _ in 0..50_000 {
            // Most start as a path does, so that the rest of the value decides.
            let mut value = if rng.gen_bool(0.8) { "/".to_string() } else { String::new() };
            for _ in 0..rng.gen_range(0..8) {
                value.push_str(PIECES[rng.gen_range(0..PIECES.len())]);
            }
            if !is_local_path(&value) {
                assert_eq!(local_path(&value, "/"), "/");
                continue;
            }
            accepted += 1;
            assert!(axum::http::HeaderValue::from_str(&value).is_ok(), "{value:?} is a valid Location");
            for read in as_browsers_and_proxies_read(&value) {
                let url = base.join(&read).unwrap_or_else(|e| panic!("{value:?} read as {read:?}: {e}"));
                assert_eq!(url.host_str(), Some("engram.local"), "{value:?} read as {read:?} left: {url}");
                assert_eq!(url.scheme(), "http", "{value:?} read as {read:?}");
            }
        }
        assert!(accepted > 1_000, "the pieces make enough accepted paths to say something: {accepted}");
    }

    #[test]
    fn the_client_address_is_the_peer_unless_a_trusted_proxy_names_it() {
        let peer: SocketAddr = "10.0.0.2:40000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", HeaderValue::from_static("203.0.113.9, 198.51.100.4"));
        assert_eq!(client_address(peer, &headers, false), peer.ip(), "a client may send any X-Forwarded-For");
        let appended: IpAddr = "198.51.100.4".parse().unwrap();
        assert_eq!(client_address(peer, &headers, true), appended, "the proxy appends the address it saw");
        assert_eq!(client_address(peer, &HeaderMap::new(), true), peer.ip());
    }
}
