//! The operations on the bots' side: wakes, episodes, reflect, the core block, corrections and
//! self-improvement proposals. The CLI, `/api` and the pages all come through here.
//!
//! One use case to a type, each holding only the port of the stores it calls: `Wakes` (wake,
//! wake-done, episodes), `Reflect` (with the reflection cycle of `self_reflect`), `Improve`,
//! `SelfEdits`, `MemoryAudits` (`memory_audit*`), `BotPages` and, on the host, `BotTokens`.
//! What they share (the clock, the vault and roster, the models, who may do what) is in `env`.
//! This file holds their error, the caller, and `Bots`, which is each of them built once.

use super::memory_audit_checks::LiveChecks;
use super::model::Models;
use super::proposal::{OffLimits, ProposalRefusal};
use super::vault::{Roster, Vault, VaultError};
use crate::clock::Clock;
use crate::kernel::StoreError;
use crate::org::Person;
use crate::persona::store::BotPorts;
use std::sync::Arc;

#[cfg(feature = "server")]
mod bot_tokens;
mod env;
mod improve;
mod memory_audit;
mod memory_audit_report;
mod memory_audit_steps;
mod pages;
mod reflect;
mod self_edits;
mod self_reflect;
mod wakes;

pub use env::BotEnv;
pub use improve::{Improve, ImproveCard, ProposalOutcome};
pub use memory_audit::{AuditTarget, MemoryAudits, AUDITS_SHOWN};
pub use memory_audit_report::{describe, AuditReport, AuditState, AuditStatus};
pub use pages::{AgentPage, BotPages, RosterLine, Stats};
pub use reflect::{Reflect, ReflectOutcome, ReflectReport};
pub use self_edits::{SelfEdits, SelfProfile, SELF_EDITS_SHOWN};
pub use self_reflect::SelfReflectReport;
pub use wakes::{WakeDoneReport, WakeReport, Wakes};

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

/// Every use case of the bots, built once over one store. A plain holder: each field is its own
/// service, and a caller names the one it uses (`bots.self_edits.undo_self_edit(..)`).
#[derive(Clone)]
pub struct Bots {
    env: BotEnv,
    pub wakes: Wakes,
    pub reflect: Reflect,
    pub improve: Improve,
    pub self_edits: SelfEdits,
    pub memory_audits: MemoryAudits,
    pub pages: BotPages,
    #[cfg(feature = "server")]
    pub tokens: bot_tokens::BotTokens,
}

impl Bots {
    /// Without `checks` (the memory audit's checks of URLs and models) nothing is marked or
    /// corrected by an audit.
    pub fn new(
        store: Arc<dyn BotPorts>,
        clock: Arc<dyn Clock>,
        vault: Option<Arc<dyn Vault>>,
        models: Arc<dyn Models>,
        max_per_day: u32,
        checks: Option<Arc<dyn LiveChecks>>,
    ) -> Self {
        let env = BotEnv::new(clock, vault, models, max_per_day);
        let improve = Improve::new(store.clone(), env.clone());
        // Built once: the wakes and the pages hold clones of it, which share its count of each
        // bot's audits in the hour, as the server's clones of `Bots` do.
        let memory_audits = MemoryAudits::new(store.clone(), env.clone(), improve.clone(), checks);
        let reflect = Reflect::new(store.clone(), env.clone(), improve.clone());
        Self {
            wakes: Wakes::new(store.clone(), env.clone(), reflect.clone(), memory_audits.clone()),
            self_edits: SelfEdits::new(store.clone(), env.clone()),
            pages: BotPages::new(store.clone(), env.clone(), improve.clone(), memory_audits.clone()),
            #[cfg(feature = "server")]
            tokens: bot_tokens::BotTokens::new(store, env.clone()),
            reflect,
            improve,
            memory_audits,
            env,
        }
    }

    pub fn clock(&self) -> &dyn Clock {
        self.env.clock()
    }

    pub fn model_status(&self) -> String {
        self.env.model_status()
    }

    pub async fn roster(&self) -> Result<Roster, PersonaError> {
        self.env.roster().await
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
