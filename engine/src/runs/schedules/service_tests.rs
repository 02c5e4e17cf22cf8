//! `Schedules` against the in-memory directory and a small store of one agent's rows: who may
//! set what, that a schedule is first due after it was saved in the company's zone, that bad input
//! changes nothing, and that a trigger's secret is shown once and only its hash kept. No database.

use super::service::Schedules;
use super::store::ScheduleStore;
use super::{hash_trigger_secret, NewSchedule, Schedule, Trigger, TriggerFire, When, TRIGGER_PREFIX};
use crate::clock::ManualClock;
use crate::kernel::{Actor, AgentId, PersonId, StoreError};
use crate::org::fake::{agent, person, FakeOrg, WithOrg};
use crate::org::{Company, TimeZoneName};
use crate::runs::RunError;
use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Rows {
    schedule: Mutex<Option<Schedule>>,
    trigger: Mutex<Option<(String, Trigger)>>,
    paused: Mutex<bool>,
    writes: Mutex<u32>,
}

type Fake = WithOrg<Rows>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

#[async_trait]
impl ScheduleStore for Fake {
    async fn schedule(&self, _: AgentId) -> Result<Option<Schedule>, StoreError> {
        Ok(self.rows.schedule.lock().unwrap().clone())
    }
    async fn set_schedule(&self, agent: AgentId, s: &NewSchedule, actor: Actor) -> Result<Schedule, StoreError> {
        *self.rows.writes.lock().unwrap() += 1;
        let saved = Schedule {
            agent,
            instruction: s.instruction.clone(),
            when: s.when,
            next_due: s.next_due,
            set_by: actor.person,
            set_at: actor.at,
        };
        *self.rows.schedule.lock().unwrap() = Some(saved.clone());
        Ok(saved)
    }
    async fn clear_schedule(&self, _: AgentId, _: Actor) -> Result<bool, StoreError> {
        *self.rows.writes.lock().unwrap() += 1;
        Ok(self.rows.schedule.lock().unwrap().take().is_some())
    }
    async fn paused(&self, _: AgentId) -> Result<bool, StoreError> {
        Ok(*self.rows.paused.lock().unwrap())
    }
    async fn set_paused(&self, _: AgentId, paused: bool, _: Actor) -> Result<bool, StoreError> {
        *self.rows.writes.lock().unwrap() += 1;
        Ok(std::mem::replace(&mut *self.rows.paused.lock().unwrap(), paused) != paused)
    }
    async fn due_schedules(&self, _: DateTime<Utc>, _: u32) -> Result<Vec<Schedule>, StoreError> {
        Err(unsupported("read due schedules"))
    }
    async fn claim_schedule(&self, _: AgentId, _: DateTime<Utc>, _: DateTime<Utc>) -> Result<bool, StoreError> {
        Err(unsupported("claim schedules"))
    }
    async fn trigger(&self, _: AgentId) -> Result<Option<Trigger>, StoreError> {
        Ok(self.rows.trigger.lock().unwrap().as_ref().map(|(_, t)| t.clone()))
    }
    async fn set_trigger(&self, agent: AgentId, hash: &str, actor: Actor) -> Result<Trigger, StoreError> {
        *self.rows.writes.lock().unwrap() += 1;
        let t = Trigger { agent, made_by: actor.person, made_at: actor.at };
        *self.rows.trigger.lock().unwrap() = Some((hash.to_string(), t.clone()));
        Ok(t)
    }
    async fn clear_trigger(&self, _: AgentId, _: Actor) -> Result<bool, StoreError> {
        *self.rows.writes.lock().unwrap() += 1;
        Ok(self.rows.trigger.lock().unwrap().take().is_some())
    }
    async fn fire_trigger(&self, _: AgentId, _: &str, _: DateTime<Utc>, _: u32) -> Result<TriggerFire, StoreError> {
        Err(unsupported("fire triggers"))
    }
    async fn retry_failed_schedule_runs(
        &self,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
        _: u32,
    ) -> Result<Vec<crate::runs::RunId>, StoreError> {
        Err(unsupported("retry runs"))
    }
}

