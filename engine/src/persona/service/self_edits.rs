//! Seed 003's self-edits: a bot's `memory_self_edit` requests, its computed profile, and the
//! owner's approvals and undos. A bot's own token still writes nothing itself: the server carries
//! out each request within the bot's `SelfEditPolicy` and records it, whatever became of it.

use super::env::{may_correct, may_read, valid_config, BotEnv};
use super::{Caller, PersonaError};
use crate::kernel::Actor;
use crate::persona::backlog::MemoryRow;
use crate::persona::render::MemoryKind;
use crate::persona::self_edit::EditRequest;
use crate::persona::self_edit_store::{EditState, SelfEdit, Settled};
use crate::persona::store::SelfEditPorts;
use crate::persona::vault::RosterAgent;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How many of a bot's requests its page and the API list.
pub const SELF_EDITS_SHOWN: u32 = 100;

/// `GET /api/org/self/profile`: who the bot is, as its memory says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfProfile {
    pub agent: String,
    pub description: String,
    /// The profile text the bot wrote with `memory_self_edit` on `profile`, if any.
    pub summary: Option<String>,
    pub facts: u32,
    pub strategies: u32,
    /// Its strategies by worth, then times seen, the strongest first: (id, text, worth).
    pub strongest: Vec<(i64, String, i32)>,
    pub weakest: Vec<(i64, String, i32)>,
    pub edits_applied: u32,
    pub edits_waiting: u32,
    pub edits_refused: u32,
}

impl SelfProfile {
    /// The lines `engram org self profile` prints.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("{}: {}", self.agent, self.description)];
        match &self.summary {
            Some(s) => out.extend(s.lines().map(|l| format!("  {l}"))),
            None => out.push("  (no profile summary written yet)".into()),
        }
        out.push(format!("{} facts, {} strategies", self.facts, self.strategies));
        for (id, text, worth) in &self.strongest {
            out.push(format!("strongest: strategy:{id} (worth {worth}) {text}"));
        }
        for (id, text, worth) in &self.weakest {
            out.push(format!("weakest: strategy:{id} (worth {worth}) {text}"));
        }
        out.push(format!(
            "self-edits: {} applied, {} waiting for a person, {} refused",
            self.edits_applied, self.edits_waiting, self.edits_refused
        ));
        out
    }
}

fn is_fact(r: &MemoryRow) -> bool {
    matches!(r.kind, MemoryKind::Lesson | MemoryKind::Preference)
}

fn is_strategy(r: &MemoryRow) -> bool {
    matches!(r.kind, MemoryKind::Lesson | MemoryKind::AntiPattern)
}

/// A bot's own edits of its memory and profile, and the person who approves or undoes them.
#[derive(Clone)]
pub struct SelfEdits {
    store: Arc<dyn SelfEditPorts>,
    env: BotEnv,
}

impl SelfEdits {
    pub fn new(store: Arc<dyn SelfEditPorts>, env: BotEnv) -> Self {
        Self { store, env }
    }

    fn bot_only(caller: &Caller) -> Result<&str, PersonaError> {
        match caller {
            Caller::Bot(b) => Ok(b),
            _ => Err(PersonaError::NotAllowed(
                "memory_self_edit is a bot's own tool: call it with the bot's own token".to_string(),
            )),
        }
    }

    /// One `memory_self_edit` request from the calling bot. Refused requests are recorded too and
    /// come back with their sentence in `refusal`.
    pub async fn self_edit(&self, caller: &Caller, req: &EditRequest) -> Result<SelfEdit, PersonaError> {
        let name = Self::bot_only(caller)?;
        let (_, a) = self.env.agent(name).await?;
        let policy = &valid_config(&a)?.self_edit;
        // Refused before it is recorded: a refused request keeps its text, and a secret is never kept.
        crate::secrets::refuse("The content", req.content.as_deref().unwrap_or("")).map_err(PersonaError::Secret)?;
        crate::secrets::refuse("The reason", &req.reason).map_err(PersonaError::Secret)?;
        let edit = self.store.self_edit(name, policy, req, self.env.now()).await?;
        if edit.state == EditState::Applied {
            self.env.render(self.store.as_ref(), &a).await;
        }
        Ok(edit)
    }

