//! What every handler and page render shares. The routers and `startup` both use it; it uses neither.

use crate::http::security;
use app::shell;
use app::ssr::PageServices;
use axum::extract::FromRef;
use engine::cards::service::PersonMemory;
use engine::cores::service::CoreService;
use engine::lessons::service::Lessons;
use engine::org::service::OrgService;
use engine::org::sign_in::AuthService;
use engine::persona::service::Bots;
use engine::runs::lists::ReferenceLists;
use engine::runs::service::Runs;
use engine::services::Services;
use engine::store::Store;
use engine::Clock;
use leptos::config::LeptosOptions;
use leptos::prelude::{provide_context, IntoView};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cloned for every request (axum hands each handler its own), so it is one shared pointer: its
/// services each hold many shared stores, and cloning them all was a fifth of a small page's time.
#[derive(Clone)]
pub struct AppState(Arc<AppParts>);

impl std::ops::Deref for AppState {
    type Target = AppParts;
    fn deref(&self) -> &AppParts {
        &self.0
    }
}

pub struct AppParts {
    pub leptos_options: LeptosOptions,
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub cores: CoreService,
    pub org: OrgService,
    pub auth: AuthService,
    pub bots: Bots,
    pub memory: PersonMemory,
    pub lists: ReferenceLists,
    pub runs: Runs,
    pub lessons: Lessons,
    pub nightly: engine::learning::nightly::Nightly,
    pub drafter: engine::learning::draft::CoreDrafter,
    pub erasures: engine::erasure::service::Erasures,
    pub operations: engine::operations::Operations,
    /// Posts to agents' triggers start their runs here.
    pub firing: engine::runs::schedules::Firing,
    pub schedules: engine::runs::schedules::Schedules,
    /// Company agents' tokens for outside agents acting for nobody.
    pub agent_tokens: engine::runs::agent_tokens::AgentTokens,
    /// Whether sign-in counts attempts by the address a proxy put in X-Forwarded-For.
    pub trust_forwarded_for: bool,
    /// Whether the company exists yet; until it does, every page leads to the setup.
    pub set_up: SetUpFlag,
    /// Seals the flash of a browser without a session, which keeps it in a cookie.
    pub flash_seal: app::flash_cookie::FlashSeal,
    /// The same services for pages' server functions, as their one context.
    pub page_services: Arc<PageServices>,
}

impl AppState {
    /// The state every handler shares: the services, and how the server was set up.
    pub fn new(
        leptos_options: LeptosOptions,
        services: Services,
        trust_forwarded_for: bool,
        flash_seal: app::flash_cookie::FlashSeal,
    ) -> Self {
        let Services {
            store,
            clock,
            cores,
            org,
            auth,
            bots,
            memory,
            lists,
            runs,
            lessons,
            nightly,
            drafter,
            erasures,
            operations,
            schedules,
            agent_tokens,
            // Embedding lessons is the timed jobs' and the services' own; no handler calls it.
            lesson_vectors: _,
            firing,
        } = services;
        let page_services = Arc::new(PageServices {
            cores: Arc::new(cores.clone()),
            org: Arc::new(org.clone()),
            auth: Arc::new(auth.clone()),
            bots: Arc::new(bots.clone()),
            memory: Arc::new(memory.clone()),
            lists: Arc::new(lists.clone()),
            runs: Arc::new(runs.clone()),
            lessons: Arc::new(lessons.clone()),
            nightly: Arc::new(nightly.clone()),
            drafter: Arc::new(drafter.clone()),
            erasures: Arc::new(erasures.clone()),
            operations: Arc::new(operations.clone()),
            schedules: Arc::new(schedules.clone()),
            agent_tokens: Arc::new(agent_tokens.clone()),
            flash_seal: flash_seal.clone(),
        });
        Self(Arc::new(AppParts {
            leptos_options,
            firing,
            store,
            clock,
            cores,
            org,
            auth,
            bots,
            memory,
            lists,
            runs,
            lessons,
            nightly,
            drafter,
            erasures,
            operations,
            schedules,
            agent_tokens,
            trust_forwarded_for,
            set_up: SetUpFlag::default(),
            flash_seal,
            page_services,
        }))
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// What every page render can use from context: the services, as one shared context.
pub(crate) fn page_context(state: &AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    let services = state.page_services.clone();
    move || provide_context(services.clone())
}

/// The app's shell, with the page's Content-Security-Policy for this render's nonce.
pub(crate) fn page_shell(options: LeptosOptions) -> impl IntoView {
    security::set_page_policy();
    shell(options)
}

/// Whether this server has seen the company exist. A company is never removed, so once true it
/// stays true and pages need no read for it; while false, each page reads the company, so a
/// server started on an empty database notices a setup made through another server.
#[derive(Clone, Default)]
pub struct SetUpFlag(Arc<AtomicBool>);

impl SetUpFlag {
    pub async fn is_set_up(&self, org: &OrgService) -> Result<bool, engine::store::StoreError> {
        if self.0.load(Ordering::Acquire) {
            return Ok(true);
        }
        let set_up = org.is_set_up().await?;
        if set_up {
            self.0.store(true, Ordering::Release);
        }
        Ok(set_up)
    }
}
