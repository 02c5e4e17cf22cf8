use crate::adapters::agent_model::ConfiguredAgentModels;
use crate::adapters::connector::HttpSource;
use crate::adapters::llm::ConfiguredModels;
use crate::adapters::vault::FsVault;
use crate::http::state::{page_context, page_shell, AppState};
use crate::http::{api, auth, guard, idempotency, request_id, security, statics};
use crate::secrets;
use crate::settings::Settings;
use crate::store::AnyStore;
use app::App;
use axum::handler::Handler;
use axum::routing::post;
use axum::serve::ListenerExt;
use axum::{middleware, Router};
use engine::cards::service::PersonMemory;
use engine::cores::service::CoreService;
use engine::learning::nightly::Nightly;
use engine::org::service::OrgService;
use engine::org::sign_in::AuthService;
use engine::persona::service::Bots;
use engine::persona::vault::Vault;
use engine::runs::lists::ReferenceLists;
use engine::runs::outbox::Outbox;
use engine::runs::service::{Runs, Spawn};
use engine::services::{Adapters, Services};
use engine::store::Store;
use engine::{Clock, SystemClock};
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower_sessions::cookie::SameSite;
use tower_sessions::session::{Id, Record};
use tower_sessions::{session_store, ExpiredDeletion, Expiry, SessionManagerLayer, SessionStore};
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore as SqliteSessions};

