//! The roof's assembly: every service the engine offers, built once from the store, the clock and
//! what the host supplies. The server and its command line both build them here, so each service
//! is wired the same way wherever it is used.

use crate::cards::service::PersonMemory;
use crate::cards::source::Source;
use crate::cores::service::CoreService;
use crate::erasure::service::Erasures;
use crate::kernel::model::Models;
use crate::learning::draft::CoreDrafter;
use crate::learning::nightly::Nightly;
use crate::lessons::service::Lessons;
use crate::lessons::vectors::LessonVectors;
use crate::operations::{CoreBlockFiles, Operations};
use crate::org::service::OrgService;
use crate::org::sign_in::AuthService;
use crate::org::Person;
use crate::persona::memory_audit_checks::LiveChecks;
use crate::persona::service::{Bots, Caller, PersonaError, Wakes};
use crate::persona::vault::Vault;
use crate::runs::agent_tokens::AgentTokens;
use crate::runs::handon::{HandOnError, HandedTask, TaskDesk};
use crate::runs::lists::ReferenceLists;
use crate::runs::outbox::Outbox;
use crate::runs::schedules::Firing;
use crate::runs::schedules::Schedules;
use crate::runs::service::{AgentModels, Runs, Spawn};
use crate::store::Store;
use crate::Clock;
use async_trait::async_trait;
use std::sync::Arc;

/// What the host hands the services: its ways out to the world and the limits it was set up with.
#[derive(Clone)]
pub struct Adapters {
    /// Reads connected systems for cards and the who's-who lists.
    pub source: Arc<dyn Source>,
    /// The configured models: the bots' reflect, drafts of record shapes and cores, the nightly job.
    pub models: Arc<dyn Models>,
    /// The chat model agents answer people through.
    pub agent_models: Arc<dyn AgentModels>,
    /// The bots' files; without a vault there are no bots, and no boards to hand work on to.
    pub vault: Option<Arc<dyn Vault>>,
    /// The memory audit's checks against the providers themselves.
    pub live_checks: Arc<dyn LiveChecks>,
    /// Where approved emails go; without one, agents are not offered `send_email`.
    pub outbox: Option<Arc<dyn Outbox>>,
    /// The host's runtime, so runs are answered in the background.
    pub spawn: Spawn,
    /// Model calls across every bot per UTC day.
    pub reflect_max_per_day: u32,
    /// Model calls agents make answering people, per UTC day.
    pub ask_max_per_day: u32,
    /// The embedding model lessons are ranked by beside their words; without one, by words alone.
    pub embedder: Option<Arc<dyn crate::kernel::embed::Embedder>>,
}

/// Every service, built once.
#[derive(Clone)]
pub struct Services {
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
    pub nightly: Nightly,
    pub drafter: CoreDrafter,
    pub erasures: Erasures,
    pub operations: Operations,
    /// Setting agents' schedules, triggers and pauses.
    pub schedules: Schedules,
    /// Company agents' tokens for outside agents acting for nobody.
    pub agent_tokens: AgentTokens,
    /// Embedding lessons, where an embedder is configured; the timed jobs catch up with it.
    pub lesson_vectors: Option<LessonVectors>,
    /// What makes schedules and triggers fire: the timed jobs' tick and the trigger's URL.
    pub firing: Firing,
}

impl Services {
    pub fn build(store: Arc<dyn Store>, clock: Arc<dyn Clock>, adapters: Adapters) -> Self {
        let Adapters {
            source,
            models,
            agent_models,
            vault,
            live_checks,
            outbox,
            spawn,
            reflect_max_per_day,
            ask_max_per_day,
            embedder,
        } = adapters;
        let lesson_vectors = embedder.map(|e| LessonVectors::new(store.clone(), e, clock.clone()));
        let cores = CoreService::new(store.clone(), clock.clone());
        let auth = AuthService::new(store.clone(), clock.clone());
        // Every place that checks a person's password counts the same attempts.
        let org = OrgService::new(store.clone(), clock.clone()).sharing_throttle(auth.throttle());
        let has_vault = vault.is_some();
        let mut operations = Operations::new(store.clone(), clock.clone());
        if let Some(v) = &vault {
            operations = operations.with_core_blocks(Arc::new(VaultCoreBlocks(v.clone())));
        }
        let bots =
            Bots::new(store.clone(), clock.clone(), vault, models.clone(), reflect_max_per_day, Some(live_checks));
        let memory = PersonMemory::new(store.clone(), clock.clone(), source.clone()).with_models(models.clone());
        let lists = ReferenceLists::new(store.clone(), clock.clone(), source.clone());
        // The runs read the lists through their own, which logs a skipped connector on its own.
        let run_lists = ReferenceLists::new(store.clone(), clock.clone(), source);
        let mut runs =
            Runs::new(store.clone(), clock.clone(), memory.runs.clone(), run_lists, agent_models, ask_max_per_day)
                .with_spawn(spawn.clone());
        if let Some(v) = &lesson_vectors {
            runs = runs.with_lesson_vectors(v.clone());
        }
        // Without a vault there are no bots' boards to hand work on to.
        if has_vault {
            runs = runs.with_tasks(Arc::new(BotBoards(bots.wakes.clone())));
        }
        if let Some(outbox) = outbox {
            runs = runs.with_outbox(outbox);
        }
        let mut lessons = Lessons::new(store.clone(), clock.clone());
        if let Some(v) = &lesson_vectors {
            lessons = lessons.with_vectors(v.clone(), spawn);
        }
        let nightly = Nightly::new(store.clone(), clock.clone(), models.clone());
        let drafter = CoreDrafter::new(store.clone(), clock.clone(), models);
        let erasures = Erasures::new(store.clone(), clock.clone());
        let firing = Firing::new(store.clone(), runs.clone(), clock.clone());
        let schedules = Schedules::new(store.clone(), clock.clone());
        let agent_tokens = AgentTokens::new(store.clone(), clock.clone());
        Self {
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
            lesson_vectors,
            firing,
        }
    }
}

/// The bots' core blocks as Operations measures them: each bot's generated `core.md` in the vault.
struct VaultCoreBlocks(Arc<dyn Vault>);

#[async_trait]
impl CoreBlockFiles for VaultCoreBlocks {
    async fn core_blocks(&self) -> Result<(u64, u64), String> {
        // Where `persona::vault::core_path` keeps them: `.agents/org/memory/<bot>/core.md`.
        let files = self.0.markdown_under(".agents/org/memory").await.map_err(|e| e.to_string())?;
        let (mut n, mut bytes) = (0, 0);
        // One file a bot, each bounded by its memory block's limit.
        for path in files.iter().filter(|p| p.ends_with("/core.md")) {
            if let Some(text) = self.0.read(path).await.map_err(|e| e.to_string())? {
                n += 1;
                bytes += text.len() as u64;
            }
        }
        Ok((n, bytes))
    }
}

/// The bots' boards, as runs hand work on to them: an approved `create_task` is put on the bot's
/// board by the person who approved it, with the same rules as any task they create.
struct BotBoards(Wakes);

#[async_trait]
impl TaskDesk for BotBoards {
    async fn hand_on(&self, person: &Person, task: &HandedTask) -> Result<i64, HandOnError> {
        match self.0.create_task(&Caller::Person(person.clone()), &task.bot, &task.title, &task.body).await {
            Ok(t) => Ok(t.id),
            Err(PersonaError::Internal(detail)) => {
                tracing::error!(%detail, "a task handed on could not be created");
                Err(HandOnError::Internal(detail))
            }
            Err(e) => Err(HandOnError::Refused(e.to_string())),
        }
    }
}
