//! Spawns the real server on port 0 with a fresh database and the demo company: a SQLite file,
//! or, with `ENGRAM_TEST_BACKEND=postgres`, a new database on the PostgreSQL server that
//! `ENGRAM_TEST_POSTGRES_URL` names (an admin URL; the database is dropped with the app).

use demo::company::{demo_email, seed_if_empty, DEMO_PASSWORD};
use engine::store::Store;
use engine::{Clock, ManualClock};
use reqwest::{Client, Response, StatusCode};
use serde_json::{json, Value};
use server::secrets::KeySetting;
use server::{Application, Settings};
use std::sync::Arc;
use tempfile::TempDir;

/// The secret key of the test servers on PostgreSQL.
pub const TEST_SECRET_KEY: &str = "dGVzdCBzZXJ2ZXJzJyBzZWNyZXQga2V5LCAzMiBieXQ=";

pub struct TestApp {
    pub base: String,
    pub database_url: String,
    /// What the server was built from, for running the CLI against the same database and vault.
    pub settings: Settings,
    /// The server's own store, for fixtures the API does not offer.
    pub store: Arc<dyn Store>,
    pub cores: engine::cores::service::CoreService,
    pub org: engine::org::service::OrgService,
    pub memory: engine::cards::service::PersonMemory,
    pub lists: engine::runs::lists::ReferenceLists,
    pub runs: engine::runs::service::Runs,
    pub nightly: engine::learning::nightly::Nightly,
    pub operations: engine::operations::Operations,
    /// Agents' schedules and triggers: tests call the tick the timed jobs would.
    pub firing: engine::runs::schedules::Firing,
    pub clock: Arc<ManualClock>,
    server: tokio::task::JoinHandle<Result<(), std::io::Error>>,
    dir: Option<TempDir>,
    /// The PostgreSQL database this app drops when it goes.
    owned: Option<PgDatabase>,
}

/// The backend the integration tests run on, from `ENGRAM_TEST_BACKEND` (`sqlite`, the default, or
/// `postgres`).
pub fn postgres_backend() -> bool {
    match std::env::var("ENGRAM_TEST_BACKEND").unwrap_or_default().as_str() {
        "" | "sqlite" => false,
        "postgres" => true,
        other => panic!("ENGRAM_TEST_BACKEND must be sqlite or postgres, not {other:?}"),
    }
}

/// A database of the test backend's kind: a file in `dir`, or a new PostgreSQL database.
async fn fresh_database(dir: &TempDir) -> (String, Option<PgDatabase>) {
    if postgres_backend() {
        let db = PgDatabase::create().await;
        (db.url.clone(), Some(db))
    } else {
        (format!("sqlite://{}/engram.db", dir.path().display()), None)
    }
}

pub async fn spawn_app() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, owned) = fresh_database(&dir).await;
    let mut app = spawn_with(&database_url, |_| {}).await;
    app.dir = Some(dir);
    app.owned = owned;
    app
}

/// The demo company on a new PostgreSQL database, whatever `ENGRAM_TEST_BACKEND` says.
pub async fn spawn_postgres_app() -> TestApp {
    let db = PgDatabase::create().await;
    let mut app = spawn_with(&db.url, |_| {}).await;
    app.dir = Some(tempfile::tempdir().expect("temp dir"));
    app.owned = Some(db);
    app
}

/// Starts a server on an existing (or new) database, as a restart would. A PostgreSQL database
/// handed over by `stop` is dropped when this app goes.
pub async fn spawn_app_on(database_url: &str) -> TestApp {
    spawn_app_on_with(database_url, |_| {}).await
}

/// As `spawn_app_on`, with the settings changed first.
pub async fn spawn_app_on_with(database_url: &str, configure: impl FnOnce(&mut Settings)) -> TestApp {
    let mut app = spawn_with(database_url, configure).await;
    app.owned = PgDatabase::adopt(database_url);
    app
}

/// The demo company on a fresh database of the test backend, with the settings changed first.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, owned) = fresh_database(&dir).await;
    let mut app = spawn_with(&database_url, configure).await;
    app.dir = Some(dir);
    app.owned = owned;
    app
}

/// The demo company with the models given.
pub async fn spawn_app_with_models(models: server::llm::ModelSettings) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, owned) = fresh_database(&dir).await;
    let mut app = spawn_with(&database_url, move |s| s.models = models).await;
    app.dir = Some(dir);
    app.owned = owned;
    app
}

