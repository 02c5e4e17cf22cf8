//! Moving an organisation: `engram export` from one backend and `engram import` into the other give
//! the same archive again; keys and password hashes never leave; a database that is not empty is
//! refused untouched; and a server on the imported database serves it once people set new passwords.

use crate::helpers::*;
use demo::acme_ats::AtsConfig;
use demo::company::{demo_email, DEMO_PASSWORD};
use engine::{Clock, SystemClock};
use reqwest::StatusCode;
use std::path::Path;
use std::sync::Arc;

const SALES: &str = "company:role:sales";

/// The demo organisation and more: three versions of the Sales core, the connected Acme ATS with
/// its company key, people's own keys, cards and their uses, and the demo bots' runs (tasks,
/// wakes, episodes, memory rows).
async fn enrich(app: &TestApp, vault: &Path) {
    suggest_demo_lines(app).await;
    // Memory's settings, its spend ledger and a night the budget ran out travel too.
    let at = engine::Clock::now(&*app.clock);
    let alice = app.store.credentials("alice@acme.example").await.unwrap().unwrap().0;
    app.store.set_memory_budget(150, engine::store::Actor { person: None, at }).await.unwrap();
    let spend = engine::learning::nightly::Spend {
        local_date: "2026-12-01".into(),
        purpose: "nightly job".into(),
        model: "openai/gpt-4o-mini".into(),
        millicents: 1_250,
        at,
    };
    app.store.add_spend(&spend).await.unwrap();
    let stop =
        engine::learning::nightly::BudgetStop { local_date: "2026-12-01".into(), budget_cents: 150, left_out: 1, at };
    app.store.record_budget_stop(&stop, &[alice.id]).await.unwrap();
    let ada = app.sign_in("ada").await;
    let texts = ["Stages: New, Won.", "Stages: New, Qualified, Won.", "Stages: New, Qualified, Proposal, Won, Lost."];
    for (based_on, text) in texts.iter().enumerate() {
        assert_eq!(app.save_core(&ada, SALES, based_on as u32, text).await.status(), StatusCode::CREATED);
    }
    let (ats, _ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    demo::cards::seed(app.store.as_ref(), &app.memory, app.clock.clone() as Arc<dyn Clock>, &ats)
        .await
        .expect("connect the source");
    demo::knowledge::seed(app.store.as_ref(), app.clock.as_ref()).await.expect("the playbook and glossary");
    let sales_assistant = app.store.directory().await.unwrap().agents[0].id;
    let scopes = [engine::lessons::scopes::MemoryScope::Team];
    app.store.set_memory_scopes(sales_assistant, &scopes, engine::store::Actor { person: None, at }).await.unwrap();
    let vault: Arc<dyn engine::persona::vault::Vault> = Arc::new(server::vault::FsVault::new(vault));
    demo::bots::ensure_vault(vault.as_ref()).await.expect("write the demo vault");
    assert!(demo::bots::seed_episodes(app.store.clone(), vault, Arc::new(SystemClock)).await.unwrap());
}

/// Each version's time to the microsecond, as an archive keeps it (SQLite keeps nanoseconds).
fn to_microseconds(mut history: serde_json::Value) -> serde_json::Value {
    for v in history["versions"].as_array_mut().expect("versions") {
        let at: chrono::DateTime<chrono::Utc> = v["saved_at"].as_str().unwrap().parse().unwrap();
        v["saved_at"] = engine::archive::time_text(at).into();
    }
    history
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read the archive")
}

/// The lines after the header: what a move must carry unchanged.
fn rows(path: &Path) -> Vec<String> {
    read(path).lines().skip(1).map(String::from).collect()
}

fn header(path: &Path) -> serde_json::Value {
    serde_json::from_str(read(path).lines().next().expect("a header")).expect("a JSON header")
}

/// Nothing secret is in the archive: no password hash, no company key, no person's key.
fn assert_nothing_hidden_leaves(path: &Path) {
    let text = read(path);
    assert!(!text.contains("$argon2") && !text.contains("password_hash"), "no password hash");
    let config = AtsConfig::demo();
    assert!(!text.contains(&config.company_key) && !text.contains("company_key"), "no company key");
    for key in config.person_keys.values() {
        assert!(!text.contains(key.as_str()), "no person's key");
    }
}

fn assert_everything_is_carried(path: &Path) {
    let text = read(path);
    for table in [
        "company",
        "roles",
        "teams",
        "people",
        "agents",
        "audit_log",
        "core_versions",
        "core_suggestions",
        "tasks",
        "task_status_log",
        "wakeups",
        "org_agent_episodes",
        "org_agent_memory",
        "org_agent_memory_evidence",
        "connectors",
        "record_shapes",
        "cards",
        "card_uses",
        "my_work_queries",
        "prepare_my_day",
        "agent_toolsets",
        "nightly_marks",
        "memory_spend",
        "memory_settings",
        "budget_stops",
        "agent_playbooks",
        "connector_notes",
        "agent_memory_scopes",
    ] {
        assert!(text.contains(&format!("{{\"table\":\"{table}\",")), "the archive has {table} rows");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_organisation_moves_to_postgresql_and_back_and_every_archive_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite://{}/engram.db", dir.path().display());
    let app = spawn_app_on(&sqlite).await;
    enrich(&app, &dir.path().join("vault")).await;
    let ada = app.sign_in("ada").await;
    let (_, versions) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions")).await;
    assert_eq!(versions["versions"].as_array().map(Vec::len), Some(3), "{versions}");

    let first = dir.path().join("first.jsonl");
    let summary = server::archive::export(&sqlite, &first).await.unwrap();
    assert!(summary.starts_with(&format!("exported to {}: company 1, roles 5, teams 4, people 7,", first.display())));
    assert_eq!(header(&first)["source"], "sqlite");
    assert_everything_is_carried(&first);
    assert_nothing_hidden_leaves(&first);

    let pg = PgDatabase::create().await;
    let summary = server::archive::import(&pg.url, &first).await.unwrap();
    assert!(summary.starts_with(&format!("imported {}: company 1, roles 5,", first.display())), "{summary}");
    let second = dir.path().join("second.jsonl");
    server::archive::export(&pg.url, &second).await.unwrap();
    assert_eq!(header(&second)["source"], "postgres");
    assert_eq!(rows(&second), rows(&first), "SQLite → PostgreSQL carries every row unchanged");

    let back = format!("sqlite://{}/back.db", dir.path().display());
    server::archive::import(&back, &second).await.unwrap();
    let third = dir.path().join("third.jsonl");
    server::archive::export(&back, &third).await.unwrap();
    assert_eq!(rows(&third), rows(&first), "and PostgreSQL → SQLite too");

    // A server on the moved organisation: the old password no longer works; a new one does.
    let moved = spawn_app_on(&pg.url).await;
    let r = moved.post_sign_in(&client(), &demo_email("ada"), DEMO_PASSWORD).await;
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/signin"), "the old password is refused");
    let done = server::password::set_password(&pg.url, &demo_email("ada"), "a new passphrase").await.unwrap();
    assert_eq!(done, "set a new password for Ada Lovelace <ada@acme.example>");
    let c = client();
    let r = moved.post_sign_in(&c, &demo_email("ada"), "a new passphrase").await;
    assert_eq!(r.headers()["location"], "/");
    let (status, moved_versions) = moved.get_json(&c, &format!("/api/memory/cores/{SALES}/versions")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        to_microseconds(moved_versions),
        to_microseconds(versions),
        "the core's history is served from the new database"
    );
    let (_, me) = moved.get_json(&c, "/api/me").await;
    assert_eq!(me["name"], "Ada Lovelace");
    let short = server::password::set_password(&pg.url, &demo_email("sam"), "short").await.unwrap_err();
    assert_eq!(short.to_string(), "A password needs at least 8 characters");
    let nobody = server::password::set_password(&pg.url, "nobody@acme.example", "long enough").await.unwrap_err();
    assert_eq!(nobody.to_string(), "There is no person with the email nobody@acme.example who can sign in.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgresql_organisation_moves_to_sqlite_and_the_archives_are_the_same() {
    let app = spawn_postgres_app().await;
    let dir = tempfile::tempdir().unwrap();
    enrich(&app, &dir.path().join("vault")).await;
    let first = dir.path().join("first.jsonl");
    server::archive::export(&app.database_url, &first).await.unwrap();
    assert_everything_is_carried(&first);
    assert_nothing_hidden_leaves(&first);
    let sqlite = format!("sqlite://{}/moved.db", dir.path().display());
    server::archive::import(&sqlite, &first).await.unwrap();
    let second = dir.path().join("second.jsonl");
    server::archive::export(&sqlite, &second).await.unwrap();
    assert_eq!(rows(&second), rows(&first));

    let moved = spawn_app_on(&sqlite).await;
    let r = moved.post_sign_in(&client(), &demo_email("alice"), DEMO_PASSWORD).await;
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/signin"), "the old password is refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_refuses_a_database_that_is_not_empty_and_a_file_that_is_not_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let app = spawn_app().await;
    let archive = dir.path().join("org.jsonl");
    server::archive::export(&app.database_url, &archive).await.unwrap();

    let refused = server::archive::import(&app.database_url, &archive).await.unwrap_err().to_string();
    let at = server::archive::location(&app.database_url);
    assert_eq!(refused, format!("the database at {at} is not empty; import loads only into an empty database"));
    let after = dir.path().join("after.jsonl");
    server::archive::export(&app.database_url, &after).await.unwrap();
    assert_eq!(rows(&after), rows(&archive), "nothing changed");
    app.sign_in("ada").await;

    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "name,email\nAda,ada@acme.example\n").unwrap();
    let fresh = format!("sqlite://{}/fresh.db", dir.path().display());
    let e = server::archive::import(&fresh, &notes).await.unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{} cannot be imported: this is not an Engram archive: its first line must be the header with \
             \"format\": \"engram-archive\"",
            notes.display()
        )
    );
    let newer = read(&archive).replacen("\"version\":1", "\"version\":2", 1);
    std::fs::write(&notes, newer).unwrap();
    let e = server::archive::import(&fresh, &notes).await.unwrap_err().to_string();
    assert!(e.ends_with("this archive is version 2; this Engram reads version 1 only"), "{e}");
    assert!(!dir.path().join("fresh.db").exists(), "a refused archive never touches the database");

    let missing = format!("sqlite://{}/missing.db", dir.path().display());
    let e = server::archive::export(&missing, &dir.path().join("x.jsonl")).await.unwrap_err().to_string();
    assert_eq!(e, format!("There is no database at {}/missing.db; there is nothing to export.", dir.path().display()));
}