    pub async fn self_profile(&self, caller: &Caller, agent: Option<&str>) -> Result<SelfProfile, PersonaError> {
        let name = match (caller, agent) {
            (Caller::Bot(b), _) => b.as_str(),
            (_, Some(a)) => a,
            (_, None) => return Err(PersonaError::Invalid("Name the agent whose profile to read".into())),
        };
        let (_, a) = self.env.agent(name).await?;
        may_read(caller, name)?;
        let rows = match caller {
            Caller::Bot(_) => self.store.bot_memory_rows(name, false).await,
            _ => self.store.memory_rows(name, false).await,
        }?;
        let mut strategies: Vec<&MemoryRow> = rows.iter().filter(|r| is_strategy(r)).collect();
        strategies.sort_by(|x, y| y.worth.cmp(&x.worth).then(y.times_seen.cmp(&x.times_seen)).then(x.id.cmp(&y.id)));
        let pick = |r: &&MemoryRow| (r.id, r.text.clone(), r.worth);
        let strongest: Vec<_> = strategies.iter().filter(|r| r.worth > 0).take(3).map(pick).collect();
        let weakest: Vec<_> = strategies.iter().rev().filter(|r| r.worth < 0).take(3).map(pick).collect();
        let counts = self.store.self_edit_counts(name).await?;
        let count = |s: EditState| counts.iter().find(|(state, _)| *state == s).map_or(0, |(_, n)| *n);
        Ok(SelfProfile {
            agent: a.name.clone(),
            description: a.description.clone(),
            summary: self.store.self_profile(name).await?,
            facts: rows.iter().filter(|r| is_fact(r)).count() as u32,
            strategies: strategies.len() as u32,
            strongest,
            weakest,
            edits_applied: count(EditState::Applied),
            edits_waiting: count(EditState::Waiting),
            edits_refused: count(EditState::Refused),
        })
    }

    /// The bot's requests, newest first: its own, or any bot's for those who may read it.
    pub async fn self_edits(&self, caller: &Caller, agent: &str) -> Result<Vec<SelfEdit>, PersonaError> {
        self.env.agent(agent).await?;
        may_read(caller, agent)?;
        Ok(self.store.self_edits(agent, SELF_EDITS_SHOWN).await?)
    }

    async fn edit_and_agent(&self, id: i64) -> Result<(SelfEdit, RosterAgent), PersonaError> {
        let edit = self
            .store
            .self_edit_by_id(id)
            .await?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no self-edit #{id}")))?;
        let (_, a) = self.env.agent(&edit.agent).await?;
        Ok((edit, a))
    }

    fn settled(s: Settled) -> Result<SelfEdit, PersonaError> {
        match s {
            Settled::Done(e) => Ok(*e),
            Settled::Refused(why) => Err(PersonaError::Changed(why)),
        }
    }

    /// Undo within the grace period: the bot's owner or lead, or the bot itself for its own edit.
    pub async fn undo_self_edit(&self, caller: &Caller, id: i64) -> Result<SelfEdit, PersonaError> {
        let (edit, a) = self.edit_and_agent(id).await?;
        let person = match caller {
            Caller::Bot(b) if *b == edit.agent => None,
            Caller::Bot(_) => return Err(PersonaError::NotAllowed("A bot undoes only its own edits".into())),
            _ => Some(may_correct(caller, &a)?),
        };
        let actor = Actor { person: person.map(|p| p.id), at: self.env.now() };
        let done = Self::settled(self.store.undo_self_edit(id, &caller.label(), actor).await?)?;
        self.env.render(self.store.as_ref(), &a).await;
        Ok(done)
    }

    /// Approves (carries out) or declines a waiting request: the bot's owner or lead.
    pub async fn decide_self_edit(
        &self,
        caller: &Caller,
        id: i64,
        approve: bool,
        why: Option<&str>,
    ) -> Result<SelfEdit, PersonaError> {
        let (_, a) = self.edit_and_agent(id).await?;
        let person = may_correct(caller, &a)?;
        let why = why.map(str::trim).filter(|w| !w.is_empty());
        let actor = Actor { person: Some(person.id), at: self.env.now() };
        let done = Self::settled(self.store.decide_self_edit(id, approve, why, &caller.label(), actor).await?)?;
        if approve {
            self.env.render(self.store.as_ref(), &a).await;
        }
        Ok(done)
    }

    /// Requests waiting for the person, for Suggested changes: the bots they own or lead.
    pub async fn waiting_self_edits(&self, caller: &Caller) -> Result<Vec<SelfEdit>, PersonaError> {
        let Caller::Person(p) = caller else { return Ok(Vec::new()) };
        let Ok(roster) = self.env.roster().await else { return Ok(Vec::new()) };
        let agents: Vec<String> =
            roster.agents.values().filter(|a| a.is_owner_or_lead(&p.email)).map(|a| a.name.clone()).collect();
        if agents.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.store.waiting_self_edits(&agents).await?)
    }
}

#[cfg(test)]
#[path = "self_edits_tests.rs"]
mod tests;