/// The demo company, its agents answering through the stand-in model's OpenAI-compatible API
/// (`openai/stand-in`, a 2 s timeout); reflect is off, so only runs reach the stand-in.
pub async fn spawn_app_with_agent_model(stand_in: &crate::agent_model_server::AgentModelServer) -> TestApp {
    spawn_app_with_models(stand_in.openai_settings()).await
}

/// The demo company, serving a site folder with these files (paths under the site's root).
pub async fn spawn_app_with_site(files: &[(String, Vec<u8>)]) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let database_url = format!("sqlite://{}/engram.db", dir.path().display());
    let site = dir.path().join("site");
    for (path, bytes) in files {
        let path = site.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("make the site's folders");
        std::fs::write(path, bytes).expect("write a site file");
    }
    let mut app = spawn_with(&database_url, move |s| s.leptos.site_root = site.display().to_string().into()).await;
    app.dir = Some(dir);
    app
}

/// A server with the demo vault in its temporary folder, and the models and cap given.
pub async fn spawn_bots_app(models: server::llm::ModelSettings, max_per_day: u32) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, owned) = fresh_database(&dir).await;
    bots_app_on(dir, database_url, owned, models, max_per_day).await
}

/// `spawn_bots_app` on a new PostgreSQL database, whatever `ENGRAM_TEST_BACKEND` says.
pub async fn spawn_postgres_bots_app(models: server::llm::ModelSettings, max_per_day: u32) -> TestApp {
    let db = PgDatabase::create().await;
    let url = db.url.clone();
    bots_app_on(tempfile::tempdir().expect("temp dir"), url, Some(db), models, max_per_day).await
}

async fn bots_app_on(
    dir: TempDir,
    database_url: String,
    owned: Option<PgDatabase>,
    models: server::llm::ModelSettings,
    max_per_day: u32,
) -> TestApp {
    let vault = dir.path().join("vault");
    demo::bots::ensure_vault(&server::vault::FsVault::new(&vault)).await.expect("write the demo vault");
    let mut app = spawn_with(&database_url, move |s| {
        s.vault = Some(vault);
        s.models = models;
        s.reflect_max_per_day = max_per_day;
    })
    .await;
    app.dir = Some(dir);
    app.owned = owned;
    app
}

/// A server on a fresh database of the test backend with no company at all, as `engram serve`
/// first starts on an empty one.
pub async fn spawn_empty_app() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (database_url, owned) = fresh_database(&dir).await;
    let mut app = start(&database_url, |_| {}, false).await;
    app.dir = Some(dir);
    app.owned = owned;
    app
}

/// Another server on the database of `first`, not seeded, as a second server behind a load
/// balancer; the database stays `first`'s to drop.
pub async fn spawn_second_server(first: &TestApp) -> TestApp {
    start(&first.database_url, |_| {}, false).await
}

/// As `spawn_second_server`, with the settings changed first (the same model as the first, say).
pub async fn spawn_second_server_with(first: &TestApp, configure: impl FnOnce(&mut Settings)) -> TestApp {
    start(&first.database_url, configure, false).await
}

async fn spawn_with(database_url: &str, configure: impl FnOnce(&mut Settings)) -> TestApp {
    start(database_url, configure, true).await
}

/// Starts a server, seeding the demo company into an empty database when `seed` says so.
async fn start(database_url: &str, configure: impl FnOnce(&mut Settings), seed: bool) -> TestApp {
    let database_url = database_url.to_string();
    let mut settings = Settings::from_env();
    settings.database_url = database_url.clone();
    settings.vault = None;
    // No test reaches a model it did not start, whatever runs on this machine.
    settings.models = crate::model_server::no_models();
    settings.run_jobs = false;
    // A PostgreSQL database has no folder beside it for a key file; every server a test starts on
    // one (a restart, a second server) shares this key, as servers on one database share theirs.
    if !database_url.starts_with("sqlite:") && settings.secret_key == KeySetting::BesideDatabase {
        settings.secret_key = KeySetting::Given(TEST_SECRET_KEY.to_string());
    }
    configure(&mut settings);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let app = Application::build_with_clock(settings.clone(), listener, clock.clone() as Arc<dyn Clock>)
        .await
        .expect("build the app");
    if seed {
        seed_if_empty(app.store().as_ref()).await.expect("seed the demo");
    }
    let base = format!("http://127.0.0.1:{}", app.port());
    let store = app.store().clone();
    let cores = app.cores().clone();
    let org = app.org().clone();
    let memory = app.memory().clone();
    let lists = app.lists().clone();
    let runs = app.runs().clone();
    let nightly = app.nightly().clone();
    let operations = app.operations().clone();
    let firing = app.firing().clone();
    let server = tokio::spawn(app.run_until_stopped());
    TestApp {
        base,
        database_url,
        settings,
        store,
        cores,
        org,
        memory,
        lists,
        runs,
        nightly,
        operations,
        firing,
        clock,
        server,
        dir: None,
        owned: None,
    }
}

