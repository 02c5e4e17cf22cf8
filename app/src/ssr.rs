//! What every server function shares: the services, the signed-in person, flash messages across a
//! redirect, and turning engine errors into sentences (the one path to a page notice).

use crate::flash::{notice_key, Notice};
use engine::cores::service::CoreService;
use engine::error::INTERNAL_MESSAGE;
use engine::org::service::OrgService;
use engine::org::sign_in::AuthService;
use engine::org::{Person, PersonId};
use engine::UserSafe;
use leptos::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

pub const PERSON_KEY: &str = "person_id";
pub const SIGNED_IN_AT_KEY: &str = "signed_in_at";
/// The person's session generation at sign-in: a password change or an admin's reset raises it,
/// and a session under an older one is over. A session from before generations counts as 0.
pub const GENERATION_KEY: &str = "session_generation";
/// However active a session is, it ends a week after sign-in.
pub const ABSOLUTE_TIMEOUT_SECS: i64 = 7 * 24 * 3600;
/// When the session's idle expiry was last moved on (seconds since the epoch).
pub const EXTENDED_AT_KEY: &str = "extended_at";
/// A session's idle expiry (8 hours) is moved on, which writes the session, at most this often, so
/// a page view writes nothing: each had written its session row before, 500 writes a second at 500
/// page views. A session idle for its limit less these 5 minutes may end.
pub const EXTEND_EVERY_SECS: i64 = 5 * 60;
pub const NOT_SIGNED_IN: &str = "Sign in to continue";

/// The services a page's server functions use, built once for the server and shared by every
/// request as one context: a render then clones one pointer, where providing each service cloned
/// every store it holds (a fifth of a small page's time went to those clones and their drops).
pub struct PageServices {
    pub cores: Arc<CoreService>,
    pub org: Arc<OrgService>,
    pub auth: Arc<AuthService>,
    pub bots: Arc<engine::persona::service::Bots>,
    pub memory: Arc<engine::cards::service::PersonMemory>,
    pub lists: Arc<engine::runs::lists::ReferenceLists>,
    pub runs: Arc<engine::runs::service::Runs>,
    pub lessons: Arc<engine::lessons::service::Lessons>,
    pub nightly: Arc<engine::learning::nightly::Nightly>,
    pub drafter: Arc<engine::learning::draft::CoreDrafter>,
    pub erasures: Arc<engine::erasure::service::Erasures>,
    pub operations: Arc<engine::operations::Operations>,
    pub schedules: Arc<engine::runs::schedules::Schedules>,
    pub agent_tokens: Arc<engine::runs::agent_tokens::AgentTokens>,
    pub flash_seal: crate::flash_cookie::FlashSeal,
}

/// One service from the request's [`PageServices`], or an internal error naming what is missing.
fn service<T>(pick: impl FnOnce(&PageServices) -> &Arc<T>, what: &str) -> Result<Arc<T>, ServerFnError> {
    use_context::<Arc<PageServices>>()
        .map(|services| pick(&services).clone())
        .ok_or_else(|| internal(format!("{what} is not in the request context")))
}

pub fn cores() -> Result<Arc<CoreService>, ServerFnError> {
    service(|s| &s.cores, "the core service")
}

pub fn org() -> Result<Arc<OrgService>, ServerFnError> {
    service(|s| &s.org, "the organisation service")
}

pub fn auth() -> Result<Arc<AuthService>, ServerFnError> {
    service(|s| &s.auth, "the sign-in service")
}

pub fn bots() -> Result<Arc<engine::persona::service::Bots>, ServerFnError> {
    service(|s| &s.bots, "the bots' side")
}

pub fn memory() -> Result<Arc<engine::cards::service::PersonMemory>, ServerFnError> {
    service(|s| &s.memory, "person memory")
}

pub fn runs() -> Result<Arc<engine::runs::service::Runs>, ServerFnError> {
    service(|s| &s.runs, "the runs service")
}

pub fn nightly() -> Result<Arc<engine::learning::nightly::Nightly>, ServerFnError> {
    service(|s| &s.nightly, "the nightly job")
}

pub fn operations() -> Result<Arc<engine::operations::Operations>, ServerFnError> {
    service(|s| &s.operations, "Operations")
}

