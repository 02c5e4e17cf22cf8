//! Seed 003's reflection cycle: every 10 of a bot's sessions after wake-done, or on request
//! (`memory_self_edit` with `reflect`, `/api/org/self/reflect`, `engram org self reflect`). Its
//! edits are requests like the bot's own, through the same policy and limits, and it is logged as
//! an episode with reason `self_reflect`. A failed, slow or refused model call is logged and
//! passed over, and nothing is recorded, so the next wake-done tries again.

use super::env::{may_correct, valid_config};
use super::{Caller, PersonaError, Reflect};
use crate::persona::backlog::{NewEpisode, Outcome};
use crate::persona::model::ModelChoice;
use crate::persona::self_edit_store::{EditState, SelfEdit};
use crate::persona::self_reflect::{
    due, parse, prompt, sessions_since_last_cycle, CYCLE_EVERY, SELF_REFLECT_SYSTEM, TRIGGER,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfReflectReport {
    pub agent: String,
    /// The cycle's episode; None when it did not run.
    pub episode: Option<i64>,
    /// The sessions it reviewed, newest first.
    pub reviewed: Vec<i64>,
    pub edits: Vec<SelfEdit>,
    pub missing: Vec<String>,
    /// Why the cycle did not run, when it did not.
    pub not_run: Option<String>,
}

impl SelfReflectReport {
    /// The lines `engram org self reflect` prints.
    pub fn lines(&self) -> Vec<String> {
        if let Some(why) = &self.not_run {
            return vec![format!("reflection for {} did not run: {why}", self.agent)];
        }
        let count = |s: EditState| self.edits.iter().filter(|e| e.state == s).count();
        let mut out = vec![format!(
            "reflection for {} on {} sessions (episode {}): {} edits applied, {} waiting for a person, {} refused",
            self.agent,
            self.reviewed.len(),
            self.episode.unwrap_or_default(),
            count(EditState::Applied),
            count(EditState::Waiting),
            count(EditState::Refused)
        )];
        out.extend(self.missing.iter().map(|m| format!("knowledge to acquire: {m}")));
        out
    }
}

impl Reflect {
    /// Runs the cycle for `agent` (the calling bot's own when it is a bot), asked for by the bot,
    /// its owner or lead, or the operator.
    pub async fn self_reflect(&self, caller: &Caller, agent: Option<&str>) -> Result<SelfReflectReport, PersonaError> {
        let name = match (caller, agent) {
            (Caller::Bot(b), None) => b.clone(),
            (Caller::Bot(b), Some(a)) if a == b => b.clone(),
            (Caller::Bot(_), Some(_)) => {
                return Err(PersonaError::NotAllowed("A bot reflects only on its own sessions".into()))
            }
            (_, Some(a)) => a.to_string(),
            (_, None) => return Err(PersonaError::Invalid("Name the agent to reflect".into())),
        };
        let (_, a) = self.env.agent(&name).await?;
        if let Caller::Person(_) = caller {
            may_correct(caller, &a)?;
        }
        self.cycle(&name).await
    }

    /// After wake-done: the cycle when 10 sessions have finished since the last one. Never fatal.
    pub(super) async fn self_reflect_if_due(&self, agent: &str) -> Option<SelfReflectReport> {
        let episodes = match self.store.episodes(agent, None).await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(agent, error = %e, "the reflection cycle's sessions were not read");
                return None;
            }
        };
        if !due(sessions_since_last_cycle(&episodes).len()) {
            return None;
        }
        match self.cycle(agent).await {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(agent, error = %e, "the reflection cycle did not run");
                None
            }
        }
    }

    async fn cycle(&self, agent: &str) -> Result<SelfReflectReport, PersonaError> {
        let (_, a) = self.env.agent(agent).await?;
        let mut report = SelfReflectReport {
            agent: agent.to_string(),
            episode: None,
            reviewed: Vec::new(),
            edits: Vec::new(),
            missing: Vec::new(),
            not_run: None,
        };
        let not_run = |mut r: SelfReflectReport, why: String| {
            tracing::info!(agent, why, "the reflection cycle did not run");
            r.not_run = Some(why);
            Ok(r)
        };
        let config = match valid_config(&a) {
            Ok(c) => c.clone(),
            Err(why) => return not_run(report, why.to_string()),
        };
        let model = match self.env.models.resolve(&config.reflect.model) {
            ModelChoice::Use(m) => m,
            ModelChoice::Off(why) => return not_run(report, why),
        };
        let episodes = self.store.episodes(agent, None).await?;
        let sessions: Vec<_> = sessions_since_last_cycle(&episodes).into_iter().take(CYCLE_EVERY).collect();
        if sessions.is_empty() {
            return not_run(report, "no session has finished since the last reflection".into());
        }
        report.reviewed = sessions.iter().map(|e| e.id).collect();
        if !self.env.claim_call(self.store.as_ref(), agent, TRIGGER).await? {
            return not_run(report, format!("today's cap of {} model calls is spent", self.env.max_per_day));
        }
        let rows = self.store.memory_rows(agent, false).await?;
        let profile = self.store.self_profile(agent).await?;
        let user = prompt(agent, &sessions, &rows, profile.as_deref(), self.env.now());
        let reply = match model.chat(SELF_REFLECT_SYSTEM, &user).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(agent, model = model.name(), error = %e, "the reflection cycle's model call failed");
                return not_run(report, format!("the model call failed: {e}"));
            }
        };
        let parsed = match parse(&reply, &rows) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(agent, error = %e, "the reflection cycle's reply was refused");
                return not_run(report, format!("the model's reply was refused: {e}"));
            }
        };
        for req in &parsed.requests {
            report.edits.push(self.store.self_edit(agent, &config.self_edit, req, self.env.now()).await?);
        }
        let count = |s: EditState| report.edits.iter().filter(|e| e.state == s).count();
        let mut summary = format!(
            "I reflected on sessions {}: {} edits applied, {} waiting for a person, {} refused.",
            report.reviewed.iter().rev().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", "),
            count(EditState::Applied),
            count(EditState::Waiting),
            count(EditState::Refused)
        );
        if !parsed.missing.is_empty() {
            summary.push_str(&format!(" Knowledge to acquire: {}.", parsed.missing.join("; ")));
        }
        let episode = self
            .store
            .insert_episode(&NewEpisode {
                agent: agent.to_string(),
                // One cycle per newest session: a second cycle needs a session after it.
                wake: format!("self-reflect-after-{}", report.reviewed[0]),
                trigger: TRIGGER.to_string(),
                task: None,
                outcome: Outcome::Done,
                turns: None,
                cost_usd: None,
                duration_s: None,
                summary,
                log_path: None,
                transcript_path: None,
                at: self.env.now(),
            })
            .await?;
        self.store.add_knowledge_gaps(agent, episode.id, &parsed.missing, self.env.now()).await?;
        report.episode = Some(episode.id);
        report.missing = parsed.missing;
        if count(EditState::Applied) > 0 {
            self.env.render(self.store.as_ref(), &a).await;
        }
        Ok(report)
    }
}
