//! `AgentTokens` against the in-memory directory and a small store of tokens: who may make, list
//! and revoke them, that a secret is shown once and only its hash kept, that the live limit and
//! bad input change nothing, and which presented tokens are judged live. No database.

use super::service::AgentTokens;
use super::store::AgentTokenStore;
use super::{hash_agent_token, AgentToken, LiveAgentToken, AGENT_TOKEN_PREFIX, LIVE_TOKENS_PER_AGENT};
use crate::clock::ManualClock;
use crate::kernel::{Actor, AgentId, PersonId, StoreError};
use crate::org::fake::{agent, person, FakeOrg, WithOrg};
use crate::runs::schedules::{NewSchedule, Schedule, ScheduleStore, Trigger, TriggerFire};
use crate::runs::{RunError, RunId};
use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Rows {
    /// Each token with its hash.
    tokens: Mutex<Vec<(String, AgentToken)>>,
    paused: Mutex<bool>,
    writes: Mutex<u32>,
}

type Fake = WithOrg<Rows>;

fn unsupported(what: &str) -> StoreError {
    StoreError::Backend(format!("the fake does not {what}"))
}

#[async_trait]
impl AgentTokenStore for Fake {
    async fn make_agent_token(
        &self,
        agent: AgentId,
        name: &str,
        hash: &str,
        live_limit: u32,
        actor: Actor,
    ) -> Result<Option<AgentToken>, StoreError> {
        let mut tokens = self.rows.tokens.lock().unwrap();
        if tokens.iter().filter(|(_, t)| t.agent == agent && t.live()).count() as u32 >= live_limit {
            return Ok(None);
        }
        *self.rows.writes.lock().unwrap() += 1;
        let t = AgentToken {
            id: tokens.len() as i64 + 1,
            agent,
            name: name.to_string(),
            made_by: actor.person,
            made_at: actor.at,
            last_used_at: None,
            revoked_at: None,
            revoked_by: None,
        };
        tokens.push((hash.to_string(), t.clone()));
        Ok(Some(t))
    }
    async fn agent_tokens_of(&self, agent: AgentId, limit: u32) -> Result<Vec<AgentToken>, StoreError> {
        let tokens = self.rows.tokens.lock().unwrap();
        Ok(tokens.iter().rev().filter(|(_, t)| t.agent == agent).take(limit as usize).map(|(_, t)| t.clone()).collect())
    }
    async fn revoke_agent_token_of(&self, agent: AgentId, id: i64, actor: Actor) -> Result<bool, StoreError> {
        let mut tokens = self.rows.tokens.lock().unwrap();
        match tokens.iter_mut().find(|(_, t)| t.agent == agent && t.id == id && t.live()) {
            Some((_, t)) => {
                *self.rows.writes.lock().unwrap() += 1;
                t.revoked_at = Some(actor.at);
                t.revoked_by = actor.person;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    async fn live_agent_token(&self, hash: &str, now: DateTime<Utc>) -> Result<Option<LiveAgentToken>, StoreError> {
        let mut tokens = self.rows.tokens.lock().unwrap();
        Ok(tokens.iter_mut().find(|(h, t)| h == hash && t.live()).map(|(_, t)| {
            t.last_used_at = Some(now);
            LiveAgentToken { id: t.id, agent: t.agent }
        }))
    }
    async fn bind_token_run(&self, _: RunId, _: i64) -> Result<(), StoreError> {
        Err(unsupported("bind runs"))
    }
    async fn token_of_run(&self, _: RunId) -> Result<Option<i64>, StoreError> {
        Err(unsupported("read runs"))
    }
}

#[async_trait]
impl ScheduleStore for Fake {
    async fn schedule(&self, _: AgentId) -> Result<Option<Schedule>, StoreError> {
        Ok(None)
    }
    async fn set_schedule(&self, _: AgentId, _: &NewSchedule, _: Actor) -> Result<Schedule, StoreError> {
        Err(unsupported("set schedules"))
    }
    async fn clear_schedule(&self, _: AgentId, _: Actor) -> Result<bool, StoreError> {
        Err(unsupported("clear schedules"))
    }
    async fn paused(&self, _: AgentId) -> Result<bool, StoreError> {
        Ok(*self.rows.paused.lock().unwrap())
    }
    async fn set_paused(&self, _: AgentId, _: bool, _: Actor) -> Result<bool, StoreError> {
        Err(unsupported("pause"))
    }
    async fn due_schedules(&self, _: DateTime<Utc>, _: u32) -> Result<Vec<Schedule>, StoreError> {
        Err(unsupported("read due schedules"))
    }
    async fn claim_schedule(&self, _: AgentId, _: DateTime<Utc>, _: DateTime<Utc>) -> Result<bool, StoreError> {
        Err(unsupported("claim schedules"))
    }
    async fn trigger(&self, _: AgentId) -> Result<Option<Trigger>, StoreError> {
        Ok(None)
    }
    async fn set_trigger(&self, _: AgentId, _: &str, _: Actor) -> Result<Trigger, StoreError> {
        Err(unsupported("set triggers"))
    }
    async fn clear_trigger(&self, _: AgentId, _: Actor) -> Result<bool, StoreError> {
        Err(unsupported("clear triggers"))
    }
    async fn fire_trigger(&self, _: AgentId, _: &str, _: DateTime<Utc>, _: u32) -> Result<TriggerFire, StoreError> {
        Err(unsupported("fire triggers"))
    }
    async fn retry_failed_schedule_runs(
        &self,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
        _: u32,
    ) -> Result<Vec<RunId>, StoreError> {
        Err(unsupported("retry runs"))
    }
}

/// Ada the admin (1), Olga the owner (2), Bob (3); the Support Agent (5, Olga's), Olga's private
/// agent (6) and the Sales Agent (7, Olga's).
fn setup() -> (Arc<Fake>, AgentTokens) {
    let org = FakeOrg::with(
        vec![person(1, "Ada", true, None), person(2, "Olga", false, None), person(3, "Bob", false, None)],
        vec![],
        vec![],
    );
    org.dir.lock().unwrap().agents = vec![
        agent(5, "Support Agent", 2, false),
        agent(6, "Support Agent", 2, true),
        agent(7, "Sales Agent", 2, false),
    ];
    let fake = Arc::new(WithOrg { org, rows: Rows::default() });
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()));
    (fake.clone(), AgentTokens::new(fake, clock))
}

fn who(id: i64) -> crate::kernel::Person {
    let names = ["", "Ada", "Olga", "Bob"];
    person(id, names[id as usize], id == 1, None)
}

#[tokio::test]
async fn a_tokens_secret_is_shown_once_only_its_hash_kept_and_it_works_for_its_agent_until_revoked() {
    let (fake, s) = setup();
    let (t, secret) = s.make(&who(2), AgentId(5), "  LangGraph on the support server ").await.unwrap();
    assert!(secret.starts_with(AGENT_TOKEN_PREFIX) && secret.len() == AGENT_TOKEN_PREFIX.len() + 64, "{secret}");
    assert_eq!(
        (t.name.as_str(), t.made_by, t.agent),
        ("LangGraph on the support server", Some(PersonId(2)), AgentId(5))
    );
    let kept = fake.rows.tokens.lock().unwrap()[0].0.clone();
    assert_eq!(kept, hash_agent_token(&secret));
    assert!(!kept.contains(&secret[AGENT_TOKEN_PREFIX.len()..]));
    assert_eq!(s.judge(&secret).await.unwrap(), Some(LiveAgentToken { id: t.id, agent: AgentId(5) }));
    assert!(fake.rows.tokens.lock().unwrap()[0].1.last_used_at.is_some(), "judging marks it used");
    // An admin lists and revokes it; then it is no token at all.
    let listed = s.list(&who(1), AgentId(5)).await.unwrap();
    assert_eq!(listed.iter().map(|t| t.id).collect::<Vec<_>>(), [t.id]);
    s.revoke(&who(1), AgentId(5), t.id).await.unwrap();
    assert_eq!(s.judge(&secret).await.unwrap(), None);
    match s.revoke(&who(2), AgentId(5), t.id).await {
        Err(RunError::NotFound(m)) => {
            assert_eq!(m, format!("Support Agent has no live token #{}; it may already be revoked", t.id))
        }
        other => panic!("{other:?}"),
    }
    // A token of one agent is not revoked through another.
    let (other, _) = s.make(&who(2), AgentId(7), "Cursor").await.unwrap();
    assert!(matches!(s.revoke(&who(2), AgentId(5), other.id).await, Err(RunError::NotFound(_))));
}

#[tokio::test]
async fn what_is_not_a_live_token_is_judged_none_in_every_spelling() {
    let (_, s) = setup();
    let (_, secret) = s.make(&who(2), AgentId(5), "Cursor").await.unwrap();
    let body = &secret[AGENT_TOKEN_PREFIX.len()..];
    let spellings = [
        String::new(),
        body.to_string(),
        format!("AGT_{body}"),
        format!("{secret} "),
        format!(" {secret}"),
        secret.to_uppercase(),
        format!("{}0", &secret[..secret.len() - 1]),
        format!("{secret}0"),
        secret[..secret.len() - 1].to_string(),
        format!("trg_{body}"),
        "agt_".to_string(),
        format!("agt_{}", "g".repeat(64)),
    ];
    for spelling in spellings {
        assert_eq!(s.judge(&spelling).await.unwrap(), None, "{spelling:?}");
    }
}

#[tokio::test]
async fn only_the_owner_or_an_admin_manages_tokens_and_refusals_change_nothing() {
    let (fake, s) = setup();
    let kinds = |r: Result<(AgentToken, String), RunError>| match r {
        Err(RunError::NotAllowed(_)) => "not allowed",
        Err(RunError::Invalid(_)) => "invalid",
        Err(RunError::NotFound(_)) => "not found",
        other => panic!("{other:?}"),
    };
    let refusals = [
        kinds(s.make(&who(3), AgentId(5), "Cursor").await),
        kinds(s.make(&who(2), AgentId(5), "  ").await),
        kinds(s.make(&who(2), AgentId(5), &"x".repeat(81)).await),
        kinds(s.make(&who(2), AgentId(5), concat!("key ", "AKIA", "IOSFODNN7EXAMPLE")).await),
        kinds(s.make(&who(2), AgentId(6), "Cursor").await),
        kinds(s.make(&who(1), AgentId(6), "Cursor").await),
        kinds(s.make(&who(2), AgentId(99), "Cursor").await),
    ];
    assert_eq!(refusals, ["not allowed", "invalid", "invalid", "invalid", "invalid", "not found", "not found"]);
    assert!(matches!(s.list(&who(3), AgentId(5)).await, Err(RunError::NotAllowed(_))));
    assert!(matches!(s.revoke(&who(3), AgentId(5), 1).await, Err(RunError::NotAllowed(_))));
    assert_eq!(*fake.rows.writes.lock().unwrap(), 0);
    assert!(!s.manages(&who(3), AgentId(5)).await.unwrap());
    assert!(s.manages(&who(2), AgentId(5)).await.unwrap());
    assert!(s.manages(&who(1), AgentId(5)).await.unwrap());
    assert!(!s.manages(&who(2), AgentId(6)).await.unwrap(), "a private agent has no tokens to manage");
    assert!(matches!(s.manages(&who(1), AgentId(6)).await, Err(RunError::NotFound(_))));
}

#[tokio::test]
async fn an_agent_holds_at_most_ten_live_tokens_and_a_revoked_one_frees_a_place() {
    let (fake, s) = setup();
    let mut made = vec![];
    for n in 0..LIVE_TOKENS_PER_AGENT {
        made.push(s.make(&who(2), AgentId(5), &format!("Place {n}")).await.unwrap().0);
    }
    let writes = *fake.rows.writes.lock().unwrap();
    match s.make(&who(2), AgentId(5), "One more").await {
        Err(RunError::Invalid(m)) => assert_eq!(
            m,
            "Support Agent already holds 10 live tokens, as many as an agent may; revoke one it no longer needs first"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(*fake.rows.writes.lock().unwrap(), writes);
    // Another agent's places are its own.
    s.make(&who(2), AgentId(7), "Cursor").await.unwrap();
    s.revoke(&who(2), AgentId(5), made[3].id).await.unwrap();
    s.make(&who(2), AgentId(5), "One more").await.unwrap();
}

#[tokio::test]
async fn a_token_of_a_paused_or_now_private_agent_is_refused_in_words() {
    let (fake, s) = setup();
    let (_, secret) = s.make(&who(2), AgentId(5), "Cursor").await.unwrap();
    *fake.rows.paused.lock().unwrap() = true;
    match s.judge(&secret).await {
        Err(RunError::Changed(m)) => assert_eq!(m, crate::runs::schedules::TRIGGER_PAUSED),
        other => panic!("{other:?}"),
    }
    *fake.rows.paused.lock().unwrap() = false;
    fake.org.dir.lock().unwrap().agents[0].private = true;
    assert!(matches!(s.judge(&secret).await, Err(RunError::NotAllowed(_))));
}
