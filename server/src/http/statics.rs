//! The site's /pkg files: the wasm, its JS glue and the stylesheet every page loads.
//!
//! cargo-leptos names them by their content's hash (`hash-files`), so a name never changes its
//! content and a browser may keep it for a year without asking again. A name without a hash
//! (a build without hashing) must be revalidated each time, or a new build would go unseen.
//! They are compressed on the way out: the wasm is the largest thing a page loads.

use axum::extract::Request;
use axum::http::header::{self, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::services::ServeDir;

pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub const REVALIDATE: &str = "no-cache";

/// The length of cargo-leptos's hashes: an MD5 in unpadded URL-safe base64.
const HASH_LEN: usize = 22;

/// Whether a file name carries a cargo-leptos content hash: `stem.HASH.ext`.
pub fn is_hashed(file_name: &str) -> bool {
    let mut parts = file_name.rsplit('.');
    let (Some(_ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !stem.is_empty()
        && hash.len() == HASH_LEN
        && hash.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

async fn cache_policy(req: Request, next: Next) -> Response {
    let hashed = req.uri().path().rsplit('/').next().is_some_and(is_hashed);
    let mut res = next.run(req).await;
    if res.status().is_success() || res.status() == axum::http::StatusCode::NOT_MODIFIED {
        let policy = if hashed { IMMUTABLE } else { REVALIDATE };
        res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    res
}

/// Serves `<site_root>/<pkg_dir>`, to be nested at `/<pkg_dir>`.
pub fn pkg_router<S: Clone + Send + Sync + 'static>(site_root: &str, pkg_dir: &str) -> Router<S> {
    let dir = std::path::Path::new(site_root).join(pkg_dir);
    Router::new()
        .fallback_service(ServeDir::new(dir))
        .layer(middleware::from_fn(cache_policy))
        // A middling level: the files are compressed on every request that is not cached, and
        // the wasm is megabytes.
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(4)))
}

/// Serves the files at the top of `<site_root>` (the favicon), and hands every other request to
/// `not_found`, leptos_axum's page for a path nothing answers.
///
/// leptos_axum's own file handler serves a file under a new reactive owner made as a child of
/// whatever owner the thread last ran, and moves that owner's response options into the file's
/// answer. While a page rendered on that thread, a file asked for beside it (the favicon, by
/// another tab) took the page's headers, so the page went out with the policy that allows
/// nothing: no stylesheet, no script, no wasm. Here no file touches any page's response.
pub fn site_files<F>(site_root: &str, not_found: F) -> ServeDir<F> {
    ServeDir::new(site_root)
        .append_index_html_on_directories(false)
        .call_fallback_on_method_not_allowed(true)
        .fallback(not_found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_recognised() {
        assert!(is_hashed("engram.mmtLfMrS2sT1xH7XuIdtRw.wasm"));
        assert!(is_hashed("__wasm_split.a-b_cdefghijklmnopqrst.js"));
        assert!(!is_hashed("engram.wasm"));
        assert!(!is_hashed("engram_bg.wasm"));
        assert!(!is_hashed("mmtLfMrS2sT1xH7XuIdtRw.wasm"));
        assert!(!is_hashed("engram.mmtLfMrS2sT1xH7XuIdt.wasm"));
        assert!(!is_hashed("engram.mmtLfMrS2sT1xH7XuId+w.wasm"));
    }
}
