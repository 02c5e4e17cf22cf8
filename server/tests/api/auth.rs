use crate::helpers::*;
use demo::company::{demo_email, DEMO_PASSWORD};
use reqwest::StatusCode;
use serde_json::json;

fn session_cookie(r: &reqwest::Response) -> Option<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("engram_session="))
        .map(|v| v.split(';').next().unwrap_or("").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_email_and_wrong_password_get_the_same_message() {
    let app = spawn_app().await;
    for (email, password) in [("nobody@acme.example", "engram-demo"), (demo_email("ada").as_str(), "wrong")] {
        // Without a session yet, the browser gets the sign-in page itself.
        let c = client();
        let r = app.form_post(&c, "/auth/sign-in", &[("email", email), ("password", password), ("next", "/")]).await;
        assert_eq!(r.status(), StatusCode::OK);
        let html = plain(&r.text().await.unwrap());
        assert!(html.contains("That email and password do not match an account"), "{html}");
        // The email typed stays in the form.
        assert!(html.contains(&format!("value=\"{email}\"")));
        let (status, _) = app.get_json(&c, "/api/me").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);

        // With a session, the refusal waits in it for the sign-in page the redirect leads to.
        let c = app.sign_in("bob").await;
        let r = app.post_sign_in(&c, email, password).await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
        assert!(r.headers()["location"].to_str().unwrap().starts_with("/signin"));
        let (_, html) = app.page(&c, "/signin").await;
        assert!(html.contains("That email and password do not match an account"), "{html}");
        assert!(html.contains(&format!("value=\"{email}\"")));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_rotates_the_session_id_and_sign_out_ends_it_on_the_server() {
    let app = spawn_app().await;
    let c = client();
    // A session held before this sign-in (here, someone else's on the same browser).
    let before = app.post_sign_in(&c, &demo_email("alice"), "engram-demo").await;
    let before_id = session_cookie(&before).expect("a session before sign-in");
    let r = app.post_sign_in(&c, &demo_email("ada"), "engram-demo").await;
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
    let after_id = session_cookie(&r).expect("a session after sign-in");
    assert_ne!(before_id, after_id, "the id must change at sign-in");

    // The old id is worth nothing.
    let raw = reqwest::Client::new();
    let old = raw.get(app.url("/api/me")).header("cookie", &before_id).send().await.unwrap();
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let new = raw.get(app.url("/api/me")).header("cookie", &after_id).send().await.unwrap();
    assert_eq!(new.status(), StatusCode::OK);

    let out = c.post(app.url("/auth/sign-out")).send().await.unwrap();
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    // Replaying the cookie after sign-out fails: the session is gone from the server.
    let replay = raw.get(app.url("/api/me")).header("cookie", &after_id).send().await.unwrap();
    assert_eq!(replay.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ends_a_week_after_sign_in_however_active() {
    let app = spawn_app().await;
    let c = app.sign_in("alice").await;
    let (status, me) = app.get_json(&c, "/api/me").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["name"], "Alice Chen");
    app.clock.advance(chrono::Duration::days(6));
    assert_eq!(app.get_json(&c, "/api/me").await.0, StatusCode::OK);
    app.clock.advance(chrono::Duration::days(1) + chrono::Duration::minutes(1));
    assert_eq!(app.get_json(&c, "/api/me").await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_redirect_to_sign_in_and_back() {
    let app = spawn_app().await;
    let c = client();
    let r = c.get(app.url("/company/roles/sales")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/signin?next=/company/roles/sales");
    for (page, next) in [("/ask", "/ask"), ("/threads/1", "/threads/1")] {
        let r = c.get(app.url(page)).send().await.unwrap();
        assert_eq!(r.headers()["location"], format!("/signin?next={next}").as_str(), "{page} needs a sign-in");
    }
    let r = c
        .post(app.url("/auth/sign-in"))
        .form(&[("email", demo_email("ada").as_str()), ("password", "engram-demo"), ("next", "/company/roles/sales")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["location"], "/company/roles/sales");
    // A next that leaves the site is ignored.
    let c2 = client();
    let r = c2
        .post(app.url("/auth/sign-in"))
        .form(&[("email", demo_email("ada").as_str()), ("password", "engram-demo"), ("next", "//evil.example/")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["location"], "/");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_writes_are_refused_with_403() {
    let app = spawn_app().await;
    let c = app.sign_in("ada").await;
    let fields = [("scope", "company:role:sales"), ("based_on", "0"), ("text", "x"), ("note", "")];
    let by_origin =
        c.post(app.url("/fn/save_core")).header("origin", "http://evil.example").form(&fields).send().await.unwrap();
    assert_eq!(by_origin.status(), StatusCode::FORBIDDEN);
    let by_fetch_site =
        c.post(app.url("/fn/save_core")).header("sec-fetch-site", "cross-site").form(&fields).send().await.unwrap();
    assert_eq!(by_fetch_site.status(), StatusCode::FORBIDDEN);
    let sign_in = client()
        .post(app.url("/auth/sign-in"))
        .header("sec-fetch-site", "same-site")
        .form(&[("email", "ada@acme.example"), ("password", "engram-demo")])
        .send()
        .await
        .unwrap();
    assert_eq!(sign_in.status(), StatusCode::FORBIDDEN);
    // Nothing was saved by the refused posts.
    let (_, core) = app.get_json(&c, "/api/memory/cores/company:role:sales").await;
    assert!(core["current"].is_null());
    // The same post from our own page goes through.
    let ok = app.form_post(&c, "/fn/save_core", &fields).await;
    assert_eq!(ok.status(), StatusCode::FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_gets_413() {
    let app = spawn_app().await;
    let huge = 2 * 1024 * 1024;
    let api = app.status_for_announced_body("/api/memory/cores/company:role:sales", "application/json", huge).await;
    assert_eq!(api, 413);
    let form = app.status_for_announced_body("/fn/save_core", "application/x-www-form-urlencoded", huge).await;
    assert_eq!(form, 413);
    // Just under the limit is read, and refused for what it says, not for its size.
    let c = app.sign_in("ada").await;
    let r = app.save_core(&c, "company:role:sales", 0, &"x".repeat(512 * 1024)).await;
    assert_ne!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_work_for_the_api_but_memory_refuses_them() {
    let app = spawn_app().await;
    let c = app.sign_in("ada").await;
    let r = c.post(app.url("/api/tokens")).json(&json!({ "name": "script" })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let made = body(r).await;
    let token = made["token"].as_str().unwrap().to_string();
    let raw = reqwest::Client::new();
    let me = raw.get(app.url("/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(me.status(), StatusCode::OK);
    assert_eq!(body(me).await["email"], "ada@acme.example");

    for (method, path) in [
        ("GET", "/api/memory/roles"),
        ("GET", "/api/memory/cores/company:role:sales"),
        ("POST", "/api/memory/cores/company:role:sales"),
        ("GET", "/api/memory/cores/company:role:sales/versions"),
        ("POST", "/api/memory/cores/company:role:sales/limit"),
        ("POST", "/api/memory/suggestions/1/accept"),
        ("POST", "/api/tokens"),
    ] {
        let req = match method {
            "GET" => raw.get(app.url(path)),
            _ => raw
                .post(app.url(path))
                .json(&json!({ "based_on": 0, "text": "from a token", "limit": 3000, "name": "x" })),
        };
        let r = req.bearer_auth(&token).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{method} {path}");
        let b = body(r).await;
        assert_eq!(b["error"], "session_required", "{method} {path}");
        assert!(b["message"].as_str().unwrap().contains("API tokens are refused"));
    }
    // Even alongside a valid session cookie, a token on a memory endpoint is refused.
    let r = c.get(app.url("/api/memory/roles")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(body(r).await["error"], "session_required");
    let (_, core) = app.get_json(&c, "/api/memory/cores/company:role:sales").await;
    assert!(core["current"].is_null(), "the token's save must not have landed");

    let id = made["id"].as_i64().unwrap();
    let r = c.delete(app.url(&format!("/api/tokens/{id}"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let me = raw.get(app.url("/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(me.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(me).await["error"], "bad_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_survives_a_server_restart() {
    let app = spawn_app().await;
    let r = app.post_sign_in(&client(), &demo_email("alice"), "engram-demo").await;
    let cookie = session_cookie(&r).expect("a session cookie");
    let url = app.database_url.clone();
    let _dir = app.stop().await;
    let again = spawn_app_on(&url).await;
    let r = reqwest::Client::new().get(again.url("/api/me")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the session is in the database, not in the process");
    assert_eq!(body(r).await["name"], "Alice Chen");
}

const THROTTLED: &str = "Too many sign-in attempts. Wait 5 minutes, then try again.";

/// Six wrong passwords for `email`, one after another; returns how long each answer took.
async fn six_wrong(app: &TestApp, email: &str) -> Vec<std::time::Duration> {
    let c = client();
    let mut took = Vec::new();
    for _ in 0..6 {
        let start = std::time::Instant::now();
        let r = app.post_sign_in(&c, email, "wrong").await;
        took.push(start.elapsed());
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "attempt {} for {email}", took.len());
    }
    took
}

async fn assert_throttled(r: reqwest::Response, what: &str) {
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS, "{what}");
    assert_eq!(r.headers()["retry-after"], "300", "{what}");
    assert_eq!(r.text().await.unwrap(), THROTTLED, "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_are_slowed_then_refused_alike_for_known_and_unknown_accounts() {
    let (known, unknown) = tokio::join!(spawn_app(), spawn_app());
    let ada = demo_email("ada");
    let (known_took, unknown_took) = tokio::join!(six_wrong(&known, &ada), six_wrong(&unknown, "nobody@acme.example"));
    for took in [&known_took, &unknown_took] {
        // The fourth answer waits half a second, the fifth one, the sixth two.
        for (i, least) in [(3, 500), (4, 1000), (5, 2000)] {
            assert!(took[i] >= std::time::Duration::from_millis(least), "attempt {}: {took:?}", i + 1);
        }
    }
    // Then no password is checked: the same sentence for an account that exists and one that
    // does not, and even the right password waits.
    assert_throttled(known.post_sign_in(&client(), &ada, "wrong").await, "ada").await;
    assert_throttled(unknown.post_sign_in(&client(), "nobody@acme.example", "wrong").await, "nobody").await;
    assert_throttled(known.post_sign_in(&client(), &ada, "engram-demo").await, "ada, right password").await;
    // Case and spaces do not make another account.
    assert_throttled(known.post_sign_in(&client(), &ada.to_uppercase(), "engram-demo").await, "ADA").await;

    // After the wait the right password signs in.
    known.clock.advance(chrono::Duration::seconds(300));
    let c = client();
    let r = known.post_sign_in(&c, &ada, "engram-demo").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/");
    assert_eq!(known.get_json(&c, "/api/me").await.0, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throttled_form_post_shows_the_sentence_on_the_sign_in_page() {
    let app = spawn_app().await;
    let ada = demo_email("ada");
    // Sent all at once, they are still counted as they arrive.
    let guesses: Vec<_> = (0..6)
        .map(|_| {
            let (url, ada) = (app.url("/auth/sign-in"), ada.clone());
            tokio::spawn(async move {
                client().post(url).form(&[("email", ada.as_str()), ("password", "wrong")]).send().await.unwrap()
            })
        })
        .collect();
    for g in guesses {
        // Each is checked and refused (303 back to the form), or, when the server's password
        // hashing is full because the machine is slow, turned away for a second (429,
        // `Retry-After: 1`). Either way the attempt was counted when it began.
        let r = g.await.unwrap();
        match r.status() {
            StatusCode::SEE_OTHER => {}
            StatusCode::TOO_MANY_REQUESTS => assert_eq!(r.headers()["retry-after"], "1", "only a busy server: {r:?}"),
            other => panic!("a wrong guess got {other}"),
        }
    }
    let c = client();
    let r = app
        .form_post(&c, "/auth/sign-in", &[("email", &ada), ("password", "engram-demo"), ("next", "/company/roles")])
        .await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.headers()["retry-after"], "300");
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let policy = r.headers()["content-security-policy"].to_str().unwrap().to_string();
    let html = plain(&r.text().await.unwrap());
    // The browser shows it at the sign-in page's address, where the app can hydrate it.
    let nonce = policy.split("'nonce-").nth(1).and_then(|n| n.split('\'').next()).expect("a nonce");
    assert!(
        html.contains(&format!(
            "<script nonce=\"{nonce}\">history.replaceState(null, \"\", \"/signin?next=/company/roles\");</script>"
        )),
        "{html}"
    );
    assert!(html.contains(THROTTLED), "{html}");
    assert!(html.contains(&format!("value=\"{ada}\"")), "the email typed stays in the form: {html}");
    assert!(html.contains("action=\"/auth/sign-in\""), "the form is there to try again: {html}");
    assert!(html.contains("value=\"/company/roles\""), "and still goes on to where it was going: {html}");
    // The sentence was shown once, not kept for the next visit.
    let (_, again) = app.page(&c, "/signin").await;
    assert!(!again.contains(THROTTLED), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_guessing_many_accounts_is_refused() {
    let app = spawn_app().await;
    let guesses: Vec<_> = (0..30)
        .map(|i| {
            let url = app.url("/auth/sign-in");
            tokio::spawn(async move {
                let email = format!("guess{i}@acme.example");
                let r =
                    client().post(url).form(&[("email", email.as_str()), ("password", "wrong")]).send().await.unwrap();
                (r.status(), r.text().await.unwrap())
            })
        })
        .collect();
    // Sent all at once, some find the server's hashing gate full; each is counted all the same.
    for g in guesses {
        match g.await.unwrap() {
            (StatusCode::SEE_OTHER, _) => {}
            (StatusCode::TOO_MANY_REQUESTS, text) => assert_eq!(text, engine::auth::BUSY_MESSAGE),
            other => panic!("{other:?}"),
        }
    }
    // An account never tried before is refused too: the address is locked.
    assert_throttled(app.post_sign_in(&client(), &demo_email("bob"), "engram-demo").await, "bob").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_next_that_a_browser_could_read_as_another_site_leads_home() {
    let app = spawn_app().await;
    let ada = demo_email("ada");
    let sign_in_with = |next: &'static str| {
        let (url, ada) = (app.url("/auth/sign-in"), ada.clone());
        async move {
            let r = client()
                .post(url)
                .form(&[("email", ada.as_str()), ("password", DEMO_PASSWORD), ("next", next)])
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::SEE_OTHER, "{next:?}");
            r.headers()["location"].to_str().unwrap().to_string()
        }
    };
    for next in [
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r\n/evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "/%2F%2Fevil.example",
        "/%5Cevil.example",
        "/%09/evil.example",
        "https://evil.example",
        "//evil.example",
        " /x",
        "/\u{ff0f}evil.example",
        "/.//evil.example",
    ] {
        assert_eq!(sign_in_with(next).await, "/", "{next:?}");
    }
    assert_eq!(sign_in_with("/company/roles").await, "/company/roles", "a path of this server is kept");
}

/// A sign-in form post as sent from `address`, as the trusted proxy in front names it.
async fn sign_in_from(
    app: &TestApp,
    c: &reqwest::Client,
    address: &str,
    email: &str,
    password: &str,
) -> reqwest::Response {
    c.post(app.url("/auth/sign-in"))
        .header("x-forwarded-for", address)
        .form(&[("email", email), ("password", password), ("next", "/")])
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_from_elsewhere_do_not_lock_the_owner_out_where_they_signed_in_before() {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    let alice = demo_email("alice");
    let (home, attacker, fresh) = ("198.51.100.7", "203.0.113.66", "192.0.2.44");
    let r = sign_in_from(&app, &client(), home, &alice, DEMO_PASSWORD).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/", "Alice signed in from home before");

    let mut statuses = Vec::new();
    for _ in 0..10 {
        statuses.push(sign_in_from(&app, &client(), attacker, &alice, "wrong").await.status());
    }
    assert_eq!(statuses[..6], [StatusCode::SEE_OTHER; 6], "six wrong passwords are checked: {statuses:?}");
    assert_eq!(statuses[6..], [StatusCode::TOO_MANY_REQUESTS; 4], "then refused: {statuses:?}");

    // From home, Alice's right password still signs her in...
    let c = client();
    let r = sign_in_from(&app, &c, home, &alice, DEMO_PASSWORD).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], "/");
    assert_eq!(body(c.get(app.url("/api/me")).send().await.unwrap()).await["name"], "Alice Chen");
    // ...while an address she never signed in from still waits out the lock, right password or not.
    assert_throttled(sign_in_from(&app, &client(), fresh, &alice, DEMO_PASSWORD).await, "a fresh address").await;
    assert_throttled(sign_in_from(&app, &client(), attacker, &alice, DEMO_PASSWORD).await, "the attacker").await;

    // The lock is audited once, naming Alice, and the admins see it among the events.
    let alice_id = app.store.credentials(&alice).await.unwrap().unwrap().0.id;
    let locks: Vec<_> =
        app.store.audit_log(1000).await.unwrap().into_iter().filter(|a| a.action == "person.sign_in_locked").collect();
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!((locks[0].subject.as_str(), locks[0].actor), (format!("person:{alice_id}").as_str(), None));
    let ada = app.sign_in("ada").await;
    let (status, events) = app.get_json(&ada, "/api/events").await;
    assert_eq!(status, StatusCode::OK);
    let locked: Vec<_> = events.as_array().unwrap().iter().filter(|e| e["name"] == "sign_in_locked").collect();
    assert_eq!(locked.len(), 1, "{events}");
    assert_eq!(locked[0]["state"], alice.as_str());
    let (_, html) = app.page(&ada, "/company/events").await;
    assert!(html.contains("Sign-in locked after wrong passwords") && html.contains(&alice), "{html}");
    // Alice herself is no admin: the events are not hers to read.
    assert_eq!(app.get_json(&c, "/api/events").await.0, StatusCode::FORBIDDEN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_sign_ins_at_once_are_turned_away_quickly_not_queued() {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    // Each from an address and for an account of its own, so only the hashing gate can refuse.
    let attempts: Vec<_> = (0..200u32)
        .map(|i| {
            let url = app.url("/auth/sign-in");
            tokio::spawn(async move {
                let start = std::time::Instant::now();
                let r = client()
                    .post(url)
                    .header("x-forwarded-for", format!("10.1.{}.{}", i / 200, i % 200 + 1))
                    .form(&[("email", format!("crowd{i}@acme.example").as_str()), ("password", "wrong")])
                    .send()
                    .await
                    .unwrap();
                let (status, retry) = (r.status(), r.headers().get("retry-after").cloned());
                (status, retry, r.text().await.unwrap(), start.elapsed())
            })
        })
        .collect();
    let mut busy = Vec::new();
    for a in attempts {
        let (status, retry, text, took) = a.await.unwrap();
        match status {
            StatusCode::SEE_OTHER => {}
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(retry.as_ref().map(|v| v.to_str().unwrap()), Some("1"));
                assert_eq!(text, engine::auth::BUSY_MESSAGE);
                busy.push(took);
            }
            other => panic!("a sign-in in the crowd answered {other}: {text}"),
        }
    }
    assert!(!busy.is_empty(), "some of 200 sign-ins at once find the gate full");
    busy.sort();
    // Turned away without waiting for a hash: the quickest refusals take no hashing time at all.
    assert!(busy[0] < std::time::Duration::from_secs(2), "{:?}", &busy[..busy.len().min(5)]);
    // And the server still serves: the right password signs in.
    let c = app.sign_in("ada").await;
    assert_eq!(app.get_json(&c, "/api/me").await.0, StatusCode::OK);
}

/// The rows of the sessions table, read behind the server's back.
async fn session_rows(app: &TestApp) -> i64 {
    use sqlx::Connection;
    if app.database_url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
        sqlx::query_scalar("SELECT COUNT(*) FROM tower_sessions").fetch_one(&mut conn).await.unwrap()
    } else {
        let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
        sqlx::query_scalar("SELECT COUNT(*) FROM tower_sessions.session").fetch_one(&mut conn).await.unwrap()
    }
}

/// Each stored session as its id and its data and expiry together, read behind the server's back.
async fn sessions_stored(app: &TestApp) -> Vec<(String, String)> {
    use sqlx::{Connection, Row};
    let rows = if app.database_url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
        sqlx::query("SELECT id, hex(data) || ' ' || expiry_date FROM tower_sessions ORDER BY id")
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
            .collect()
    } else {
        let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
        sqlx::query(
            "SELECT id, encode(data, 'hex') || ' ' || expiry_date::text FROM tower_sessions.session ORDER BY id",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
        .collect()
    };
    rows
}

/// A page view writes nothing: neither taking a flash that is not there nor being signed in writes
/// the session. Its idle expiry moves on at most every five minutes of use, and a flash that is
/// there is still taken once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_view_writes_no_session_and_use_extends_it_every_five_minutes() {
    let app = spawn_app().await;
    let c = app.sign_in("ada").await;
    let signed_in = sessions_stored(&app).await;
    assert_eq!(signed_in.len(), 1);
    for path in ["/", "/ask", "/company/people", "/company/teams", "/company/roles", "/profile/memory", "/inbox"] {
        let (status, _) = app.page(&c, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
    }
    assert_eq!(app.get_json(&c, "/api/me").await.0, StatusCode::OK);
    assert_eq!(sessions_stored(&app).await, signed_in, "a page view wrote the session");
    app.clock.advance(chrono::Duration::minutes(4));
    app.page(&c, "/ask").await;
    assert_eq!(sessions_stored(&app).await, signed_in, "four minutes on, the session was written");
    // Five minutes after it was last moved on, use moves it on, once.
    app.clock.advance(chrono::Duration::minutes(1));
    app.page(&c, "/ask").await;
    let extended = sessions_stored(&app).await;
    assert_eq!(extended.len(), 1);
    assert_eq!(extended[0].0, signed_in[0].0, "the same session");
    assert_ne!(extended[0].1, signed_in[0].1, "five minutes of use moved the session's expiry on");
    app.page(&c, "/company/people").await;
    assert_eq!(sessions_stored(&app).await, extended);
    // A flash is still shown once, and taking it writes the session: a refused team name is kept
    // for the page after the redirect.
    let long = "Night Desk ".repeat(8);
    let r = app.form_post(&c, "/fn/create_team", &[("name", &long), ("role", "")]).await;
    assert_eq!(r.headers()["location"], "/company/teams");
    let kept = sessions_stored(&app).await;
    let (_, html) = app.page(&c, "/company/teams").await;
    assert!(html.contains("can be at most 80 characters") && html.contains(&long), "the typed name, once");
    assert_ne!(sessions_stored(&app).await, kept, "the flash was taken from the session");
    let (_, html) = app.page(&c, "/company/teams").await;
    assert!(!html.contains(&long), "and not shown again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cookieless_request_never_stores_a_session() {
    let app = spawn_app().await;
    let token = token_for(&app, "ada").await;
    let before = session_rows(&app).await;
    let raw = || reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for path in ["/", "/signin", "/signin?next=/company/roles", "/company/roles", "/ask", "/setup", "/api/me"] {
        let r = raw().get(app.url(path)).send().await.unwrap();
        assert!(session_cookie(&r).is_none(), "GET {path} set a session: {:?}", r.headers());
    }
    let r = raw().get(app.url("/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(session_cookie(&r).is_none());
    // A refused sign-in: a script is sent back to the sign-in page, a browser gets the page itself
    // with the sentence and the email typed.
    let r = app.post_sign_in(&raw(), &demo_email("alice"), "wrong").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(session_cookie(&r).is_none());
    let r = app
        .form_post(
            &raw(),
            "/auth/sign-in",
            &[("email", "nobody@acme.example"), ("password", "wrong"), ("next", "/ask")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(session_cookie(&r).is_none());
    let html = plain(&r.text().await.unwrap());
    assert!(html.contains("That email and password do not match an account"), "{html}");
    assert!(html.contains("value=\"nobody@acme.example\"") && html.contains("value=\"/ask\""), "{html}");
    assert!(html.contains("history.replaceState(null, \"\", \"/signin?next=/ask\")"), "{html}");
    // A cookie the server never gave stores nothing either.
    let r = raw()
        .post(app.url("/auth/sign-in"))
        .header("cookie", "engram_session=made-up")
        .form(&[("email", "nobody@acme.example"), ("password", "wrong")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(session_rows(&app).await, before, "no cookieless request stored a session");
    // The count does see sessions: a sign-in stores one.
    app.sign_in("bob").await;
    assert_eq!(session_rows(&app).await, before + 1);
}

fn flash_cookie(r: &reqwest::Response) -> Option<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("engram_flash="))
        .map(|v| v.to_string())
}

/// A refused invite or set-up, posted without a session, keeps its sentence in a sealed cookie of
/// its own: the page after the redirect shows it once, and no session row is ever stored for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_invite_or_set_up_without_a_session_keeps_its_sentence_in_a_sealed_cookie() {
    let app = spawn_app().await;
    let before = session_rows(&app).await;
    let raw = || reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let accept = |secret: &'static str, password: &'static str, repeat: &'static str| {
        let c = raw();
        let app = &app;
        async move {
            app.form_post(&c, "/fn/accept_invite", &[("secret", secret), ("password", password), ("repeat", repeat)])
                .await
        }
    };
    let r = accept("no-such-link", "a long passphrase", "a long passphrasf").await;
    assert!(r.status().is_redirection(), "{}", r.status());
    assert_eq!(r.headers()["location"], "/invite/no-such-link");
    assert!(session_cookie(&r).is_none(), "{:?}", r.headers());
    let set = flash_cookie(&r).expect("the sentence goes in a cookie");
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Max-Age=300"), "{set}");
    let cookie = set.split(';').next().unwrap().to_string();
    assert!(!cookie.contains("passwords differ"), "the cookie is sealed: {cookie}");

    // The page shows the sentence once and tells the browser to forget the cookie.
    let page = raw().get(app.url("/invite/no-such-link")).header("cookie", &cookie).send().await.unwrap();
    let forget = flash_cookie(&page).expect("the cookie is taken");
    assert!(forget.starts_with("engram_flash=;") && forget.contains("Max-Age=0"), "{forget}");
    assert!(session_cookie(&page).is_none());
    let html = page.text().await.unwrap();
    assert!(html.contains("The two passwords differ; type the same one twice"), "{html}");

    // A cookie the server did not seal, or sealed for something else, shows nothing.
    for forged in [
        "engram_flash={\"notice:/invite/no-such-link\":{\"message\":\"Call 555-0100 now\"}}".to_string(),
        "engram_flash=sealed:AAAA".to_string(),
        format!("{}x", &cookie[..cookie.len() - 1]),
    ] {
        let page = raw().get(app.url("/invite/no-such-link")).header("cookie", &forged).send().await.unwrap();
        let html = page.text().await.unwrap();
        assert!(!html.contains("Call 555-0100") && !html.contains("passwords differ"), "{forged}: {html}");
    }

    // A link that is no invite, and a second set-up: refused, and still no session row.
    let r = accept("no-such-link", "a long passphrase", "a long passphrase").await;
    assert!(r.status().is_redirection() && session_cookie(&r).is_none() && flash_cookie(&r).is_some());
    let r = app
        .form_post(
            &raw(),
            "/fn/set_up",
            &[
                ("company", "Mallory"),
                ("zone", "UTC"),
                ("name", "Mallory"),
                ("email", "m@evil.example"),
                ("password", "correct horse battery"),
            ],
        )
        .await;
    assert!(r.status().is_redirection(), "{}", r.status());
    assert!(session_cookie(&r).is_none(), "{:?}", r.headers());
    assert_eq!(session_rows(&app).await, before, "no cookieless refusal stored a session");
}
