//! The HTTP layer itself: static files on a kept-alive connection, their caching and
//! compression, and the security headers every response carries.

use crate::helpers::*;
use reqwest::StatusCode;
use std::io::Read;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An MD5 in unpadded URL-safe base64, as cargo-leptos puts in hashed names.
const HASH: &str = "mmtLfMrS2sT1xH7XuIdtRw";

fn css() -> Vec<u8> {
    "main { margin: 0 auto; max-width: 60rem; }\n".repeat(100).into_bytes()
}

/// Something shaped like a wasm module: not random, so it compresses, as real ones do.
fn wasm() -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.extend((0..300_000u32).map(|i| ((i % 97) as u8).wrapping_mul((i / 4096) as u8 | 1)));
    bytes
}

async fn site_app() -> TestApp {
    spawn_app_with_site(&[
        ("pkg/engram.css".to_string(), css()),
        (format!("pkg/engram.{HASH}.css"), css()),
        (format!("pkg/engram.{HASH}.wasm"), wasm()),
        ("favicon.svg".to_string(), b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>".to_vec()),
    ])
    .await
}

/// One GET on an open connection; returns the status and the body.
async fn get_on(conn: &mut TcpStream, host: &str, path: &str) -> (u16, Vec<u8>) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n");
    conn.write_all(request.as_bytes()).await.expect("send a request");
    let mut got = Vec::new();
    let head_end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 8192];
        let n = conn.read(&mut chunk).await.expect("read the answer");
        assert!(n > 0, "the connection closed mid-answer");
        got.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&got[..head_end]).to_lowercase();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("a content-length");
    let mut body = got[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 8192];
        let n = conn.read(&mut chunk).await.expect("read the body");
        assert!(n > 0, "the connection closed mid-body");
        body.extend_from_slice(&chunk[..n]);
    }
    (status, body)
}

/// The server runs in this process, so its end of a connection is among this process's sockets:
/// whether that end has TCP_NODELAY set. Each socket is read through a copy of its descriptor
/// (pidfd_getfd on this process), so no code here is unsafe: had a descriptor closed since it was
/// listed, the copy fails or is of another socket, which the addresses rule out.
#[cfg(target_os = "linux")]
fn server_end_nodelay(server: std::net::SocketAddr, client: std::net::SocketAddr) -> Option<bool> {
    use rustix::process::{getpid, pidfd_getfd, pidfd_open, PidfdFlags, PidfdGetfdFlags};
    let this = pidfd_open(getpid(), PidfdFlags::empty()).ok()?;
    for entry in std::fs::read_dir("/proc/self/fd").ok()?.flatten() {
        let is_socket = std::fs::read_link(entry.path()).is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        if !is_socket {
            continue;
        }
        let Ok(fd) = pidfd_getfd(&this, fd, PidfdGetfdFlags::empty()) else { continue };
        let sock = socket2::SockRef::from(&fd);
        let (Ok(local), Ok(peer)) = (sock.local_addr(), sock.peer_addr()) else { continue };
        if local.as_socket() == Some(server) && peer.as_socket() == Some(client) {
            return sock.tcp_nodelay().ok();
        }
    }
    None
}