/// A database of its own on the test PostgreSQL server, so tests stay independent and parallel.
pub struct PgDatabase {
    pub url: String,
    admin: String,
    name: String,
}

const TEST_DATABASE_PREFIX: &str = "t_";

impl PgDatabase {
    fn admin_url() -> String {
        std::env::var("ENGRAM_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty()).expect(
            "set ENGRAM_TEST_POSTGRES_URL to a PostgreSQL admin URL, e.g. \
             postgres://postgres@127.0.0.1:5432/postgres (scripts/check starts a server and sets it)",
        )
    }

    fn url_for(admin: &str, name: &str) -> String {
        let mut url = reqwest::Url::parse(admin).expect("ENGRAM_TEST_POSTGRES_URL is a URL");
        url.set_path(name);
        url.to_string()
    }

    pub async fn create() -> Self {
        use sqlx::Connection;
        let admin = Self::admin_url();
        let name = format!("{TEST_DATABASE_PREFIX}{:016x}", rand::random::<u64>());
        let mut conn = sqlx::PgConnection::connect(&admin).await.expect("connect to ENGRAM_TEST_POSTGRES_URL");
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut conn).await.expect("create a test database");
        conn.close().await.ok();
        Self { url: Self::url_for(&admin, &name), admin, name }
    }

    /// The test database a URL names, if it is one.
    fn adopt(url: &str) -> Option<Self> {
        let name = url.strip_prefix("postgres")?.rsplit('/').next()?.split('?').next()?.to_string();
        name.starts_with(TEST_DATABASE_PREFIX).then(|| {
            let admin = Self::admin_url();
            Self { url: url.to_string(), admin, name }
        })
    }
}

impl Drop for PgDatabase {
    /// Drops the database, closing whatever connections remain; from a thread of its own, since
    /// a test's runtime cannot block on its own work.
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            rt.block_on(async {
                use sqlx::Connection;
                let mut conn = sqlx::PgConnection::connect(&admin).await.ok()?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).execute(&mut conn).await.ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(_))) {
            tracing::warn!(database = %self.name, "could not drop a test database");
        }
    }
}

/// A browser-like client: keeps cookies, does not follow redirects.
/// Two lines a nightly job might suggest for the demo's cores (the Support company core and the
/// Sales Bengaluru team core), for tests about suggestions rather than the job.
pub async fn suggest_demo_lines(app: &TestApp) {
    use engine::cores::CoreScope;
    let support = CoreScope::parse("company:role:support").unwrap();
    app.cores
        .suggest_core_line(
            &support,
            "Refunds over $500 need the team lead's approval before they are promised.",
            "Three refunds over $500 were promised in October and then reversed by a lead.",
            "Decisions by Sue Park on tickets T-1042, T-1057 and T-1090.",
            "nightly job",
        )
        .await
        .unwrap();
    let team = app.store.directory().await.unwrap().teams.into_iter().find(|t| t.name == "Sales Bengaluru").unwrap();
    app.cores
        .suggest_core_line(
            &CoreScope::Team(team.id),
            "Quote prices in INR first, then USD.",
            "Customers in Bengaluru asked for INR in four of the last five proposals.",
            "Decisions by Sam Rao on deals D-311, D-318, D-322 and D-340.",
            "nightly job",
        )
        .await
        .unwrap();
}

pub fn client() -> Client {
    Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("client")
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // The server goes before its database does.
        self.server.abort();
    }
}

impl TestApp {
    /// Stops the server and hands back its database folder, so another server can open it. A
    /// PostgreSQL database is kept for the server that `spawn_app_on` starts on it next.
    pub async fn stop(mut self) -> TempDir {
        self.server.abort();
        let _ = (&mut self.server).await;
        std::mem::forget(self.owned.take());
        self.dir.take().expect("a database folder")
    }

    pub fn vault(&self) -> std::path::PathBuf {
        self.settings.vault.clone().expect("a vault")
    }

    /// The vault as the server reads and writes it.
    pub fn fs_vault(&self) -> std::sync::Arc<dyn engine::persona::vault::Vault> {
        std::sync::Arc::new(server::vault::FsVault::new(self.vault()))
    }

