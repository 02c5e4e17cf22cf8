//! A flash for a browser that has no session yet, kept in a sealed cookie instead of a session row.
//!
//! A refused form (a wrong invite link, the first set-up typed wrong) shows its sentence and the
//! typed text on the page it leads back to. With a session, that goes in the session. Without one,
//! making a session for it would let any cookieless post add a row to the sessions table, so the
//! flash travels in a cookie of its own: sealed by the server's secret key (so nobody else can
//! write one the pages would show), short-lived, and taken, like any flash, by the page that shows
//! it.

use leptos::prelude::*;
use serde_json::{Map, Value};
use std::sync::Arc;

pub const COOKIE: &str = "engram_flash";
/// A browser keeps about 4 KiB a cookie; a flash that would not fit goes in a session after all.
const MAX_SEALED: usize = 3_800;
/// Long enough for the redirect and the page after it.
const MAX_AGE_SECS: u32 = 300;

/// Seals and opens a flash cookie's text: the server's secret key, for its own purpose.
pub trait Seal: Send + Sync {
    fn seal(&self, plain: &str) -> String;
    fn open(&self, sealed: &str) -> Option<String>;
}

/// What the server puts in every request's context.
#[derive(Clone)]
pub struct FlashSeal {
    pub seal: Arc<dyn Seal>,
    /// Whether cookies are sent over https only.
    pub secure: bool,
}

/// What this request's flash cookie holds, opened; empty without one, or with one this server's
/// key did not seal.
fn held(seal: &FlashSeal) -> Map<String, Value> {
    let Some(parts) = use_context::<http::request::Parts>() else { return Map::new() };
    let sealed = parts
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string());
    sealed
        .and_then(|s| seal.seal.open(&s))
        .and_then(|plain| serde_json::from_str::<Map<String, Value>>(&plain).ok())
        .unwrap_or_default()
}

fn set_cookie(seal: &FlashSeal, value: &str, max_age: u32) {
    let Some(response) = use_context::<leptos_axum::ResponseOptions>() else { return };
    let secure = if seal.secure { "; Secure" } else { "" };
    let cookie = format!("{COOKIE}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}");
    if let Ok(v) = http::HeaderValue::from_str(&cookie) {
        response.append_header(http::header::SET_COOKIE, v);
    }
}

/// Keeps `value` under `key` in the flash cookie, beside what this request's cookie held. `false`
/// when there is no seal here or the flash is too large for a cookie.
pub fn keep(key: &str, value: Value) -> bool {
    let Some(seal) = crate::ssr::flash_seal() else { return false };
    let mut all = held(&seal);
    all.insert(key.to_string(), value);
    let sealed = seal.seal.seal(&Value::Object(all).to_string());
    // A sealed value is base64 with a prefix: nothing in it ends a cookie early.
    if sealed.len() > MAX_SEALED || sealed.contains([';', ',', ' ', '"']) {
        return false;
    }
    set_cookie(&seal, &sealed, MAX_AGE_SECS);
    true
}

/// Takes `key` from the flash cookie: the answer tells the browser to forget the cookie, so a
/// reload no longer shows it.
pub fn take(key: &str) -> Option<Value> {
    let seal = crate::ssr::flash_seal()?;
    let mut all = held(&seal);
    let value = all.remove(key)?;
    if all.is_empty() {
        set_cookie(&seal, "", 0);
    } else {
        let sealed = seal.seal.seal(&Value::Object(all).to_string());
        set_cookie(&seal, &sealed, MAX_AGE_SECS);
    }
    Some(value)
}