pub fn drafter() -> Result<Arc<engine::learning::draft::CoreDrafter>, ServerFnError> {
    service(|s| &s.drafter, "Draft from what exists")
}

pub fn lessons() -> Result<Arc<engine::lessons::service::Lessons>, ServerFnError> {
    service(|s| &s.lessons, "lessons")
}

pub fn lists() -> Result<Arc<engine::runs::lists::ReferenceLists>, ServerFnError> {
    service(|s| &s.lists, "the who's-who lists")
}

pub fn erasures() -> Result<Arc<engine::erasure::service::Erasures>, ServerFnError> {
    service(|s| &s.erasures, "erasing a third party")
}

pub fn schedules() -> Result<Arc<engine::runs::schedules::Schedules>, ServerFnError> {
    service(|s| &s.schedules, "agents' schedules")
}

pub fn agent_tokens() -> Result<Arc<engine::runs::agent_tokens::AgentTokens>, ServerFnError> {
    service(|s| &s.agent_tokens, "agents' tokens")
}

/// The seal of the flash cookie, when this server has one.
pub fn flash_seal() -> Option<crate::flash_cookie::FlashSeal> {
    use_context::<Arc<PageServices>>().map(|services| services.flash_seal.clone())
}

pub async fn session() -> Result<Session, ServerFnError> {
    leptos_axum::extract::<Session>().await.map_err(|e| internal(format!("no session layer: {e}")))
}

/// Who the page guard found signed in, kept in the request for the rest of it: the page's own
/// reads (the top bar, its notice, each of its server functions) then take the guard's answer
/// instead of reading the person again, which a page did four times.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub person: Person,
    /// Whether a reset notice waited for them when the guard read them: the top bar reads the
    /// notices only then.
    pub reset_notice_waiting: bool,
}

/// The person a session belongs to, ending the session past its absolute timeout. Within a page's
/// request, the guard's answer ([`SignedIn`]), decided at the start of the same request.
pub async fn person_in_session(session: &Session, auth: &AuthService) -> Result<Option<Person>, String> {
    if let Some(signed_in) = guard_answer() {
        return Ok(Some(signed_in.person));
    }
    Ok(check_session(session, auth).await?.map(|s| s.person))
}

/// What the page guard found at the start of this request, if it was a page's.
pub fn guard_answer() -> Option<SignedIn> {
    use_context::<http::request::Parts>().and_then(|parts| parts.extensions.get::<SignedIn>().cloned())
}

/// The person a session belongs to, read from the store and checked: the session ends past its
/// absolute timeout, and for someone who left or whose sessions were ended since. What the page
/// guard asks, once a request.
pub async fn check_session(session: &Session, auth: &AuthService) -> Result<Option<SignedIn>, String> {
    let id: Option<i64> = session.get(PERSON_KEY).await.map_err(|e| e.to_string())?;
    let at: Option<i64> = session.get(SIGNED_IN_AT_KEY).await.map_err(|e| e.to_string())?;
    let Some(id) = id else { return Ok(None) };
    let fresh = at.is_some_and(|at| auth.now().timestamp() - at < ABSOLUTE_TIMEOUT_SECS);
    if !fresh {
        session.flush().await.map_err(|e| e.to_string())?;
        return Ok(None);
    }
    let generation: i64 = session.get(GENERATION_KEY).await.map_err(|e| e.to_string())?.unwrap_or(0);
    match auth.person_with_generation(PersonId(id)).await.map_err(|e| e.to_string())? {
        // Someone who left is signed out of every session they still had, and so is a session
        // from before their password changed.
        Some(s) if s.person.left_at.is_some() || generation < s.generation => {
            session.flush().await.map_err(|e| e.to_string())?;
            Ok(None)
        }
        Some(s) => {
            let now = auth.now().timestamp();
            let extended: Option<i64> = session.get(EXTENDED_AT_KEY).await.map_err(|e| e.to_string())?;
            if extended.is_none_or(|at| now - at >= EXTEND_EVERY_SECS || at > now) {
                session.insert(EXTENDED_AT_KEY, now).await.map_err(|e| e.to_string())?;
            }
            Ok(Some(SignedIn { person: s.person, reset_notice_waiting: s.reset_notice_waiting }))
        }
        None => Ok(None),
    }
}