    /// Runs `engram org <args>` in process against this server's database and vault.
    pub async fn org_cli(&self, args: &[&str]) -> Result<String, server::bots_cli::CliError> {
        use clap::Parser;
        let parsed = server::cli::Cli::try_parse_from(["engram", "org"].iter().chain(args))
            .map_err(|e| server::bots_cli::CliError { code: e.exit_code() as u8, message: e.to_string() })?;
        let Some(server::cli::Command::Org(org)) = parsed.command else { panic!("not an org command: {args:?}") };
        let mut out = Vec::new();
        server::bots_cli::run(&org, &self.settings, &mut out).await?;
        Ok(String::from_utf8(out).expect("utf-8"))
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Signs a demo person in and returns their client.
    pub async fn sign_in(&self, login: &str) -> Client {
        let c = client();
        let r = self.post_sign_in(&c, &demo_email(login), DEMO_PASSWORD).await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "sign-in as {login}");
        assert_eq!(r.headers()["location"], "/");
        c
    }

    pub async fn post_sign_in(&self, c: &Client, email: &str, password: &str) -> Response {
        c.post(self.url("/auth/sign-in"))
            .form(&[("email", email), ("password", password), ("next", "/")])
            .send()
            .await
            .expect("sign-in request")
    }

    pub async fn save_core(&self, c: &Client, scope: &str, based_on: u32, text: &str) -> Response {
        c.post(self.url(&format!("/api/memory/cores/{scope}")))
            .json(&json!({ "based_on": based_on, "text": text, "note": "" }))
            .send()
            .await
            .expect("save request")
    }

    pub async fn get_json(&self, c: &Client, path: &str) -> (StatusCode, Value) {
        let r = c.get(self.url(path)).send().await.expect("get");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// A plain HTML form post, as a browser without JavaScript sends it.
    pub async fn form_post(&self, c: &Client, path: &str, fields: &[(&str, &str)]) -> Response {
        c.post(self.url(path))
            .header("accept", "text/html")
            .header("origin", &self.base)
            .header("sec-fetch-site", "same-origin")
            .form(fields)
            .send()
            .await
            .expect("form post")
    }

    /// Announces a body of `len` bytes without sending it, and returns the status line's code.
    ///
    /// A server that refuses by the announced length answers at once and closes the connection;
    /// a client still writing the body may then lose that answer to the reset, so sending the body
    /// itself would race the server.
    pub async fn status_for_announced_body(&self, path: &str, content_type: &str, len: usize) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let host = self.base.trim_start_matches("http://");
        let mut conn = tokio::net::TcpStream::connect(host).await.expect("connect");
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {}\r\nContent-Type: {content_type}\r\n\
             Content-Length: {len}\r\nConnection: close\r\n\r\n",
            self.base
        );
        conn.write_all(head.as_bytes()).await.expect("send the head");
        let mut answer = Vec::new();
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), conn.read_to_end(&mut answer));
        read.await.expect("the server answers without the body").expect("read the answer");
        let line = String::from_utf8_lossy(&answer);
        line.split(' ').nth(1).and_then(|code| code.parse().ok()).expect("a status line")
    }

    /// A page's HTML, without the renderer's hydration markers.
    pub async fn page(&self, c: &Client, path: &str) -> (StatusCode, String) {
        let r = c.get(self.url(path)).send().await.expect("page");
        (r.status(), plain(&r.text().await.unwrap_or_default()))
    }
}

/// Text of a page with the renderer's hydration markers taken out.
/// A personal API token of `login`'s, made in a signed-in session.
pub async fn token_for(app: &TestApp, login: &str) -> String {
    let c = app.sign_in(login).await;
    let r = c.post(app.url("/api/tokens")).json(&serde_json::json!({"name": "test"})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await["token"].as_str().unwrap().to_string()
}

/// A JSON POST with a bearer token: the status and the JSON answer (null when there is none).
pub async fn bearer_post(app: &TestApp, token: &str, path: &str, b: Value) -> (StatusCode, Value) {
    let r = Client::new().post(app.url(path)).bearer_auth(token).json(&b).send().await.unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// A GET with a bearer token: the status and the JSON answer (null when there is none).
pub async fn bearer_get(app: &TestApp, token: &str, path: &str) -> (StatusCode, Value) {
    let r = Client::new().get(app.url(path)).bearer_auth(token).send().await.unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

pub fn plain(html: &str) -> String {
    html.replace("<!>", "")
}

pub async fn body(r: Response) -> Value {
    r.json().await.unwrap_or(Value::Null)
}
