//! What the pages and the CLI read: the roster, a bot's page, its memory and stats, and the
//! corrections a person makes there.

use super::env::{may_correct, may_read, one_line, BotEnv};
use super::{Caller, Improve, ImproveCard, MemoryAudits, PersonaError};
use crate::kernel::StoreError;
use crate::org::Person;
use crate::persona::backlog::{Episode, MemoryRow, Outcome, Task, STATUS_APPLIED, STATUS_CLOSED, STATUS_OPEN};
use crate::persona::config::{EffectiveConfig, MemoryConfig};
use crate::persona::model::ModelChoice;
use crate::persona::render::{render_core, MemoryKind, RenderedCore};
use crate::persona::store::PagePorts;
use crate::persona::vault::{hand_written_memory_path, user_memory_path, RosterAgent};
use chrono::Duration;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub days: u32,
    pub episodes: u32,
    pub completed: u32,
    pub corrected: u32,
    pub corrections_per_completed: Option<f64>,
    pub cost_usd: f64,
    pub cost_per_completed: Option<f64>,
    pub active: u32,
    pub closed: u32,
    pub active_by_kind: Vec<(String, u32)>,
    pub proposals_filed: u32,
    pub proposals_open: u32,
    pub proposals_applied: u32,
    pub proposals_closed: u32,
}

