//! The operations on the bots' side: wakes, episodes, reflect, the core block, corrections and
//! self-improvement proposals. The CLI, `/api` and the pages all come through here.
//!
//! One use case to a file: `wakes` (wake, wake-done, episodes), `reflect`, `improve`, `self_edits`,
//! `self_reflect`, `memory_audit` and `pages`.
//! This file holds the service, its error, who may do what, and the steps they share.

use super::backlog::MemoryRow;
use super::config::MemoryConfig;
use super::memory_audit_checks::LiveChecks;
use super::model::Models;
use super::proposal::{check_vault_path, OffLimits, ProposalRefusal};
use super::render::{render_core, RenderedCore};
use super::vault::{core_path, load_roster, Link, Roster, RosterAgent, Vault, VaultError};
use crate::clock::Clock;
use crate::kernel::StoreError;
use crate::org::Person;
use crate::persona::store::BotPorts;
use chrono::{DateTime, NaiveTime, Utc};
use std::sync::Arc;

mod improve;
mod memory_audit;
mod memory_audit_report;
mod memory_audit_steps;
mod pages;
mod reflect;
mod self_edits;
mod self_reflect;
mod wakes;

pub use improve::{ImproveCard, ProposalOutcome};
pub use memory_audit::{AuditTarget, AUDITS_SHOWN};
pub use memory_audit_report::{describe, AuditReport, AuditState, AuditStatus};
pub use pages::{AgentPage, RosterLine, Stats};
pub use reflect::{ReflectOutcome, ReflectReport};
pub use self_edits::{SelfProfile, SELF_EDITS_SHOWN};
pub use self_reflect::SelfReflectReport;
pub use wakes::{WakeDoneReport, WakeReport};

pub const DEFAULT_MAX_PER_DAY: u32 = 200;
const MAX_TEXT_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PersonaError {
    #[error("{0}")]
    Vault(VaultError),
    #[error("There is no agent named {0} on the roster")]
    NotOnRoster(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}")]
    Invalid(String),
    /// The text holds a secret; nothing was saved or recorded.
    #[error("{0}")]
    Secret(crate::secrets::SecretRefusal),
    #[error("{0}")]
    NotFound(String),
    /// Someone else changed it first; nothing was written.
    #[error("{0}")]
    Changed(String),
    /// Asked for too often; nothing was done.
    #[error("{0}")]
    Throttled(String),
    #[error("{0}")]
    Refused(ProposalRefusal),
    /// A wake's transcript the memory steps will not read; nothing was changed.
    #[error("The transcript {path} was refused: {why}")]
    TranscriptRefused { path: String, why: OffLimits },
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

/// A store failure is the backend's, never the person's: it becomes this error's internal case,
/// whose detail is logged at the edge and never shown.
impl From<StoreError> for PersonaError {
    fn from(e: StoreError) -> Self {
        PersonaError::Internal(e.to_string())
    }
}

/// Who is asking. The operator is the local command line on the host, which the dispatcher runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Operator,
    Person(Person),
    Bot(String),
}

impl Caller {
    fn label(&self) -> String {
        match self {
            Caller::Operator => "operator".to_string(),
            Caller::Person(p) => format!("person:{}", p.email),
            Caller::Bot(a) => format!("agent:{a}"),
        }
    }
}

#[derive(Clone)]
pub struct Bots {
    store: Arc<dyn BotPorts>,
    clock: Arc<dyn Clock>,
    vault: Option<Arc<dyn Vault>>,
    models: Arc<dyn Models>,
    max_per_day: u32,
    /// The memory audit's checks of URLs and models; without them nothing is marked or corrected.
    checks: Option<Arc<dyn LiveChecks>>,
    /// When each bot last asked for its own audits, for the hourly limit.
    bot_audits: memory_audit::BotAuditRequests,
}

fn one_line(text: &str, what: &str) -> Result<String, PersonaError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(PersonaError::Invalid(format!("Write the {what}; it cannot be empty")));
    }
    if t.contains('\n') {
        return Err(PersonaError::Invalid(format!("The {what} must be one line")));
    }
    if t.chars().count() > MAX_TEXT_CHARS {
        return Err(PersonaError::Invalid(format!("The {what} can be at most {MAX_TEXT_CHARS} characters")));
    }
    // Every line a person or a bot writes here is kept in a bot's memory or its log.
    crate::secrets::refuse(&format!("The {what}"), t).map_err(PersonaError::Secret)?;
    Ok(t.to_string())
}

impl Bots {
    pub fn new(
        store: Arc<dyn BotPorts>,
        clock: Arc<dyn Clock>,
        vault: Option<Arc<dyn Vault>>,
        models: Arc<dyn Models>,
        max_per_day: u32,
    ) -> Self {
        Self { store, clock, vault, models, max_per_day, checks: None, bot_audits: Default::default() }
    }