/// Ada the admin (1), Olga the owner (2), Bob (3); the Support Agent (5, Olga's) and Olga's
/// private agent (6); the company in Berlin; the clock at 10:00 Berlin on Tuesday 1 December 2026.
fn setup() -> (Arc<Fake>, Schedules) {
    let org = FakeOrg::with(
        vec![person(1, "Ada", true, None), person(2, "Olga", false, None), person(3, "Bob", false, None)],
        vec![],
        vec![],
    );
    org.dir.lock().unwrap().agents = vec![agent(5, "Support Agent", 2, false), agent(6, "Support Agent", 2, true)];
    *org.company.lock().unwrap() = Some(Company {
        name: "Acme".into(),
        time_zone: TimeZoneName::parse("Europe/Berlin").unwrap(),
        locale: Default::default(),
    });
    let fake = Arc::new(WithOrg { org, rows: Rows::default() });
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()));
    (fake.clone(), Schedules::new(fake, clock))
}

fn who(id: i64) -> crate::kernel::Person {
    let names = ["", "Ada", "Olga", "Bob"];
    person(id, names[id as usize], id == 1, None)
}

#[tokio::test]
async fn the_owner_sets_a_schedule_first_due_after_it_was_saved_in_the_companys_zone() {
    let (fake, s) = setup();
    let saved = s.set_schedule(&who(2), AgentId(5), " Summarise the open escalated tickets. ", "daily", "09:00").await;
    let saved = saved.unwrap();
    assert_eq!(saved.instruction, "Summarise the open escalated tickets.");
    // 09:00 Berlin has passed today (it is 10:00 there): tomorrow, 08:00 UTC.
    assert_eq!(saved.next_due, Utc.with_ymd_and_hms(2026, 12, 2, 8, 0, 0).unwrap());
    assert_eq!(saved.set_by, Some(PersonId(2)));
    // An admin may change it too.
    let again = s.set_schedule(&who(1), AgentId(5), "Summarise.", "every", "15m").await.unwrap();
    assert_eq!(again.when, When::Every(15));
    assert_eq!(again.next_due, Utc.with_ymd_and_hms(2026, 12, 1, 9, 15, 0).unwrap());
    let a = s.automation(&who(2), AgentId(5)).await.unwrap();
    assert_eq!((a.schedule.is_some(), a.trigger, a.paused), (true, None, false));
    s.set_paused(&who(2), AgentId(5), true).await.unwrap();
    assert!(s.automation(&who(1), AgentId(5)).await.unwrap().paused);
    s.clear_schedule(&who(2), AgentId(5)).await.unwrap();
    assert_eq!(fake.rows.schedule.lock().unwrap().clone(), None);
    match s.clear_schedule(&who(2), AgentId(5)).await {
        Err(RunError::NotFound(m)) => assert_eq!(m, "This agent has no schedule to clear"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn refusals_change_nothing() {
    let (fake, s) = setup();
    let refusals = [
        s.set_schedule(&who(3), AgentId(5), "Summarise.", "daily", "09:00").await,
        s.set_schedule(&who(2), AgentId(5), "", "daily", "09:00").await,
        s.set_schedule(&who(2), AgentId(5), "Summarise.", "every", "5m").await,
        s.set_schedule(&who(2), AgentId(5), "Summarise.", "daily", "9am").await,
        s.set_schedule(&who(2), AgentId(6), "Summarise.", "daily", "09:00").await,
        s.set_schedule(&who(1), AgentId(6), "Summarise.", "daily", "09:00").await,
        s.set_schedule(&who(2), AgentId(99), "Summarise.", "daily", "09:00").await,
    ];
    let kinds: Vec<&str> = refusals
        .iter()
        .map(|r| match r {
            Err(RunError::NotAllowed(_)) => "not allowed",
            Err(RunError::Invalid(_)) => "invalid",
            Err(RunError::NotFound(_)) => "not found",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["not allowed", "invalid", "invalid", "invalid", "invalid", "not found", "not found"]);
    assert!(matches!(s.set_paused(&who(3), AgentId(5), true).await, Err(RunError::NotAllowed(_))));
    assert!(matches!(s.make_trigger(&who(3), AgentId(5)).await, Err(RunError::NotAllowed(_))));
    assert!(matches!(s.automation(&who(3), AgentId(5)).await, Err(RunError::NotAllowed(_))));
    assert_eq!(*fake.rows.writes.lock().unwrap(), 0);
}

#[tokio::test]
async fn a_triggers_secret_is_shown_once_and_only_its_hash_kept() {
    let (fake, s) = setup();
    let (t, secret) = s.make_trigger(&who(2), AgentId(5)).await.unwrap();
    assert!(secret.starts_with(TRIGGER_PREFIX) && secret.len() == TRIGGER_PREFIX.len() + 64, "{secret}");
    assert_eq!(t.made_by, Some(PersonId(2)));
    let kept = fake.rows.trigger.lock().unwrap().clone().unwrap().0;
    assert_eq!(kept, hash_trigger_secret(&secret));
    assert!(!kept.contains(&secret[TRIGGER_PREFIX.len()..]));
    // Rotating gives a new secret, and keeps only the new one's hash.
    let (_, rotated) = s.make_trigger(&who(1), AgentId(5)).await.unwrap();
    assert_ne!(rotated, secret);
    assert_eq!(fake.rows.trigger.lock().unwrap().clone().unwrap().0, hash_trigger_secret(&rotated));
    s.clear_trigger(&who(2), AgentId(5)).await.unwrap();
    assert!(matches!(s.clear_trigger(&who(2), AgentId(5)).await, Err(RunError::NotFound(_))));
}

#[tokio::test]
async fn anyone_who_sees_a_company_agent_reads_how_it_runs_unasked_and_only_managers_may_change_it() {
    let (fake, s) = setup();
    s.set_schedule(&who(2), AgentId(5), "Summarise.", "daily", "09:00").await.unwrap();
    s.make_trigger(&who(2), AgentId(5)).await.unwrap();
    let writes = *fake.rows.writes.lock().unwrap();
    let bob = s.view(&who(3), AgentId(5)).await.unwrap();
    assert!(!bob.manages);
    assert_eq!(bob.zone, chrono_tz::Europe::Berlin);
    assert_eq!(bob.automation.schedule.as_ref().map(|s| s.when.words()), Some("Daily at 09:00".to_string()));
    assert_eq!(bob.automation.trigger.as_ref().map(|t| t.made_by), Some(Some(PersonId(2))));
    assert!(s.view(&who(2), AgentId(5)).await.unwrap().manages);
    assert!(s.view(&who(1), AgentId(5)).await.unwrap().manages);
    // Another's private agent is no agent; one's own hears that it has no schedule.
    match s.view(&who(1), AgentId(6)).await {
        Err(RunError::NotFound(m)) => assert_eq!(m, "There is no such agent"),
        other => panic!("{other:?}"),
    }
    match s.view(&who(2), AgentId(6)).await {
        Err(RunError::Invalid(m)) => assert!(m.starts_with("A private agent has no schedule or trigger"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(s.view(&who(2), AgentId(99)).await, Err(RunError::NotFound(_))));
    // Reading writes nothing.
    assert_eq!(*fake.rows.writes.lock().unwrap(), writes);
    let due = bob.automation.schedule.unwrap().next_due;
    assert_eq!(super::due_words(bob.zone, due), "Wed 2 Dec 2026, 09:00 (Europe/Berlin)");
}