impl Stats {
    /// The lines `engram org memory stats` prints.
    pub fn lines(&self, agent: &str) -> Vec<String> {
        let ratio = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a (no completed cards)".into());
        let money = |v: Option<f64>| v.map(|v| format!("${v:.2}")).unwrap_or_else(|| "n/a (no completed cards)".into());
        vec![
            format!(
                "{agent}, the last {} days: {} episodes, {} completed cards",
                self.days, self.episodes, self.completed
            ),
            format!(
                "corrections per completed card: {} ({} corrected)",
                ratio(self.corrections_per_completed),
                self.corrected
            ),
            format!("cost per completed card: {} (${:.2} in all)", money(self.cost_per_completed), self.cost_usd),
            format!(
                "memory: {} active ({}), {} closed",
                self.active,
                self.active_by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", "),
                self.closed
            ),
            format!(
                "proposals filed: {} ({} open, {} applied, {} closed)",
                self.proposals_filed, self.proposals_open, self.proposals_applied, self.proposals_closed
            ),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentPage {
    pub agent: RosterAgent,
    pub owner_name: String,
    pub lead_name: Option<String>,
    pub role_name: Option<String>,
    pub config: Option<EffectiveConfig>,
    pub config_error: Option<String>,
    pub model: String,
    pub budget: u32,
    pub core: RenderedCore,
    pub active: Vec<MemoryRow>,
    pub closed: Vec<MemoryRow>,
    pub episodes: Vec<Episode>,
    pub proposals: Vec<ImproveCard>,
    pub stats: Stats,
    pub hand_written: Option<String>,
    /// Its USER.md (seed 004): what it keeps about the people it works for.
    pub user_memory: Option<String>,
    pub may_correct: bool,
    /// Its memory_self_edit requests, newest first, and which of them can still be undone.
    pub self_edits: Vec<crate::persona::self_edit_store::SelfEdit>,
    pub undoable: Vec<i64>,
    pub profile: Option<String>,
    /// What its reflection cycles found it lacked, newest first.
    pub knowledge_gaps: Vec<crate::persona::self_edit_store::KnowledgeGap>,
    /// Seed 004's state of its MEMORY.md and USER.md, and its recent audits.
    pub audit: super::AuditState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterLine {
    pub name: String,
    pub description: String,
    pub owner: String,
    pub active: u32,
}

/// What the pages and the CLI read of the bots, and the corrections a person makes to a bot's
/// memory lines there.
#[derive(Clone)]
pub struct BotPages {
    store: Arc<dyn PagePorts>,
    env: BotEnv,
    /// A bot's page shows its improve cards as its reader may settle them.
    improve: Improve,
    /// And its memory audits' panel.
    audits: MemoryAudits,
}

impl BotPages {
    pub fn new(store: Arc<dyn PagePorts>, env: BotEnv, improve: Improve, audits: MemoryAudits) -> Self {
        Self { store, env, improve, audits }
    }

    pub async fn roster_lines(&self) -> Result<Vec<RosterLine>, PersonaError> {
        let roster = self.env.roster().await?;
        let mut out = Vec::new();
        for a in roster.agents.values() {
            let active = self.store.memory_rows(&a.name, false).await?.len() as u32;
            out.push(RosterLine {
                name: a.name.clone(),
                description: a.description.clone(),
                owner: a.owner.clone(),
                active,
            });
        }
        Ok(out)
    }

    pub async fn memory(&self, caller: &Caller, agent: &str, all: bool) -> Result<Vec<MemoryRow>, PersonaError> {
        self.env.agent(agent).await?;
        may_read(caller, agent)?;
        let rows = match caller {
            Caller::Bot(_) => self.store.bot_memory_rows(agent, all).await,
            _ => self.store.memory_rows(agent, all).await,
        };
        let mut rows = rows?;
        rows.sort_by(|a, b| {
            b.active
                .cmp(&a.active)
                .then(b.times_seen.cmp(&a.times_seen))
                .then(b.worth.cmp(&a.worth))
                .then(b.last_seen.cmp(&a.last_seen))
        });
        Ok(rows)
    }

    /// `engram org recall`: the lines of the bot's core.md, its active memory lines and its
    /// hand-written file that hold the query's words. Read by whoever may read its memory; a bot
    /// only its own.
    pub async fn recall(
        &self,
        caller: &Caller,
        agent: &str,
        query: &str,
    ) -> Result<Vec<crate::persona::recall::RecallHit>, PersonaError> {
        use crate::persona::recall::{query_words, recall, RecallSources};
        use crate::persona::vault::core_path;
        self.env.agent(agent).await?;
        may_read(caller, agent)?;
        if query_words(query).is_empty() {
            return Err(PersonaError::Invalid("Say what to recall: engram org recall <agent> \"<query>\"".into()));
        }
        let rows = match caller {
            Caller::Bot(_) => self.store.bot_memory_rows(agent, false).await,
            _ => self.store.memory_rows(agent, false).await,
        }?;
        let vault = self.env.vault()?;
        let core = vault.read(&core_path(agent)).await.map_err(PersonaError::Vault)?;
        let hand_written = vault.read(&hand_written_memory_path(agent)).await.map_err(PersonaError::Vault)?;
        Ok(recall(query, &RecallSources { core: core.as_deref(), rows: &rows, hand_written: hand_written.as_deref() }))
    }

    pub async fn stats(&self, caller: &Caller, agent: &str, days: u32) -> Result<Stats, PersonaError> {
        self.env.agent(agent).await?;
        may_read(caller, agent)?;
        if days == 0 || days > 3650 {
            return Err(PersonaError::Invalid("--days is a number of days from 1 to 3650".to_string()));
        }
        let since = self.env.now() - Duration::days(days as i64);
        let episodes = self.store.episodes(agent, Some(since)).await?;
        let rows = self.store.memory_rows(agent, true).await?;
        let tasks = self.store.improve_tasks(Some(agent)).await?;
        Ok(compute_stats(days, &episodes, &rows, tasks.iter().filter(|t| t.created_at >= since)))
    }

    /// The row a person corrects, its bot, and who is correcting it: the owner or the bot's lead.
    async fn correction<'a>(&self, caller: &'a Caller, id: i64) -> Result<(RosterAgent, &'a Person), PersonaError> {
        let row = self
            .store
            .memory_row(id)
            .await?
            .ok_or_else(|| PersonaError::NotFound(format!("There is no memory line #{id}")))?;
        let (_, a) = self.env.agent(&row.agent).await?;
        let person = may_correct(caller, &a)?;
        Ok((a, person))
    }

    fn closed_meanwhile(id: i64) -> impl Fn(StoreError) -> PersonaError {
        move |e| match e {
            StoreError::Changed { .. } => {
                PersonaError::Changed(format!("Line #{id} was closed meanwhile; nothing was changed"))
            }
            e => e.into(),
        }
    }

    pub async fn edit_memory(&self, caller: &Caller, id: i64, text: &str) -> Result<MemoryRow, PersonaError> {
        let (a, person) = self.correction(caller, id).await?;
        let text = one_line(text, "corrected line")?;
        let by = format!("person:{}", person.email);
        let new = self.store.edit_memory(id, &text, &by, self.env.now()).await.map_err(Self::closed_meanwhile(id))?;
        self.env.render(self.store.as_ref(), &a).await;
        Ok(new)
    }

    pub async fn retire_memory(&self, caller: &Caller, id: i64, reason: &str) -> Result<(), PersonaError> {
        let (a, person) = self.correction(caller, id).await?;
        let reason = one_line(reason, "reason for retiring")?;
        let by = format!("person:{}", person.email);
        self.store.retire_memory(id, &reason, &by, self.env.now()).await.map_err(Self::closed_meanwhile(id))?;
        self.env.render(self.store.as_ref(), &a).await;
        Ok(())
    }

    pub async fn agent_page(&self, caller: &Caller, name: &str) -> Result<AgentPage, PersonaError> {
        let (_, a) = self.env.agent(name).await?;
        may_read(caller, name)?;
        // The roles, and only the two people the page names: never everyone.
        let dir = self.store.outline().await?;
        let named: Vec<String> = std::iter::once(a.owner.clone()).chain(a.lead.clone()).collect();
        let people = self.store.people_by_emails(&named).await?;
        let by_email =
            |email: &str| people.iter().find(|p| p.email.eq_ignore_ascii_case(email)).map(|p| p.name.clone());
        let (config, config_error) = match &a.memory {
            Ok(c) => (Some(c.clone()), None),
            Err(e) => {
                (None, Some(format!("The memory block is refused: {e}. The memory steps wait until it is fixed.")))
            }
        };
        let budget =
            config.as_ref().map(|c| c.config.core_budget_tokens).unwrap_or(MemoryConfig::default().core_budget_tokens);
        let rows = self.store.memory_rows(name, true).await?;
        let (mut active, mut closed): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.active);
        active.sort_by(|a, b| {
            b.times_seen
                .cmp(&a.times_seen)
                .then(b.worth.cmp(&a.worth))
                .then(b.last_seen.cmp(&a.last_seen))
                .then(a.id.cmp(&b.id))
        });
        closed.sort_by_key(|r| std::cmp::Reverse(r.closed_at));
        let lines: Vec<_> = active.iter().map(MemoryRow::line).collect();
        let core = render_core(name, &lines, budget);
        let episodes = self.store.episodes(name, None).await?;
        let mut proposals = Vec::new();
        for t in self.store.improve_tasks(Some(name)).await? {
            proposals.push(self.improve.card(caller, t).await);
        }
        let stats = self.stats(caller, name, 30).await?;
        let hand_written =
            self.env.vault()?.read(&hand_written_memory_path(name)).await.map_err(PersonaError::Vault)?;
        let user_memory = self.env.vault()?.read(&user_memory_path(name)).await.map_err(PersonaError::Vault)?;
        let model = match &config {
            Some(c) => match self.env.models.resolve(&c.config.reflect.model) {
                ModelChoice::Use(m) => match m.status() {
                    Some(status) => format!("Reflect uses {}. {status}", m.name()),
                    None => format!("Reflect uses {}.", m.name()),
                },
                ModelChoice::Off(why) => format!("The model step is off: {why}. Episodes are still recorded."),
            },
            None => "The model step waits until the memory block is fixed.".to_string(),
        };
        let self_edits = self.store.self_edits(name, super::SELF_EDITS_SHOWN).await?;
        let now = self.env.now();
        let undoable = self_edits.iter().filter(|e| e.undoable(now)).map(|e| e.id).collect();
        let profile = self.store.self_profile(name).await?;
        let knowledge_gaps = self.store.knowledge_gaps(name, 20).await?;
        let audit = self.audits.audit_state(&a).await?;
        let role_name =
            a.role.as_ref().and_then(|slug| dir.roles.iter().find(|r| r.slug.as_str() == slug).map(|r| r.name.clone()));
        Ok(AgentPage {
            owner_name: by_email(&a.owner).unwrap_or_else(|| a.owner.clone()),
            lead_name: a.lead.as_deref().map(|l| by_email(l).unwrap_or_else(|| l.to_string())),
            role_name,
            may_correct: may_correct(caller, &a).is_ok(),
            agent: a,
            config,
            config_error,
            model,
            budget,
            core,
            active,
            closed,
            episodes,
            proposals,
            stats,
            hand_written,
            user_memory,
            self_edits,
            undoable,
            profile,
            knowledge_gaps,
            audit,
        })
    }
}

fn compute_stats<'a>(
    days: u32,
    episodes: &[Episode],
    rows: &[MemoryRow],
    proposals: impl Iterator<Item = &'a Task>,
) -> Stats {
    let completed = episodes.iter().filter(|e| e.outcome == Outcome::Done).count() as u32;
    let corrected = episodes.iter().filter(|e| e.corrected).count() as u32;
    let cost: f64 = episodes.iter().filter_map(|e| e.cost_usd).sum();
    let per = |v: f64| if completed == 0 { None } else { Some(v / completed as f64) };
    let mut by_kind = Vec::new();
    for k in [MemoryKind::Lesson, MemoryKind::AntiPattern, MemoryKind::Preference, MemoryKind::Friction] {
        let n = rows.iter().filter(|r| r.active && r.kind == k).count() as u32;
        by_kind.push((k.as_str().to_string(), n));
    }
    let proposals: Vec<&Task> = proposals.collect();
    let count = |s: &str| proposals.iter().filter(|t| t.status == s).count() as u32;
    Stats {
        days,
        episodes: episodes.len() as u32,
        completed,
        corrected,
        corrections_per_completed: per(corrected as f64),
        cost_usd: cost,
        cost_per_completed: per(cost),
        active: rows.iter().filter(|r| r.active).count() as u32,
        closed: rows.iter().filter(|r| !r.active).count() as u32,
        active_by_kind: by_kind,
        proposals_filed: proposals.len() as u32,
        proposals_open: count(STATUS_OPEN),
        proposals_applied: count(STATUS_APPLIED),
        proposals_closed: count(STATUS_CLOSED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn episode(id: i64, outcome: Outcome, corrected: bool, cost: f64) -> Episode {
        Episode {
            id,
            agent: "scout".into(),
            wake: format!("r{id}"),
            trigger: "task".into(),
            task: Some(1),
            outcome,
            corrected,
            turns: Some(3),
            cost_usd: Some(cost),
            duration_s: None,
            summary: String::new(),
            log_path: None,
            transcript_path: None,
            created_at: Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap(),
        }
    }

    #[test]
    fn stats_are_per_completed_card() {
        let eps = vec![
            episode(1, Outcome::Done, true, 0.5),
            episode(2, Outcome::Done, false, 0.25),
            episode(3, Outcome::Blocked, false, 0.25),
            episode(4, Outcome::Done, false, 0.0),
        ];
        let s = compute_stats(30, &eps, &[], std::iter::empty());
        assert_eq!((s.completed, s.corrected, s.episodes), (3, 1, 4));
        assert!((s.corrections_per_completed.unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.cost_per_completed.unwrap() - 1.0 / 3.0).abs() < 1e-9);
        let lines = s.lines("scout");
        assert_eq!(lines[1], "corrections per completed card: 0.33 (1 corrected)");
        assert_eq!(lines[2], "cost per completed card: $0.33 ($1.00 in all)");
    }

    #[test]
    fn no_completed_cards_is_not_a_division_by_zero() {
        let s = compute_stats(7, &[episode(1, Outcome::Error, false, 1.0)], &[], std::iter::empty());
        assert_eq!(s.corrections_per_completed, None);
        assert!(s.lines("scout")[1].contains("n/a"));
    }
}
