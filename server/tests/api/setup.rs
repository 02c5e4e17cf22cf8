//! The first run: on an empty database every page leads to Set up Engram; the setup makes the
//! company and its first admin once (two racing setups: exactly one wins), signs the admin in, and
//! refuses bad input keeping what was typed; `engram init` does the same on the CLI.

use crate::helpers::{client, spawn_empty_app, spawn_second_server, PgDatabase, TestApp};
use reqwest::{Client, Response, StatusCode};

const PASSWORD: &str = "correct horse battery";

fn form<'a>(
    company: &'a str,
    zone: &'a str,
    name: &'a str,
    email: &'a str,
    password: &'a str,
) -> [(&'a str, &'a str); 5] {
    [("company", company), ("zone", zone), ("name", name), ("email", email), ("password", password)]
}

async fn set_up(app: &TestApp, c: &Client, fields: &[(&str, &str)]) -> Response {
    app.form_post(c, "/fn/set_up", fields).await
}

fn location(r: &Response) -> String {
    assert!(r.status().is_redirection(), "a redirect, not {}", r.status());
    r.headers()["location"].to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_database_leads_every_page_to_the_setup() {
    let app = spawn_empty_app().await;
    let c = client();
    for path in ["/", "/signin", "/signout", "/company/people", "/profile/memory", "/ask", "/signin?next=%2Fask"] {
        let r = c.get(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{path}");
        assert_eq!(location(&r), "/setup", "{path}");
    }
    let (status, html) = app.page(&c, "/setup").await;
    assert_eq!(status, StatusCode::OK);
    for label in
        ["Set up Engram", "Company name", "Time zone", "Locale for numbers and dates", "Your name", "Email", "Password"]
    {
        assert!(html.contains(label), "the setup shows {label}");
    }
    assert!(html.contains(r#"<option value="Asia/Kolkata">Asia/Kolkata</option>"#), "the IANA zones are offered");
    assert!(html.contains(r#"<option value="UTC" selected>UTC</option>"#), "UTC is chosen to start with");
    assert!(html.contains(r#"action="/fn/set_up""#));
    assert_eq!(app.store.company().await.unwrap(), None, "looking changes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setup_signs_the_first_admin_in_and_then_leads_to_sign_in() {
    let app = spawn_empty_app().await;
    let ada = client();
    let r = set_up(&app, &ada, &form(" Acme ", "Asia/Kolkata", "Ada Lovelace", "Ada@Acme.example", PASSWORD)).await;
    assert_eq!(location(&r), "/company/people");
    let (status, html) = app.page(&ada, "/company/people").await;
    assert_eq!(status, StatusCode::OK, "the admin is signed in and may see People");
    assert!(html.contains("Engram is set up for Acme. You are its admin; next, add your people."), "{html}");
    assert!(html.contains("ada@acme.example"));

    let company = app.store.company().await.unwrap().expect("the company exists");
    assert_eq!((company.name.as_str(), company.time_zone.as_str()), ("Acme", "Asia/Kolkata"));
    assert_eq!(company.locale.as_str(), "en-US", "a setup that leaves the locale out gets the default");
    let people = app.store.directory().await.unwrap().people;
    assert_eq!(people.len(), 1);
    assert!(people[0].is_admin && people[0].name == "Ada Lovelace");
    let audit = app.store.audit_log(10).await.unwrap();
    let actions: Vec<_> = audit.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(actions, ["person.create", "company.create"]);
    assert!(audit.iter().all(|a| a.actor == Some(people[0].id)));

    // Now the setup leads to sign-in, and the pages to sign-in for anyone signed out.
    let other = client();
    let r = other.get(app.url("/setup")).send().await.unwrap();
    assert_eq!(location(&r), "/signin");
    let r = other.get(app.url("/company/people")).send().await.unwrap();
    assert!(location(&r).starts_with("/signin?next="));
    let (status, _) = app.page(&other, "/signin").await;
    assert_eq!(status, StatusCode::OK);
    let r = app.post_sign_in(&other, "ada@acme.example", PASSWORD).await;
    assert_eq!(location(&r), "/", "the password chosen at setup signs in");
    let (status, _) = app.page(&ada, "/").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_setup_is_refused_and_leads_to_sign_in() {
    let app = spawn_empty_app().await;
    // A second browser opened the form while the database was still empty.
    let late = client();
    let (status, _) = app.page(&late, "/setup").await;
    assert_eq!(status, StatusCode::OK);
    let r = set_up(&app, &client(), &form("Acme", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", PASSWORD)).await;
    assert_eq!(location(&r), "/company/people");

    let r = set_up(&app, &late, &form("Other Co", "UTC", "Eve Moreau", "eve@other.example", PASSWORD)).await;
    assert_eq!(location(&r), "/signin");
    let (_, html) = app.page(&late, "/signin").await;
    assert!(html.contains("Engram is already set up; sign in instead"), "{html}");
    let (_, html) = app.page(&late, "/signin").await;
    assert!(!html.contains("already set up"), "the sentence is shown once");

    assert_eq!(app.store.company().await.unwrap().unwrap().name, "Acme");
    assert_eq!(app.store.directory().await.unwrap().people.len(), 1);
    assert_eq!(app.store.credentials("eve@other.example").await.unwrap(), None);
    assert_eq!(app.store.audit_log(10).await.unwrap().len(), 2, "nothing of the refused setup was written");
    let r = app.post_sign_in(&late, "eve@other.example", PASSWORD).await;
    assert!(location(&r).starts_with("/signin"), "the late setup made nobody");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_racing_setups_make_exactly_one_company() {
    let app = spawn_empty_app().await;
    let (a, b) = (client(), client());
    let acme = form("Acme", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", PASSWORD);
    let globex = form("Globex", "Europe/Berlin", "Hank Scorpio", "hank@globex.example", PASSWORD);
    let (ra, rb) = tokio::join!(set_up(&app, &a, &acme), set_up(&app, &b, &globex));
    let mut ends = [location(&ra), location(&rb)];
    let ada_won = ends[0] == "/company/people";
    ends.sort();
    assert_eq!(ends, ["/company/people", "/signin"], "exactly one wins; the other is led to sign-in");

    let company = app.store.company().await.unwrap().unwrap();
    let people = app.store.directory().await.unwrap().people;
    assert_eq!(people.len(), 1);
    let (winner, email, loser) =
        if ada_won { ("Acme", "ada@acme.example", &b) } else { ("Globex", "hank@globex.example", &a) };
    assert_eq!((company.name.as_str(), people[0].email.as_str()), (winner, email));
    let (_, html) = app.page(loser, "/signin").await;
    assert!(html.contains("Engram is already set up; sign in instead"));
    assert_eq!(app.store.audit_log(10).await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_changes_nothing_and_keeps_what_was_typed() {
    let app = spawn_empty_app().await;
    let c = client();
    let cases = [
        (
            form("Acme Widgets", "Mars/Olympus", "Ada Lovelace", "ada@acme.example", PASSWORD),
            "Mars/Olympus is not a time zone name, such as Asia/Kolkata",
        ),
        (
            form("Acme Widgets", "Asia/Kolkata", "Ada Lovelace", "ada-at-acme", PASSWORD),
            "\"ada-at-acme\" is not an email address, such as ada@example.com",
        ),
        (
            form("Acme Widgets", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", "short"),
            "A password needs at least 8 characters",
        ),
        (
            form("Acme Widgets", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", "Password123"),
            "That password is one of the most common ones, so it is guessed first; choose another",
        ),
        (form("  ", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", PASSWORD), "The company needs a name"),
        (form("Acme Widgets", "Asia/Kolkata", "", "ada@acme.example", PASSWORD), "The admin needs a name"),
    ];
    for (fields, sentence) in cases {
        let r = set_up(&app, &c, &fields).await;
        assert_eq!(location(&r), "/setup", "{sentence}");
        let (status, html) = app.page(&c, "/setup").await;
        assert_eq!(status, StatusCode::OK);
        let shown = sentence.replace('"', "&quot;");
        assert!(html.contains(sentence) || html.contains(&shown), "the page says {sentence}: {html}");
        for (field, typed) in &fields[..4] {
            let typed = typed.replace('"', "&quot;");
            let kept = if *field == "zone" {
                typed.parse::<chrono_tz::Tz>().is_err()
                    || html.contains(&format!(r#"<option value="{typed}" selected>"#))
            } else {
                typed.trim().is_empty() || html.contains(&format!(r#"value="{typed}""#))
            };
            assert!(kept, "{field} keeps {typed:?} after: {sentence}");
        }
        assert!(!html.contains(fields[4].1), "the password is never kept");
        assert_eq!(app.store.company().await.unwrap(), None, "nothing changed after: {sentence}");
    }
    // A locale that is none keeps what was typed too.
    let mut fields = form("Acme Widgets", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", PASSWORD).to_vec();
    fields.push(("locale", "klingon"));
    let r = set_up(&app, &c, &fields).await;
    assert_eq!(location(&r), "/setup");
    let (_, html) = app.page(&c, "/setup").await;
    assert!(html.contains("klingon is not a locale name, such as en-IN or en-US"), "{html}");
    assert!(html.contains(r#"name="locale" value="klingon""#), "the locale typed is kept");
    assert_eq!(app.store.company().await.unwrap(), None);

    assert!(app.store.directory().await.unwrap().people.is_empty());
    assert!(app.store.audit_log(10).await.unwrap().is_empty());
    let r = c.get(app.url("/")).send().await.unwrap();
    assert_eq!(location(&r), "/setup", "still not set up");
}

/// A server started on the empty database notices a setup made through another server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_notices_the_setup_made_through_the_first() {
    let first = spawn_empty_app().await;
    let second = spawn_second_server(&first).await;
    let c = client();
    let r = c.get(second.url("/")).send().await.unwrap();
    assert_eq!(location(&r), "/setup");
    let r =
        set_up(&first, &client(), &form("Acme", "Asia/Kolkata", "Ada Lovelace", "ada@acme.example", PASSWORD)).await;
    assert_eq!(location(&r), "/company/people");
    let r = c.get(second.url("/setup")).send().await.unwrap();
    assert_eq!(location(&r), "/signin", "the second server sees the company");
    let r = c.get(second.url("/")).send().await.unwrap();
    assert!(location(&r).starts_with("/signin"));
    let r = set_up(&second, &c, &form("Globex", "UTC", "Hank Scorpio", "hank@globex.example", PASSWORD)).await;
    assert_eq!(location(&r), "/signin", "the second server refuses a setup too");
    drop(second);
}

/// Runs the built `engram` binary with `stdin` piped in (so not a terminal): exit code, stdout, stderr.
async fn engram(args: Vec<String>, stdin: &'static str) -> (Option<i32>, String, String) {
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(args)
            .env_remove("ENGRAM_DATABASE_URL")
            .env("RUST_LOG", "error")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run engram");
        child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
        let out = child.wait_with_output().expect("engram finishes");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .expect("the command's thread")
}

/// `engram init` on a database URL, then a server on it: the admin signs in with the password
/// that came on stdin.
async fn init_sets_up(url: &str, at: &str) {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let init = |extra: &[&str]| {
        let mut args =
            s(&["init", "--company", "Acme", "--zone", "Asia/Kolkata", "--admin", "ada.lovelace@acme.example"]);
        args.extend(s(extra));
        args.extend(s(&["--database", url]));
        args
    };
    let (code, out, err) = engram(init(&[]), "short\n").await;
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert_eq!(err, "A password needs at least 8 characters; nothing was changed.\n");
    let (code, out, err) = engram(
        s(&["init", "--company", "Acme", "--zone", "Mars/Olympus", "--admin", "ada@acme.example", "--database", url]),
        "correct horse battery\n",
    )
    .await;
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert_eq!(err, "Mars/Olympus is not a time zone name, such as Asia/Kolkata; nothing was changed.\n");

    let (code, out, err) = engram(init(&["--locale", "klingon"]), "correct horse battery\n").await;
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert_eq!(err, "klingon is not a locale name, such as en-IN or en-US; nothing was changed.\n");

    let (code, out, err) = engram(init(&["--locale", "en_IN"]), "correct horse battery\n").await;
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "Engram is set up for Acme (Asia/Kolkata); Ada Lovelace <ada.lovelace@acme.example> is its admin and can sign in now.\n");

    let (code, out, err) = engram(init(&["--name", "Eve Moreau"]), "another password\n").await;
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert_eq!(
        err,
        format!(
            "Engram is already set up at {at}; nothing was changed. Sign in instead, or add people as its admin.\n"
        )
    );

    let store = server::store::AnyStore::open(url).await.unwrap().shared();
    let people = store.directory().await.unwrap().people;
    assert_eq!(people.len(), 1);
    assert!(people[0].is_admin && people[0].name == "Ada Lovelace");
    let company = store.company().await.unwrap().unwrap();
    assert_eq!((company.time_zone.as_str(), company.locale.as_str()), ("Asia/Kolkata", "en-IN"));
    let verified = engine::auth::verify_password(
        PASSWORD.into(),
        store.credentials("ada.lovelace@acme.example").await.unwrap().unwrap().1,
    );
    assert!(verified.await.unwrap(), "the password came from stdin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_init_sets_up_an_empty_sqlite_database_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new").join("engram.db");
    init_sets_up(&format!("sqlite://{}", path.display()), &path.display().to_string()).await;
    let app = crate::helpers::spawn_app_on(&format!("sqlite://{}", path.display())).await;
    let c = client();
    let r = app.post_sign_in(&c, "ada.lovelace@acme.example", PASSWORD).await;
    assert_eq!(location(&r), "/");
    let (status, _) = app.page(&c, "/company/people").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_init_sets_up_an_empty_postgresql_database_once() {
    let db = PgDatabase::create().await;
    let name = db.url.rsplit('/').next().unwrap().to_string();
    init_sets_up(&db.url, &format!("the PostgreSQL database {name} on 127.0.0.1")).await;
}
