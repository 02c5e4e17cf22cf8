//! Security headers on every response, and the Content-Security-Policy of the pages.
//!
//! A page's policy names the nonce its inline scripts carry (leptos_axum makes one per render),
//! so no inline script without it runs. The wasm needs 'wasm-unsafe-eval' to be compiled; it and
//! its JS glue come from our own /pkg, hence 'self'. Every other response (JSON, files,
//! redirects) gets a policy that allows nothing, since none of them is a page.

use axum::extract::Request;
use axum::http::header::{self, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The policy of everything that is not a page.
pub const NOT_A_PAGE_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The policy of a page whose inline scripts carry `nonce`.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self'; \
         img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    )
}

/// Called while a page renders: its response gets the policy for this render's nonce.
pub fn set_page_policy() {
    use leptos::prelude::use_context;
    let Some(response) = use_context::<leptos_axum::ResponseOptions>() else {
        tracing::error!("a page rendered without response options; it gets the policy of no page");
        return;
    };
    let Some(nonce) = leptos::nonce::use_nonce() else {
        tracing::error!("a page rendered without a nonce; its scripts will not run");
        return;
    };
    match HeaderValue::from_str(&page_policy(&nonce)) {
        Ok(value) => response.insert_header(header::CONTENT_SECURITY_POLICY, value),
        Err(e) => tracing::error!(error = %e, "a page's policy is not a header value"),
    }
}

/// Adds the headers every response carries; a page's own policy is kept.
pub async fn headers(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.entry(header::CONTENT_SECURITY_POLICY).or_insert(HeaderValue::from_static(NOT_A_PAGE_POLICY));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // For browsers that predate frame-ancestors.
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_policy_allows_no_inline_script_without_the_nonce() {
        let p = page_policy("abc");
        assert!(p.contains("script-src 'self' 'nonce-abc' 'wasm-unsafe-eval'"), "{p}");
        assert!(!p.contains("unsafe-inline") && !p.contains("'unsafe-eval'"), "{p}");
        assert!(p.contains("frame-ancestors 'none'"), "{p}");
    }
}