/// The app's routes, generated once per process.
///
/// Generating them renders the app with resource loading switched off, and leptos_server keeps that
/// switch in one process-wide flag. A page that another server in the same process renders at that
/// moment would create resources that never load, and its response would never come. Before the
/// first server is built no other can be serving, so generating once, then, is safe.
fn app_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("could not open the database: {0}")]
    Database(String),
    #[error(transparent)]
    Secrets(#[from] secrets::SecretError),
    #[error("could not set up sessions: {0}")]
    Sessions(String),
    #[error("could not serve: {0}")]
    Io(#[from] std::io::Error),
}

pub struct Application {
    listener: TcpListener,
    router: Router,
    services: Services,
    run_jobs: bool,
}

impl Application {
    /// Builds the whole server on a listener the caller bound, so tests can use port 0.
    pub async fn build(settings: Settings, listener: TcpListener) -> Result<Self, StartupError> {
        Self::build_with_clock(settings, listener, Arc::new(SystemClock)).await
    }

    /// As `build`, with the clock that sessions, versions and audit rows are stamped by.
    pub async fn build_with_clock(
        settings: Settings,
        listener: TcpListener,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, StartupError> {
        if let Some(path) = settings.database_url.strip_prefix("sqlite://").and_then(|p| p.split('?').next()) {
            if let Some(dir) = std::path::Path::new(path).parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
        }
        let opened = AnyStore::open(&settings.database_url).await.map_err(|e| StartupError::Database(e.to_string()))?;
        // Before anything is served: a wrong or missing key stops the start here, never a source's read later.
        let (opened, secret_box) =
            secrets::unlock_store(opened, &settings.secret_key, &settings.database_url, clock.now()).await?;
        let store = opened.shared();
        let services = Services::build(store.clone(), clock.clone(), adapters(&settings));
        match services.runs.answering.end_stale().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(runs = n, "runs a stopped server left unanswered were ended plainly"),
            Err(e) => tracing::warn!(error = %e, "runs left unanswered were not checked"),
        }

        let sessions = Sessions::open(&opened).await.map_err(|e| StartupError::Sessions(e.to_string()))?;
        tokio::spawn({
            let sessions = sessions.clone();
            async move {
                if let Err(e) = sessions.continuously_delete_expired(tokio::time::Duration::from_secs(600)).await {
                    tracing::error!(error = %e, "expired session clean-up stopped");
                }
            }
        });
        let session_layer = SessionManagerLayer::new(sessions)
            .with_name("engram_session")
            .with_http_only(true)
            .with_same_site(SameSite::Lax)
            .with_secure(settings.secure_cookies)
            .with_expiry(Expiry::OnInactivity(tower_sessions::cookie::time::Duration::minutes(
                settings.session_idle_minutes,
            )));

        let mut leptos_options = settings.leptos.clone();
        leptos_options.site_addr = listener.local_addr()?;
        let state = AppState::new(
            leptos_options.clone(),
            services.clone(),
            settings.trust_forwarded_for,
            app::flash_cookie::FlashSeal { seal: secret_box, secure: settings.secure_cookies },
        );
        let routes = app_routes();
        let pkg_dir = leptos_options.site_pkg_dir.to_string();

        let router = Router::new()
            .route("/auth/sign-in", post(auth::sign_in))
            .route("/auth/sign-out", post(auth::sign_out))
            .merge(crate::http::people_import_api::page_router(settings.public_url.clone()))
            .nest(
                "/api",
                api::router()
                    .merge(crate::http::runs_api::router())
                    .merge(crate::http::trigger_api::router())
                    .merge(crate::http::inbox_api::router())
                    .merge(crate::http::knowledge_api::router())
                    .merge(crate::http::bots_api::people_router())
                    .merge(crate::http::agents_api::router())
                    .merge(crate::http::schedules_api::router())
                    .merge(crate::http::agent_tokens_api::router())
                    .merge(crate::http::people_api::router())
                    .merge(crate::http::teams_api::router())
                    .merge(crate::http::erasure_api::router())
                    .merge(crate::http::ops_api::router())
                    .merge(crate::http::people_import_api::api_router(settings.public_url.clone()))
                    .fallback(api::no_such_route)
                    .layer(middleware::from_fn_with_state(state.clone(), idempotency::layer))
                    .layer(middleware::from_fn(api::json_refusals)),
            )
            .nest(
                "/api/org",
                crate::http::bots_api::router()
                    .fallback(api::no_such_route)
                    .layer(middleware::from_fn_with_state(state.clone(), idempotency::layer))
                    .layer(middleware::from_fn(api::json_refusals)),
            )
            .merge(crate::http::mcp::router(&state))
            .nest(&format!("/{pkg_dir}"), statics::pkg_router(&leptos_options.site_root, &pkg_dir))
            .leptos_routes_with_context(&state, routes, page_context(&state), {
                let options = leptos_options.clone();
                move || page_shell(options.clone())
            })
            .fallback_service(statics::site_files(
                &leptos_options.site_root,
                // With the services in context, as the pages have them: a page for an unknown path
                // renders the signed-in frame like any other.
                leptos_axum::file_and_error_handler_with_context::<AppState, _>(page_context(&state), page_shell)
                    .with_state(state.clone()),
            ))
            .layer(middleware::from_fn_with_state(state.clone(), guard::pages_need_sign_in))
            .layer(middleware::from_fn_with_state(state.clone(), crate::http::setup::first_run))
            .layer(session_layer)
            .layer(middleware::from_fn(guard::same_origin_writes))
            .layer(middleware::from_fn_with_state(
                settings.body_limit_bytes,
                crate::http::people_import_api::body_limit,
            ))
            .layer(middleware::from_fn(security::headers))
            .layer(middleware::from_fn(request_id::span))
            .with_state(state);

        Ok(Self { listener, router, services, run_jobs: settings.run_jobs })
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.services.store
    }

    pub fn cores(&self) -> &CoreService {
        &self.services.cores
    }

    pub fn org(&self) -> &OrgService {
        &self.services.org
    }

    pub fn auth(&self) -> &AuthService {
        &self.services.auth
    }

    pub fn bots(&self) -> &Bots {
        &self.services.bots
    }

    pub fn memory(&self) -> &PersonMemory {
        &self.services.memory
    }

    pub fn lists(&self) -> &ReferenceLists {
        &self.services.lists
    }

    pub fn runs(&self) -> &Runs {
        &self.services.runs
    }

    pub fn nightly(&self) -> &Nightly {
        &self.services.nightly
    }

    pub fn firing(&self) -> &engine::runs::schedules::Firing {
        &self.services.firing
    }

    pub fn operations(&self) -> &engine::operations::Operations {
        &self.services.operations
    }

    /// Serves until stopped. The timed jobs start here, not in `build`: what the caller does
    /// between the two (the demo's first day of work, say) is done before any job can claim the
    /// day, or the nightly job would run over a half-made company and the demo's own run of it
    /// would find the day taken.
    pub async fn run_until_stopped(self) -> Result<(), std::io::Error> {
        if self.run_jobs {
            crate::jobs::spawn_jobs(&self.services);
        }
        // Without TCP_NODELAY, a response written in two parts (a file's head, then its body)
        // waits for the client's delayed ACK, some 40 ms per file on a kept-alive connection.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::warn!(error = %e, "could not set TCP_NODELAY on a connection");
            }
        });
        // Sign-in counts attempts by the connected address.
        let service = self.router.into_make_service_with_connect_info::<SocketAddr>();
        axum::serve(listener, service).with_graceful_shutdown(shutdown_signal()).await
    }
}

