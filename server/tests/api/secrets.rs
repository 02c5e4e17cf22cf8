//! Connector keys sealed at rest, against the real server: the first start makes a key file only
//! its owner reads, the database never holds a key as given, a wrong or missing key stops the
//! start with a sentence, and after `engram keys rotate` the source still gets the right keys.

use crate::helpers::*;
use demo::acme_ats::AtsConfig;
use engine::cards::service::RefreshOutcome;
use engine::cards::source::KeyMode;
use engine::org::Person;
use server::secrets::{KeySetting, SecretKey};
use server::{Application, Settings};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// The demo company with the demo's Acme ATS connected: its company key and people's own keys.
async fn with_source(app: &TestApp) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (ats, task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    let clock = app.clock.clone() as std::sync::Arc<dyn engine::Clock>;
    demo::cards::seed(app.store.as_ref(), &app.memory, clock, &ats).await.expect("connect the source");
    (ats, task)
}

/// Connector keys as the database holds them: the company key, then people's own keys.
async fn stored_keys(database_url: &str) -> Vec<String> {
    let company = "SELECT company_key FROM connectors WHERE company_key IS NOT NULL ORDER BY id";
    let people = "SELECT secret FROM person_keys ORDER BY connector_id, person_id";
    let mut keys = Vec::new();
    for sql in [company, people] {
        let got: Vec<String> = if database_url.starts_with("sqlite:") {
            let store = server::store::SqliteStore::open_read_only(database_url).await.unwrap();
            sqlx::query_scalar(sql).fetch_all(store.pool()).await.unwrap()
        } else {
            let store = server::store::PgStore::open_read_only(database_url).await.unwrap();
            sqlx::query_scalar(sql).fetch_all(store.pool()).await.unwrap()
        };
        keys.extend(got);
    }
    keys
}

fn key_file_beside(database_url: &str) -> PathBuf {
    PathBuf::from(database_url.strip_prefix("sqlite://").unwrap()).with_extension("key")
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// What a start on `settings` says when it refuses.
async fn refused_start(settings: Settings) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    match Application::build(settings, listener).await {
        Ok(_) => panic!("the start should have been refused"),
        Err(e) => e.to_string(),
    }
}

