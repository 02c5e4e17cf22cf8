//! Every request has an id, sent back in `X-Request-Id` and written on its log lines.

use crate::helpers::{client, spawn_app};
use demo::company::demo_email;
use reqwest::StatusCode;

fn capture_logs() {
    crate::global_tracing::install();
}

/// The captured lines that mention `needle`.
fn lines_with(needle: &str) -> Vec<String> {
    let log = crate::global_tracing::LOG.lock().unwrap_or_else(|e| e.into_inner());
    String::from_utf8_lossy(&log).lines().filter(|l| l.contains(needle)).map(str::to_owned).collect()
}

fn request_id(r: &reqwest::Response) -> String {
    r.headers().get("x-request-id").expect("an X-Request-Id header").to_str().expect("ASCII").to_string()
}

#[tokio::test]
async fn every_response_carries_a_request_id_of_its_own() {
    let app = spawn_app().await;
    let c = client();
    let mut seen = Vec::new();
    for path in ["/api/me", "/sign-in", "/no-such-page", "/api/no-such-thing"] {
        let r = c.get(app.url(path)).send().await.expect("request");
        let id = request_id(&r);
        assert_eq!(id.len(), 16, "{path}: {id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{path}: {id}");
        seen.push(id);
    }
    let signed_in = app.sign_in("alice").await;
    let r = signed_in.get(app.url("/api/me")).send().await.expect("request");
    assert_eq!(r.status(), StatusCode::OK);
    seen.push(request_id(&r));
    let mut distinct = seen.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), seen.len(), "{seen:?}");
}

#[tokio::test]
async fn a_safe_supplied_id_is_kept_and_an_unsafe_one_replaced() {
    let app = spawn_app().await;
    let c = client();
    let kept = c.get(app.url("/api/me")).header("X-Request-Id", "proxy-42_a.b").send().await.expect("request");
    assert_eq!(request_id(&kept), "proxy-42_a.b");

    for unsafe_id in ["a".repeat(65), "two words".to_string(), "tab\there".to_string(), "id=\"x\"".to_string()] {
        let r = c.get(app.url("/api/me")).header("X-Request-Id", unsafe_id.as_str()).send().await.expect("request");
        let id = request_id(&r);
        assert_ne!(id, unsafe_id);
        assert_eq!(id.len(), 16, "{unsafe_id:?} was replaced by {id}");
    }
}

#[tokio::test]
async fn a_refusal_is_logged_with_the_request_id() {
    capture_logs();
    let app = spawn_app().await;
    let c = client();
    let id = "refusal-log-test-7f3a";
    let r = c.get(app.url("/api/me")).header("X-Request-Id", id).send().await.expect("request");
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(request_id(&r), id);

    let lines = lines_with(id);
    assert!(
        lines.iter().any(|l| l.contains("refused") && l.contains("status=401") && l.contains("path=/api/me")),
        "no refusal line with the id: {lines:?}"
    );
}

#[tokio::test]
async fn a_job_run_logs_in_a_span_with_its_name_and_run_id() {
    capture_logs();
    let app = spawn_app().await;
    // Fifteen days on, at 02:30 in the demo company's zone (Kolkata), the forgetting job is due.
    let day = engine::Clock::now(app.clock.as_ref()).date_naive() + chrono::Duration::days(15);
    app.clock.set(day.and_hms_opt(21, 0, 0).expect("a time").and_utc());
    server::jobs::run_due_jobs(&app.memory).await;

    let runs: Vec<String> = lines_with("the forgetting job ran")
        .iter()
        .filter_map(|l| l.split("job{name=\"forgetting\" run=").nth(1))
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect())
        .collect();
    assert!(runs.iter().any(|run| run.len() == 16), "no forgetting run in a job span: {runs:?}");
}

#[tokio::test]
async fn a_refused_sign_in_is_logged_with_the_request_id() {
    capture_logs();
    let app = spawn_app().await;
    let id = "sign-in-refusal-test-9c1e";
    let r = client()
        .post(app.url("/auth/sign-in"))
        .header("X-Request-Id", id)
        .form(&[("email", demo_email("alice").as_str()), ("password", "not her password"), ("next", "/")])
        .send()
        .await
        .expect("sign-in request");
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(request_id(&r), id);

    let lines = lines_with(id);
    assert!(lines.iter().any(|l| l.contains("sign-in refused")), "no refusal line with the id: {lines:?}");
}
