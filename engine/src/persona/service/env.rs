//! What every use case of the bots works with besides its own store: the clock, the vault and the
//! roster in it, the models and the day's cap on their calls; and the rules they all apply to a
//! caller and to what is written. Kept here once so that each use case holds only its own port.

use super::{Caller, PersonaError, WakeReport, MAX_TEXT_CHARS};
use crate::clock::Clock;
use crate::org::store::OrgStore;
use crate::org::{Person, PersonId};
use crate::persona::backlog::MemoryRow;
use crate::persona::config::MemoryConfig;
use crate::persona::model::Models;
use crate::persona::proposal::{check_vault_path, OffLimits};
use crate::persona::render::{render_core, RenderedCore};
use crate::persona::store::PersonaStore;
use crate::persona::vault::{core_path, load_roster, Link, Roster, RosterAgent, Vault, VaultError};
use chrono::{DateTime, NaiveTime, Utc};
use std::sync::Arc;

#[derive(Clone)]
pub struct BotEnv {
    clock: Arc<dyn Clock>,
    vault: Option<Arc<dyn Vault>>,
    pub(super) models: Arc<dyn Models>,
    /// Model calls across every bot per UTC day.
    pub(super) max_per_day: u32,
}

impl BotEnv {
    pub fn new(
        clock: Arc<dyn Clock>,
        vault: Option<Arc<dyn Vault>>,
        models: Arc<dyn Models>,
        max_per_day: u32,
    ) -> Self {
        Self { clock, vault, models, max_per_day }
    }

    pub(super) fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    pub(super) fn vault(&self) -> Result<&dyn Vault, PersonaError> {
        self.vault.as_deref().ok_or(PersonaError::Vault(VaultError::NotConfigured))
    }

    pub fn model_status(&self) -> String {
        self.models.describe()
    }

    pub async fn roster(&self) -> Result<Roster, PersonaError> {
        load_roster(self.vault()?).await.map_err(PersonaError::Vault)
    }

    pub(super) async fn agent(&self, name: &str) -> Result<(Roster, RosterAgent), PersonaError> {
        let roster = self.roster().await?;
        let agent = roster.get(name).cloned().ok_or_else(|| PersonaError::NotOnRoster(name.to_string()))?;
        Ok((roster, agent))
    }

    /// Takes one model call from the day's cap across every bot; false when it is spent.
    pub(super) async fn claim_call(
        &self,
        store: &dyn PersonaStore,
        agent: &str,
        purpose: &str,
    ) -> Result<bool, PersonaError> {
        let now = self.now();
        let day_start = now.date_naive().and_time(NaiveTime::MIN).and_utc();
        store.claim_model_call(agent, purpose, day_start, self.max_per_day, now).await.map_err(Into::into)
    }

    /// Re-renders the agent's core.md from its active rows. A failed write is logged: the rows
    /// are the record, and the next write renders again.
    pub(super) async fn render(&self, store: &dyn PersonaStore, a: &RosterAgent) -> Option<RenderedCore> {
        let budget = a.memory.as_ref().map(|c| c.config.core_budget_tokens).ok()?;
        let rows = match store.memory_rows(&a.name, false).await {
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
    pub(super) async fn gate(
        &self,
        path: &str,
        refuse: impl Fn(OffLimits) -> PersonaError,
    ) -> Result<(), PersonaError> {
        check_vault_path(path).map_err(&refuse)?;
        match self.vault()?.link(path).await {
            Ok(None) => Ok(()),
            Ok(Some(Link::Symbolic)) => Err(refuse(OffLimits::Symlink)),
            Ok(Some(Link::Hard)) => Err(refuse(OffLimits::HardLink)),
            Err(VaultError::Outside { .. }) => Err(refuse(OffLimits::EscapesVault)),
            Err(e) => Err(PersonaError::Vault(e)),
        }
    }

    /// A wake's transcript is refused on the way in, before anything is changed. Without a vault
    /// nothing is ever read, so only the rule itself applies.
    pub(super) async fn check_transcript(&self, report: &WakeReport) -> Result<(), PersonaError> {
        let Some(path) = &report.transcript_path else { return Ok(()) };
        let refuse = |why| PersonaError::TranscriptRefused { path: path.clone(), why };
        if self.vault.is_none() {
            return check_vault_path(path).map_err(refuse);
        }
        self.gate(path, refuse).await
    }
}

/// The bot's owner as a person of the directory, if they are one.
pub(super) async fn owner_id(store: &dyn OrgStore, a: &RosterAgent) -> Result<Option<PersonId>, PersonaError> {
    Ok(store.credentials(&a.owner).await?.map(|(p, _)| p.id))
}

pub(super) fn one_line(text: &str, what: &str) -> Result<String, PersonaError> {
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

pub(super) fn may_read(caller: &Caller, agent: &str) -> Result<(), PersonaError> {
    match caller {
        Caller::Bot(b) if b != agent => {
            Err(PersonaError::NotAllowed(format!("A bot reads only its own memory, and this is {b}")))
        }
        _ => Ok(()),
    }
}

/// The dispatcher's actions: the operator, or the bot's owner.
pub(super) fn may_dispatch(caller: &Caller, agent: &RosterAgent) -> Result<(), PersonaError> {
    match caller {
        Caller::Operator => Ok(()),
        Caller::Person(p) if agent.is_owner(&p.email) => Ok(()),
        Caller::Person(_) => Err(PersonaError::NotAllowed(format!("Only {}'s owner can report its runs", agent.name))),
        Caller::Bot(_) => Err(PersonaError::NotAllowed(
            "A bot's own token cannot write its memory or episodes; its owner's side does".to_string(),
        )),
    }
}

/// Corrections and proposals: the owner or the bot's lead, as themselves.
pub(super) fn may_correct<'a>(caller: &'a Caller, agent: &RosterAgent) -> Result<&'a Person, PersonaError> {
    match caller {
        Caller::Person(p) if agent.is_owner_or_lead(&p.email) => Ok(p),
        Caller::Bot(_) => {
            Err(PersonaError::NotAllowed("A bot's own token cannot change memory; its owner or lead does".to_string()))
        }
        _ => Err(PersonaError::NotAllowed(format!(
            "Only {}'s owner or lead can change its memory or its improve cards",
            agent.name
        ))),
    }
}

pub(super) fn valid_config(agent: &RosterAgent) -> Result<&MemoryConfig, PersonaError> {
    agent.memory.as_ref().map(|c| &c.config).map_err(|e| {
        PersonaError::Invalid(format!(
            "{}'s memory block is refused ({e}); the memory steps wait until it is fixed",
            agent.name
        ))
    })
}