    pub fn with_live_checks(mut self, checks: Arc<dyn LiveChecks>) -> Self {
        self.checks = Some(checks);
        self
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    pub fn store(&self) -> &dyn BotPorts {
        self.store.as_ref()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn vault(&self) -> Result<&dyn Vault, PersonaError> {
        self.vault.as_deref().ok_or(PersonaError::Vault(VaultError::NotConfigured))
    }

    pub fn model_status(&self) -> String {
        self.models.describe()
    }

    pub async fn roster(&self) -> Result<Roster, PersonaError> {
        load_roster(self.vault()?).await.map_err(PersonaError::Vault)
    }

    async fn agent(&self, name: &str) -> Result<(Roster, RosterAgent), PersonaError> {
        let roster = self.roster().await?;
        let agent = roster.get(name).cloned().ok_or_else(|| PersonaError::NotOnRoster(name.to_string()))?;
        Ok((roster, agent))
    }

    fn may_read(caller: &Caller, agent: &str) -> Result<(), PersonaError> {
        match caller {
            Caller::Bot(b) if b != agent => {
                Err(PersonaError::NotAllowed(format!("A bot reads only its own memory, and this is {b}")))
            }
            _ => Ok(()),
        }
    }

    /// The dispatcher's actions: the operator, or the bot's owner.
    fn may_dispatch(caller: &Caller, agent: &RosterAgent) -> Result<(), PersonaError> {
        match caller {
            Caller::Operator => Ok(()),
            Caller::Person(p) if agent.is_owner(&p.email) => Ok(()),
            Caller::Person(_) => {
                Err(PersonaError::NotAllowed(format!("Only {}'s owner can report its runs", agent.name)))
            }
            Caller::Bot(_) => Err(PersonaError::NotAllowed(
                "A bot's own token cannot write its memory or episodes; its owner's side does".to_string(),
            )),
        }
    }

    /// Corrections and proposals: the owner or the bot's lead, as themselves.
    fn may_correct<'a>(caller: &'a Caller, agent: &RosterAgent) -> Result<&'a Person, PersonaError> {
        match caller {
            Caller::Person(p) if agent.is_owner_or_lead(&p.email) => Ok(p),
            Caller::Bot(_) => Err(PersonaError::NotAllowed(
                "A bot's own token cannot change memory; its owner or lead does".to_string(),
            )),
            _ => Err(PersonaError::NotAllowed(format!(
                "Only {}'s owner or lead can change its memory or its improve cards",
                agent.name
            ))),
        }
    }

    fn valid_config(agent: &RosterAgent) -> Result<&MemoryConfig, String> {
        agent.memory.as_ref().map(|c| &c.config).map_err(|e| {
            format!("{}'s memory block is refused ({e}); the memory steps wait until it is fixed", agent.name)
        })
    }

    async fn owner_id(&self, a: &RosterAgent) -> Result<Option<crate::org::PersonId>, PersonaError> {
        Ok(self.store.credentials(&a.owner).await?.map(|(p, _)| p.id))
    }

    async fn claim_call(&self, agent: &str, purpose: &str) -> Result<bool, PersonaError> {
        let now = self.now();
        let day_start = now.date_naive().and_time(NaiveTime::MIN).and_utc();
        self.store.claim_model_call(agent, purpose, day_start, self.max_per_day, now).await.map_err(Into::into)
    }

    /// Re-renders the agent's core.md from its active rows. A failed write is logged: the rows
    /// are the record, and the next write renders again.
    async fn render(&self, a: &RosterAgent) -> Option<RenderedCore> {
        let budget = a.memory.as_ref().map(|c| c.config.core_budget_tokens).ok()?;
        let rows = match self.store.memory_rows(&a.name, false).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent = a.name, error = %e, "core.md was not rendered");
                return None;
            }
        };
        let lines: Vec<_> = rows.iter().map(MemoryRow::line).collect();
        let core = render_core(&a.name, &lines, budget);
        if let Ok(vault) = self.vault() {
            if let Err(e) = vault.write(&core_path(&a.name), &core.text).await {
                tracing::warn!(agent = a.name, error = %e, "core.md was not written");
            }
        }
        Some(core)
    }

    /// The validator's path rule on the vault as it is on disk: [`check_vault_path`], then whether
    /// the path goes through a symbolic link or is a hard link, either of which may lead out of
    /// the vault or into a protected file under another name. Proposal targets and transcripts
    /// both pass here; `refuse` words the refusal for what the path was wanted for.
    async fn gate(&self, path: &str, refuse: impl Fn(OffLimits) -> PersonaError) -> Result<(), PersonaError> {
        check_vault_path(path).map_err(&refuse)?;
        match self.vault()?.link(path).await {
            Ok(None) => Ok(()),
            Ok(Some(Link::Symbolic)) => Err(refuse(OffLimits::Symlink)),
            Ok(Some(Link::Hard)) => Err(refuse(OffLimits::HardLink)),
            Err(VaultError::Outside { .. }) => Err(refuse(OffLimits::EscapesVault)),
            Err(e) => Err(PersonaError::Vault(e)),
        }
    }
}

impl crate::error::UserSafe for PersonaError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            PersonaError::Vault(_) => crate::error::ErrorKind::Unavailable,
            PersonaError::NotOnRoster(_) | PersonaError::NotFound(_) => crate::error::ErrorKind::NotFound,
            PersonaError::NotAllowed(_) => crate::error::ErrorKind::NotAllowed,
            PersonaError::Invalid(_)
            | PersonaError::Secret(_)
            | PersonaError::Refused(_)
            | PersonaError::TranscriptRefused { .. } => crate::error::ErrorKind::Invalid,
            PersonaError::Changed(_) => crate::error::ErrorKind::Conflict,
            PersonaError::Throttled(_) => crate::error::ErrorKind::Throttled,
            PersonaError::Internal(_) => crate::error::ErrorKind::Internal,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            PersonaError::Vault(_) => "vault",
            PersonaError::NotOnRoster(_) => "not_on_roster",
            PersonaError::NotAllowed(_) => "not_allowed",
            PersonaError::Invalid(_) => "invalid",
            PersonaError::Secret(_) => "secret",
            PersonaError::NotFound(_) => "not_found",
            PersonaError::Changed(_) => "changed",
            PersonaError::Throttled(_) => "throttled",
            PersonaError::Refused(_) => "proposal_refused",
            PersonaError::TranscriptRefused { .. } => "transcript_refused",
            PersonaError::Internal(_) => "internal",
        }
    }

    fn internal_detail(&self) -> Option<String> {
        match self {
            PersonaError::Internal(detail) => Some(detail.clone()),
            _ => None,
        }
    }
}
