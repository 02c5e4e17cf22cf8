//! What every handler and page render shares. The routers and `startup` both use it; it uses neither.

use crate::http::security;
use app::shell;
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

#[derive(Clone)]
pub struct AppState {
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
        Self {
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
        }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// What every page render can use from context.
pub(crate) fn page_context(state: &AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    let (cores, org, auth) = (state.cores.clone(), state.org.clone(), state.auth.clone());
    let (bots, memory) = (state.bots.clone(), state.memory.clone());
    let (lists, runs, lessons) = (state.lists.clone(), state.runs.clone(), state.lessons.clone());
    let (nightly, drafter, erasures, operations) =
        (state.nightly.clone(), state.drafter.clone(), state.erasures.clone(), state.operations.clone());
    let (schedules, agent_tokens) = (state.schedules.clone(), state.agent_tokens.clone());
    let flash_seal = state.flash_seal.clone();
    move || {
        provide_context(cores.clone());
        provide_context(org.clone());
        provide_context(auth.clone());
        provide_context(bots.clone());
        provide_context(memory.clone());
        provide_context(lists.clone());
        provide_context(runs.clone());
        provide_context(lessons.clone());
        provide_context(nightly.clone());
        provide_context(drafter.clone());
        provide_context(erasures.clone());
        provide_context(operations.clone());
        provide_context(schedules.clone());
        provide_context(agent_tokens.clone());
        provide_context(flash_seal.clone());
    }
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
