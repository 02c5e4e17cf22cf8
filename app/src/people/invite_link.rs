//! The whole invite link an admin copies: this site's origin and the link's path. Engram sends no
//! email, so the link has to be complete as shown.

use http::HeaderMap;

/// The origin the admin's own browser used: the `Origin` a browser sends with every form post,
/// else (a script with a token) the `Host`, over https when a proxy says so.
pub fn site_origin(headers: &HeaderMap) -> String {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(origin) = header("origin") {
        let plain = !origin.chars().any(|c| c.is_whitespace() || c.is_control()) && !origin.ends_with('/');
        if plain && (origin.starts_with("http://") || origin.starts_with("https://")) {
            return origin.to_string();
        }
    }
    let host = header("host").filter(|h| !h.is_empty() && !h.contains(['/', ' ', '\\'])).unwrap_or("localhost");
    let scheme = if header("x-forwarded-proto") == Some("https") { "https" } else { "http" };
    format!("{scheme}://{host}")
}

pub fn invite_link(origin: &str, secret: &str) -> String {
    format!("{origin}{}", engine::auth::invite::invite_path(secret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn the_origin_is_the_browsers_else_the_host() {
        let mut h = HeaderMap::new();
        h.insert("host", HeaderValue::from_static("engram.acme.example"));
        assert_eq!(site_origin(&h), "http://engram.acme.example");
        h.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert_eq!(site_origin(&h), "https://engram.acme.example");
        h.insert("origin", HeaderValue::from_static("https://engram.acme.example:8443"));
        assert_eq!(site_origin(&h), "https://engram.acme.example:8443");
        h.insert("origin", HeaderValue::from_static("null"));
        assert_eq!(site_origin(&h), "https://engram.acme.example");
        assert_eq!(invite_link("http://x.example", "inv_1"), "http://x.example/invite/inv_1");
    }
}