/// Starts a signed-in session under a new id, so an id seen before sign-in is worthless after.
pub async fn begin_session(session: &Session, auth: &AuthService, person: &Person) -> Result<(), String> {
    session.cycle_id().await.map_err(|e| e.to_string())?;
    session.insert(PERSON_KEY, person.id.0).await.map_err(|e| e.to_string())?;
    session.insert(SIGNED_IN_AT_KEY, auth.now().timestamp()).await.map_err(|e| e.to_string())?;
    let generation = match auth.person_with_generation(person.id).await.map_err(|e| e.to_string())? {
        Some(s) => s.generation,
        None => return Err(format!("person {} is gone", person.id)),
    };
    session.insert(GENERATION_KEY, generation).await.map_err(|e| e.to_string())?;
    session.insert(EXTENDED_AT_KEY, auth.now().timestamp()).await.map_err(|e| e.to_string())?;
    Ok(())
}

pub async fn signed_in() -> Result<Person, ServerFnError> {
    let session = session().await?;
    match person_in_session(&session, &*auth()?).await {
        Ok(Some(person)) => Ok(person),
        Ok(None) => Err(ServerFnError::new(NOT_SIGNED_IN)),
        Err(e) => Err(internal(e)),
    }
}

/// Keeps a flash for the page a redirect leads to: in the session, or, for a browser without one,
/// in a sealed cookie, so that no cookieless post ever creates a session row.
pub async fn set_flash<T: Serialize>(key: &str, value: &T) -> Result<(), ServerFnError> {
    let session = session().await?;
    if session.is_empty().await {
        let value = serde_json::to_value(value).map_err(internal)?;
        if crate::flash_cookie::keep(key, value) {
            return Ok(());
        }
    }
    session.insert(key, value).await.map_err(internal)
}

/// Reads a flash once: a reload of the page no longer shows it. Only a flash that is there is
/// removed: a removal writes the session, and most pages have none to take.
pub async fn take_flash<T: DeserializeOwned>(key: &str) -> Result<Option<T>, ServerFnError> {
    let session = session().await?;
    if session.get_value(key).await.map_err(internal)?.is_some() {
        if let Some(value) = session.remove(key).await.map_err(internal)? {
            return Ok(Some(value));
        }
    }
    Ok(crate::flash_cookie::take(key).and_then(|v| serde_json::from_value(v).ok()))
}

/// Logs what went wrong inside and gives the person a plain sentence instead; for failures that
/// are not the engine's (the session layer, the request context).
pub fn internal(detail: impl std::fmt::Display) -> ServerFnError {
    tracing::error!(%detail, "internal error in a server function");
    ServerFnError::new(INTERNAL_MESSAGE)
}

/// An engine error as the sentence a page shows; what went wrong inside is logged here, once,
/// and never shown.
pub fn refusal(e: &impl UserSafe) -> String {
    if let Some(detail) = e.internal_detail() {
        tracing::error!(%detail, code = e.code(), "internal error in a server function");
    }
    e.user_message()
}

/// An engine error as a server function's error: `.map_err(refused)?`.
pub fn refused(e: impl UserSafe) -> ServerFnError {
    ServerFnError::new(refusal(&e))
}

/// The usual ending of a form post: the outcome goes to the notice of the page at `to`, and the
/// browser back to `to`. A query in `to` only says what the page opens, so the notice is the
/// page's own.
pub async fn notice_back(to: &str, notice: Notice) -> Result<(), ServerFnError> {
    let page = to.split('?').next().unwrap_or(to);
    set_flash(&notice_key(page), &notice).await?;
    go_to(to);
    Ok(())
}

/// The page answers 404 (the page itself still says why in words).
pub fn not_found() {
    if let Some(r) = use_context::<leptos_axum::ResponseOptions>() {
        r.set_status(http::StatusCode::NOT_FOUND);
    }
}

/// The flash key for a refused correction of one memory line.
pub fn memory_draft_key(id: i64) -> String {
    format!("memory-draft:{id}")
}

/// Sends a plain form post (or a fetch) on to the page that should show the outcome.
pub fn go_to(path: &str) {
    leptos_axum::redirect(path);
}