/// Without TCP_NODELAY, a file's body written after its head waits for the client's delayed ACK
/// of the head (some 40 ms) whenever the head is still unacknowledged, on every kept-alive
/// connection. How often that happens depends on the kernels, so the option itself is checked.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_connections_send_without_waiting_for_acks() {
    let app = site_app().await;
    let host = app.base.trim_start_matches("http://").to_string();
    let mut conn = TcpStream::connect(&host).await.expect("connect");
    for _ in 0..3 {
        let (status, body) = get_on(&mut conn, &host, "/pkg/engram.css").await;
        assert_eq!(status, 200);
        assert_eq!(body, css());
    }
    let (client, server) = (conn.local_addr().unwrap(), conn.peer_addr().unwrap());
    let nodelay = server_end_nodelay(server, client).expect("the server's end of the connection");
    assert!(nodelay, "the server's end of a connection has TCP_NODELAY set");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashed_files_are_cached_for_good_and_others_revalidated() {
    let app = site_app().await;
    let c = client();
    for path in [format!("/pkg/engram.{HASH}.css"), format!("/pkg/engram.{HASH}.wasm")] {
        let r = c.get(app.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.headers()["cache-control"], "public, max-age=31536000, immutable", "{path}");
    }
    // A name without a hash may get new content under the same name.
    let r = c.get(app.url("/pkg/engram.css")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert!(r.headers().contains_key("last-modified"), "a revalidation can answer 304");
    // A missing file is not cached.
    let r = c.get(app.url(&format!("/pkg/engram.{HASH}.js"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(!r.headers().contains_key("cache-control"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pkg_files_are_compressed_for_clients_that_accept_it() {
    let app = site_app().await;
    let c = client();
    let path = format!("/pkg/engram.{HASH}.wasm");
    for encoding in ["gzip", "br"] {
        let r = c.get(app.url(&path)).header("accept-encoding", encoding).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["content-encoding"], encoding);
        assert_eq!(r.headers()["content-type"], "application/wasm");
        assert!(r.headers()["vary"].to_str().unwrap().to_lowercase().contains("accept-encoding"));
        let sent = r.bytes().await.unwrap();
        assert!(sent.len() < wasm().len() / 2, "{encoding}: {} bytes of {}", sent.len(), wasm().len());
        let mut plain = Vec::new();
        match encoding {
            "gzip" => flate2::read::GzDecoder::new(&sent[..]).read_to_end(&mut plain).unwrap(),
            _ => brotli::Decompressor::new(&sent[..], 4096).read_to_end(&mut plain).unwrap(),
        };
        assert!(plain == wasm(), "{encoding}: the body decompresses to the file");
    }
    // A client that asks for nothing gets the file as it is.
    let r = c.get(app.url(&path)).send().await.unwrap();
    assert!(!r.headers().contains_key("content-encoding"));
    assert!(r.bytes().await.unwrap() == wasm());
}

fn nonce_of(policy: &str) -> String {
    let start = policy.find("'nonce-").expect("a nonce in the policy") + "'nonce-".len();
    policy[start..].split('\'').next().unwrap().to_string()
}

fn assert_common_headers(r: &reqwest::Response, what: &str) {
    let h = r.headers();
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    assert_eq!(h["referrer-policy"], "same-origin", "{what}");
    let policy = h["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("frame-ancestors 'none'"), "{what}: {policy}");
    assert!(!policy.contains("unsafe-inline"), "{what}: {policy}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_a_strict_policy_whose_nonce_their_scripts_carry() {
    let app = spawn_app().await;
    let c = client();
    let mut nonces = Vec::new();
    for _ in 0..2 {
        let r = c.get(app.url("/signin")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_common_headers(&r, "a page");
        let policy = r.headers()["content-security-policy"].to_str().unwrap().to_string();
        assert!(policy.contains("default-src 'self'"), "{policy}");
        assert!(policy.contains("'wasm-unsafe-eval'"), "{policy}");
        let nonce = nonce_of(&policy);
        assert!(nonce.len() >= 16, "{nonce}");
        let html = r.text().await.unwrap();
        let scripts = html.matches("<script").count();
        assert!(scripts >= 1, "the page hydrates through an inline script: {html}");
        assert_eq!(html.matches(&format!("<script type=\"module\" nonce=\"{nonce}\"")).count(), 1, "{html}");
        assert_eq!(
            scripts,
            html.matches(&format!("nonce=\"{nonce}\">")).count(),
            "every inline script carries the nonce: {html}"
        );
        nonces.push(nonce);
    }
    assert_ne!(nonces[0], nonces[1], "a nonce is used once");

    // A signed-in page, rendered with its data.
    let c = app.sign_in("ada").await;
    let r = c.get(app.url("/company/roles")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_common_headers(&r, "a signed-in page");
    let nonce = nonce_of(r.headers()["content-security-policy"].to_str().unwrap());
    let html = r.text().await.unwrap();
    assert_eq!(html.matches("<script").count(), html.matches(&format!("nonce=\"{nonce}\">")).count(), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_other_answer_carries_the_headers_and_a_policy_that_allows_nothing() {
    let app = site_app().await;
    let c = client();
    let answers = [
        ("JSON", c.get(app.url("/api/me")).send().await.unwrap()),
        ("a redirect", c.get(app.url("/company/roles")).send().await.unwrap()),
        ("a file", c.get(app.url("/favicon.svg")).send().await.unwrap()),
        ("a /pkg file", c.get(app.url("/pkg/engram.css")).send().await.unwrap()),
    ];
    for (what, r) in &answers {
        assert_common_headers(r, what);
        let policy = r.headers()["content-security-policy"].to_str().unwrap();
        assert!(policy.starts_with("default-src 'none'"), "{what}: {policy}");
    }
}

/// A file served while a page renders never takes the page's headers: the page keeps its own
/// policy, whose nonce its scripts carry, and the file keeps the policy that allows nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_keeps_its_policy_while_files_are_served_beside_it() {
    let app = site_app().await;
    let c = app.sign_in("ada").await;
    let files = client();
    for round in 0..200 {
        let page = c.get(app.url("/company/roles")).send();
        let icon = || files.get(app.url("/favicon.svg")).send();
        let (page, a, b, d) = tokio::join!(page, icon(), icon(), icon());
        let icons = [a, b, d];
        let page = page.unwrap();
        assert_eq!(page.status(), StatusCode::OK);
        let policy = page.headers().get("content-security-policy").map(|v| v.to_str().unwrap().to_string());
        assert!(
            policy.as_deref().is_some_and(|p| p.starts_with("default-src 'self'")),
            "round {round}: the page went out with {policy:?}"
        );
        for icon in icons {
            let icon = icon.unwrap();
            assert_eq!(icon.status(), StatusCode::OK);
            let policy = icon.headers()["content-security-policy"].to_str().unwrap();
            assert!(policy.starts_with("default-src 'none'"), "round {round}: the file went out with {policy}");
        }
    }
    // A path that is neither a file nor a page is still the app's own page, saying so.
    let r = c.get(app.url("/no/such/page")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let policy = r.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(policy.starts_with("default-src 'self'"), "{policy}");
    let html = r.text().await.unwrap();
    assert!(html.contains("<main"), "{html}");
}
