//! `Schedules`: setting, clearing and pausing an agent's schedule, and making, rotating and
//! clearing its trigger, by its owner or an admin. Each checks who asks and what was typed
//! before anything is written; bad input changes nothing.

use super::store::SchedulePorts;
use super::{may_manage, parse_instruction, NewSchedule, Schedule, Trigger, When};
use crate::clock::Clock;
use crate::kernel::{Actor, AgentId, Person};
use crate::org::Agent;
use crate::runs::RunError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What anyone who sees a company agent reads of how it runs unasked: its owner and admins to
/// change it, everyone else read-only (as they read its playbook). Never a trigger's secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutomationView {
    pub automation: Automation,
    /// Whether the reader may change it: the agent's owner or an admin.
    pub manages: bool,
    /// The company's zone, which a schedule's times are read in.
    pub zone: chrono_tz::Tz,
}

/// An agent's schedule, trigger and pause, as its page shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Automation {
    pub schedule: Option<Schedule>,
    pub trigger: Option<Trigger>,
    pub paused: bool,
}

#[derive(Clone)]
pub struct Schedules {
    store: Arc<dyn SchedulePorts>,
    clock: Arc<dyn Clock>,
}

impl Schedules {
    pub fn new(store: Arc<dyn SchedulePorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn actor(&self, me: &Person) -> Actor {
        Actor { person: Some(me.id), at: self.clock.now() }
    }

    /// The company agent `me` may manage: another's private agent is no agent at all.
    async fn managed(&self, me: &Person, agent: AgentId) -> Result<Agent, RunError> {
        let a = self.store.agent(agent).await?.ok_or_else(|| RunError::NotFound("There is no such agent".into()))?;
        may_manage(me, &a)?;
        Ok(a)
    }

    /// The company's zone; UTC until a company names one.
    pub async fn zone(&self) -> Result<chrono_tz::Tz, RunError> {
        Ok(self
            .store
            .company()
            .await?
            .map(|c| c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC))
            .unwrap_or(chrono_tz::UTC))
    }

    /// What the agent's page shows: its schedule, whether it has a trigger, whether it is paused.
    pub async fn automation(&self, me: &Person, agent: AgentId) -> Result<Automation, RunError> {
        self.managed(me, agent).await?;
        Ok(Automation {
            schedule: self.store.schedule(agent).await?,
            trigger: self.store.trigger(agent).await?,
            paused: self.store.paused(agent).await?,
        })
    }

    /// What the agent's page shows anyone who sees the agent: the same as `automation`, read-only
    /// unless `manages`. Another's private agent is no agent at all; one's own private agent has
    /// no schedule or trigger, and hears so.
    pub async fn view(&self, me: &Person, agent: AgentId) -> Result<AutomationView, RunError> {
        let a = match self.store.agent(agent).await? {
            Some(a) if a.visible_to(me.id) => a,
            _ => return Err(RunError::NotFound("There is no such agent".into())),
        };
        let manages = match may_manage(me, &a) {
            Ok(()) => true,
            Err(RunError::NotAllowed(_)) => false,
            Err(e) => return Err(e),
        };
        let automation = Automation {
            schedule: self.store.schedule(agent).await?,
            trigger: self.store.trigger(agent).await?,
            paused: self.store.paused(agent).await?,
        };
        Ok(AutomationView { automation, manages, zone: self.zone().await? })
    }

    /// Sets or replaces the schedule: `kind` daily, weekdays or every, `value` HH:MM or how often.
    /// It is next due at the first such time after now; a time already past today waits for the
    /// next day it applies.
    pub async fn set_schedule(
        &self,
        me: &Person,
        agent: AgentId,
        instruction: &str,
        kind: &str,
        value: &str,
    ) -> Result<Schedule, RunError> {
        self.managed(me, agent).await?;
        let instruction = parse_instruction(instruction)?;
        let when = When::parse(kind, value)?;
        let next_due = when.next_due(self.zone().await?, self.clock.now());
        let s = NewSchedule { instruction, when, next_due };
        Ok(self.store.set_schedule(agent, &s, self.actor(me)).await?)
    }

    pub async fn clear_schedule(&self, me: &Person, agent: AgentId) -> Result<(), RunError> {
        self.managed(me, agent).await?;
        if !self.store.clear_schedule(agent, self.actor(me)).await? {
            return Err(RunError::NotFound("This agent has no schedule to clear".into()));
        }
        Ok(())
    }

    /// Pauses or resumes the agent: paused, neither its schedule nor its trigger fires.
    pub async fn set_paused(&self, me: &Person, agent: AgentId, paused: bool) -> Result<(), RunError> {
        self.managed(me, agent).await?;
        self.store.set_paused(agent, paused, self.actor(me)).await?;
        Ok(())
    }

    /// Makes the trigger, or rotates its secret: the secret is returned once, and only its hash is
    /// kept; an old secret stops working at once.
    #[cfg(feature = "server")]
    pub async fn make_trigger(&self, me: &Person, agent: AgentId) -> Result<(Trigger, String), RunError> {
        self.managed(me, agent).await?;
        let secret = super::new_trigger_secret();
        let t = self.store.set_trigger(agent, &super::hash_trigger_secret(&secret), self.actor(me)).await?;
        Ok((t, secret))
    }

    pub async fn clear_trigger(&self, me: &Person, agent: AgentId) -> Result<(), RunError> {
        self.managed(me, agent).await?;
        if !self.store.clear_trigger(agent, self.actor(me)).await? {
            return Err(RunError::NotFound("This agent has no trigger to clear".into()));
        }
        Ok(())
    }
}