/// The `engram` binary itself: a one-line summary on stdout, and a sentence and a failing exit code
/// on refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engram_command_exports_imports_and_sets_a_password() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite://{}/engram.db", dir.path().display());
    let app = spawn_app_on(&sqlite).await;
    let file = dir.path().join("org.jsonl");
    let engram = |args: Vec<String>, stdin: &'static str| {
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
    };
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let f = file.display().to_string();
    let (code, out, _) = engram(s(&["export", "--to", &f, "--database", &sqlite]), "").await.unwrap();
    assert_eq!(code, Some(0));
    assert!(out.starts_with(&format!("exported to {f}: company 1, roles 5, teams 4, people 7,")), "{out}");
    assert_eq!(out.lines().count(), 1);

    let (code, out, err) = engram(s(&["import", &f, "--database", &sqlite]), "").await.unwrap();
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(err.contains("is not empty; import loads only into an empty database"), "{err}");

    let moved = format!("sqlite://{}/moved.db", dir.path().display());
    let (code, out, _) = engram(s(&["import", &f, "--database", &moved]), "").await.unwrap();
    assert_eq!(code, Some(0));
    assert!(out.starts_with(&format!("imported {f}: company 1,")), "{out}");
    let (code, out, _) =
        engram(s(&["password", "eve@acme.example", "--database", &moved]), "correct horse\n").await.unwrap();
    assert_eq!((code, out.as_str()), (Some(0), "set a new password for Eve Moreau <eve@acme.example>\n"));
    drop(app);
    let moved_app = spawn_app_on(&moved).await;
    let r = moved_app.post_sign_in(&client(), &demo_email("eve"), "correct horse").await;
    assert_eq!(r.headers()["location"], "/");
}