/// What the server hands the engine's services, from its settings: the connectors' reads, the
/// configured models (probed now, in the background), the vault, the live checks, the outbox and
/// the runtime that answers runs in the background.
pub fn adapters(settings: &Settings) -> Adapters {
    adapters_with(settings, ConfiguredModels::start(settings.models.clone()))
}

/// As `adapters`, for a command that only reads: the models are probed only if one is called.
pub fn reading_adapters(settings: &Settings) -> Adapters {
    adapters_with(settings, ConfiguredModels::new(settings.models.clone()))
}

fn adapters_with(settings: &Settings, models: ConfiguredModels) -> Adapters {
    let spawn: Spawn = Arc::new(|f| {
        tokio::spawn(f);
    });
    Adapters {
        source: Arc::new(HttpSource::new(&settings.models.outbound)),
        models: Arc::new(models),
        agent_models: Arc::new(ConfiguredAgentModels::new(&settings.models)),
        vault: settings.vault.as_ref().map(|v| Arc::new(FsVault::new(v)) as Arc<dyn Vault>),
        live_checks: Arc::new(crate::adapters::live_checks::HttpLiveChecks::new(settings.models.clone())),
        outbox: settings.outbox_url.as_ref().map(|url| {
            Arc::new(crate::adapters::outbox::HttpOutbox::new(url, &settings.models.outbound)) as Arc<dyn Outbox>
        }),
        spawn,
        reflect_max_per_day: settings.reflect_max_per_day,
        ask_max_per_day: settings.ask_max_per_day,
        embedder: settings.embed.clone().map(|e| {
            Arc::new(crate::adapters::embed::HttpEmbedder::new(e, &settings.models.outbound))
                as Arc<dyn engine::kernel::embed::Embedder>
        }),
    }
}

/// Sessions live in the same database as everything else, so that several servers on one
/// PostgreSQL database share them.
#[derive(Clone, Debug)]
enum Sessions {
    Sqlite(SqliteSessions),
    Postgres(PostgresStore),
}

impl Sessions {
    /// Creates the session table if it is missing.
    async fn open(store: &AnyStore) -> Result<Self, sqlx::Error> {
        Ok(match store {
            AnyStore::Sqlite(s) => {
                let sessions = SqliteSessions::new(s.pool().clone());
                sessions.migrate().await?;
                Sessions::Sqlite(sessions)
            }
            AnyStore::Postgres(s) => {
                let sessions = PostgresStore::new(s.pool().clone());
                sessions.migrate().await?;
                Sessions::Postgres(sessions)
            }
        })
    }
}

#[async_trait::async_trait]
impl SessionStore for Sessions {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.create(record).await,
            Sessions::Postgres(s) => s.create(record).await,
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.save(record).await,
            Sessions::Postgres(s) => s.save(record).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        match self {
            Sessions::Sqlite(s) => s.load(id).await,
            Sessions::Postgres(s) => s.load(id).await,
        }
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.delete(id).await,
            Sessions::Postgres(s) => s.delete(id).await,
        }
    }
}

#[async_trait::async_trait]
impl ExpiredDeletion for Sessions {
    async fn delete_expired(&self) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(s) => s.delete_expired().await,
            Sessions::Postgres(s) => s.delete_expired().await,
        }
    }
}

async fn shutdown_signal() {
    if let Err(e) = tokio::signal::ctrl_c().await {
        tracing::error!(error = %e, "could not listen for ctrl-c");
        std::future::pending::<()>().await;
    }
}