/// A redirect target from a form must stay on this site; anything else leads to `fallback`.
pub fn local_path(path: &str, fallback: &str) -> String {
    if is_local_path(path) {
        path.to_string()
    } else {
        fallback.to_string()
    }
}

/// Whether `path` can only ever be read as a path of this server, by a browser and by anything
/// between it and us. Browsers drop tabs and newlines from a URL and read `\` as `/`, so
/// `/<TAB>/evil.example` is `//evil.example`, another site; a proxy or a later redirect may decode
/// `%2F` or `%5C` into one of those. So: one leading `/`, then only visible ASCII (no spaces, no
/// control characters, nothing a lookalike such as the fullwidth solidus could hide in), no `\`,
/// no `//` and no `.` or `..` segment anywhere, and no percent-escape that decodes to any of those
/// or to another `%` (a second decoding).
pub fn is_local_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    if bytes.first() != Some(&b'/') || !bytes.iter().all(|b| b.is_ascii_graphic()) {
        return false;
    }
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| (b as char).to_digit(16);
            let (Some(hi), Some(lo)) = (bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b)))
            else {
                return false;
            };
            let b = (hi * 16 + lo) as u8;
            if b.is_ascii_control() || matches!(b, b'/' | b'\\' | b'%' | b'.') {
                return false;
            }
            decoded.push(b);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    if decoded.contains(&b'\\') || decoded.windows(2).any(|w| w == b"//") {
        return false;
    }
    let route = decoded.split(|b| matches!(b, b'?' | b'#')).next().unwrap_or_default();
    !route.split(|b| *b == b'/').any(|segment| segment == b"." || segment == b"..")
}

/// A role picked from a list: empty means none.
pub fn role_choice(role: &str) -> Result<Option<engine::org::RoleId>, ServerFnError> {
    match role.trim() {
        "" => Ok(None),
        r => r
            .parse()
            .map(|id| Some(engine::org::RoleId(id)))
            .map_err(|_| ServerFnError::new("Choose a role from the list")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_this_site() {
        for inside in [
            "/",
            "/company/roles",
            "/company/roles/sales",
            "/signin?next=/company/roles",
            "/company/improve?card=3#top",
            "/people/Jos%C3%A9",
            "/ask?q=a%20b",
            "/v1.2/notes",
            "/a/...",
        ] {
            assert_eq!(local_path(inside, "/"), inside, "{inside:?} is a path of this server");
        }
        let outside = [
            "",
            "x",
            "company/roles",
            "//evil.example/",
            "///evil.example",
            "https://evil.example/",
            "http:/evil.example",
            "javascript:alert(1)",
            // What browsers drop or turn into `/`.
            "/\tevil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/\r\n/evil.example",
            "\t//evil.example",
            "/\u{0}/evil.example",
            "/\u{7f}/evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "\\/evil.example",
            "/a\\b",
            " /x",
            "/x ",
            "/x y",
            "/\u{a0}/evil.example",
            // Lookalikes of `/` and `.`.
            "/\u{ff0f}evil.example",
            "\u{ff0f}\u{ff0f}evil.example",
            "/\u{2215}evil.example",
            "/\u{3002}evil.example",
            // Percent-escapes that decode into a slash, a backslash, a control or a second escape.
            "/%2F%2Fevil.example",
            "/%2f/evil.example",
            "/%5Cevil.example",
            "/%5cevil.example",
            "/%09/evil.example",
            "/%0a/evil.example",
            "/%0D%0A/evil.example",
            "/%00",
            "/%7F",
            "/%252F%252Fevil.example",
            "/%2e%2e/evil.example",
            "/%",
            "/%2",
            "/%zz",
            // Doubled slashes and dot segments anywhere.
            "/.//evil.example",
            "/./evil.example",
            "/../evil.example",
            "/company/..",
            "/company/.",
            "/company//roles",
            "/signin?next=//evil.example",
        ];
        for path in outside {
            assert_eq!(local_path(path, "/"), "/", "{path:?} must fall back");
        }
    }

    #[test]
    fn a_role_choice_is_an_id_or_none() {
        assert_eq!(role_choice("").unwrap(), None);
        assert_eq!(role_choice(" 7 ").unwrap(), Some(engine::org::RoleId(7)));
        assert!(role_choice("sales").is_err());
    }
}