async fn person(app: &TestApp, login: &str) -> Person {
    app.store.credentials(&format!("{login}@acme.example")).await.unwrap().unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_start_makes_a_key_file_its_owner_alone_reads_and_keys_are_sealed_with_it() {
    let key_dir = tempfile::tempdir().unwrap();
    // On PostgreSQL there is nothing beside the database: the file is the one ENGRAM_SECRET_KEY_FILE names.
    let named = key_dir.path().join("keys").join("engram.key");
    let app = if postgres_backend() {
        let named = named.clone();
        spawn_app_with(move |s| s.secret_key = KeySetting::File(named)).await
    } else {
        spawn_app().await
    };
    let file = if postgres_backend() { named } else { key_file_beside(&app.database_url) };
    assert_eq!(mode(&file), 0o600, "only the owner reads the key file");
    SecretKey::parse(&std::fs::read_to_string(&file).unwrap()).expect("the file holds a key");

    let (_ats, _task) = with_source(&app).await;
    let stored = stored_keys(&app.database_url).await;
    assert!(stored.len() > 1, "the company key and people's own keys");
    for (key, given) in
        stored.iter().zip(std::iter::once("acme-ats-company-key").chain(std::iter::repeat("acme-ats-key")))
    {
        assert!(key.starts_with("v1:") && !key.contains(given), "the database holds {key}, not the key");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_or_missing_key_stops_the_start_with_a_sentence() {
    let app = spawn_app().await;
    let (_ats, _task) = with_source(&app).await;
    let mut settings = app.settings.clone();
    let url = app.database_url.clone();
    let _dir = app.stop().await;

    settings.secret_key = KeySetting::Given(SecretKey::generate().to_base64());
    assert_eq!(
        refused_start(settings.clone()).await,
        "the secret key does not open this database's connector keys: set ENGRAM_SECRET_KEY to the key this \
         database was sealed with (the one `engram keys rotate` printed last, or the key file the database began \
         with); nothing was changed"
    );
    settings.secret_key = KeySetting::Given("0123456789abcdef".into());
    assert_eq!(
        refused_start(settings.clone()).await,
        "ENGRAM_SECRET_KEY is not a secret key: it is 12 bytes long; it must be exactly 32 bytes written in base64 \
         (44 characters, as `openssl rand -base64 32` prints)"
    );
    settings.secret_key = KeySetting::Both;
    assert_eq!(
        refused_start(settings.clone()).await,
        "set ENGRAM_SECRET_KEY or ENGRAM_SECRET_KEY_FILE, not both: they name two keys"
    );

    settings.secret_key = KeySetting::BesideDatabase;
    if postgres_backend() {
        let said = refused_start(settings.clone()).await;
        assert!(
            said.starts_with(
                "this database is not a file, so there is no folder beside it for a key file: set ENGRAM_SECRET_KEY"
            ),
            "{said}"
        );
    } else {
        // The key file gone: a new one could not open the database, so none is made.
        let file = key_file_beside(&url);
        let kept = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_file(&file).unwrap();
        assert_eq!(
            refused_start(settings.clone()).await,
            format!(
                "this database's connector keys are sealed, but there is no key file at {}: restore it from the \
                 backup taken with the database, or set ENGRAM_SECRET_KEY to the key the database was sealed with; \
                 nothing was changed",
                file.display()
            )
        );
        assert!(!file.exists(), "no new key file is made for a sealed database");
        std::fs::write(&file, kept).unwrap();
    }
    // The right key still starts it, and the source's key still opens.
    let app = spawn_app_on(&url).await;
    assert_eq!(app.store.company_key(1).await.unwrap().as_deref(), Some("acme-ats-company-key"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_rotation_the_source_still_gets_the_right_keys_and_the_old_key_opens_nothing() {
    let app = spawn_app().await;
    let (_ats, _task) = with_source(&app).await;
    let (ada, alice) = (person(&app, "ada").await, person(&app, "alice").await);
    // The lead tools read with people's own keys, the rest with the company key.
    let lead_tools: Vec<String> = ["list_leads", "get_lead", "search_leads"].iter().map(|s| s.to_string()).collect();
    app.memory.connectors.set_key_mode(&ada, 1, KeyMode::Company, &lead_tools).await.unwrap();
    let before = stored_keys(&app.database_url).await;
    let settings = app.settings.clone();
    let url = app.database_url.clone();
    let _dir = app.stop().await;
    let old_key = match &settings.secret_key {
        KeySetting::Given(key) => key.clone(),
        _ => std::fs::read_to_string(key_file_beside(&url)).unwrap().trim().to_string(),
    };

    let mut out = Vec::new();
    let rotated = server::secrets::rotate(&url, &settings.secret_key, &mut out).await.expect("rotate");
    let said = String::from_utf8(out).unwrap();
    assert_eq!(rotated.resealed as usize, before.len());
    let after = stored_keys(&url).await;
    assert!(before.iter().zip(&after).all(|(b, a)| a.starts_with("v1:") && a != b), "every key is sealed anew");

    let new = match &settings.secret_key {
        KeySetting::Given(_) => {
            // From ENGRAM_SECRET_KEY: the new key is printed once, for the operator to set.
            assert!(said.starts_with("New secret key (shown once):\n"), "{said}");
            assert!(said.contains("Set ENGRAM_SECRET_KEY to it on every server and restart them"), "{said}");
            KeySetting::Given(said.lines().nth(1).expect("the new key's line").to_string())
        }
        _ => {
            let file = key_file_beside(&url);
            assert_eq!(rotated.key_file.as_deref(), Some(file.as_path()));
            assert!(said.contains(&format!("now in {}", file.display())), "{said}");
            assert_eq!(mode(&file), 0o600);
            assert!(!PathBuf::from(format!("{}.new", file.display())).exists(), "moved into place once committed");
            let new_key = std::fs::read_to_string(&file).unwrap().trim().to_string();
            assert!(new_key != old_key && !said.contains(&new_key), "a key file's key is not printed");
            KeySetting::BesideDatabase
        }
    };
    let mut with_old = settings.clone();
    with_old.secret_key = KeySetting::Given(old_key);
    let refused = refused_start(with_old).await;
    assert!(refused.starts_with("the secret key does not open this database's connector keys"), "{refused}");

    let app = spawn_app_on_with(&url, move |s| s.secret_key = new).await;
    // The source refuses any key but the right one: a read that succeeds was sent the right key.
    let queries = app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = queries.iter().find(|q| q.label == "My open deals").expect("Sales has it");
    assert!(app.memory.prepare.run_query(&alice, open_deals).await.unwrap() >= 1, "read with Alice's own key");
    let lead = app.memory.mine.my_cards(&alice).await.unwrap().into_iter().find(|c| c.record_id == "L-1001").unwrap();
    assert_eq!(app.memory.reads.refresh(&alice, lead.card).await.unwrap(), RefreshOutcome::NoChange);
    let sue = person(&app, "sue").await;
    let ticket = app.memory.mine.my_cards(&sue).await.unwrap().into_iter().find(|c| c.record_id == "T-4411").unwrap();
    assert_eq!(app.memory.reads.refresh(&sue, ticket.card).await.unwrap(), RefreshOutcome::NoChange, "the company key");
    assert_eq!(app.store.company_key(1).await.unwrap().as_deref(), Some("acme-ats-company-key"));
}
