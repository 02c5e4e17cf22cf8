//! ScheduleStore: an agent's schedule set, replaced and cleared with audit rows; due ones read by
//! time and claimed once across callers; pauses; triggers made, rotated and fired within their
//! hourly limit.

use crate::backends::{at, on_both, org, Db};
use chrono::{Duration, NaiveTime};
use engine::runs::schedules::{NewSchedule, TriggerFire, When, TRIGGER_RUNS_PER_HOUR};
use engine::runs::{Author, NewRun, RunEnd, RunId, RunKind, RunState};

on_both! {
    a_schedule_is_set_replaced_and_cleared_with_audit_rows:
        sqlite_a_schedule_is_set_replaced_and_cleared_with_audit_rows,
        postgres_a_schedule_is_set_replaced_and_cleared_with_audit_rows;
    a_due_schedule_is_claimed_once_however_many_ask:
        sqlite_a_due_schedule_is_claimed_once_however_many_ask,
        postgres_a_due_schedule_is_claimed_once_however_many_ask;
    a_paused_agents_schedule_is_neither_due_nor_claimed:
        sqlite_a_paused_agents_schedule_is_neither_due_nor_claimed,
        postgres_a_paused_agents_schedule_is_neither_due_nor_claimed;
    a_trigger_fires_with_its_secret_within_its_hourly_limit:
        sqlite_a_trigger_fires_with_its_secret_within_its_hourly_limit,
        postgres_a_trigger_fires_with_its_secret_within_its_hourly_limit;
    concurrent_posts_never_pass_the_hourly_limit:
        sqlite_concurrent_posts_never_pass_the_hourly_limit,
        postgres_concurrent_posts_never_pass_the_hourly_limit;
    a_failed_scheduled_run_is_retried_once_however_many_ask:
        sqlite_a_failed_scheduled_run_is_retried_once_however_many_ask,
        postgres_a_failed_scheduled_run_is_retried_once_however_many_ask;
}

fn nine() -> When {
    When::Daily(NaiveTime::from_hms_opt(9, 0, 0).unwrap())
}

fn new(instruction: &str, when: When, due_minutes: i64) -> NewSchedule {
    NewSchedule { instruction: instruction.into(), when, next_due: at(due_minutes) }
}

async fn a_schedule_is_set_replaced_and_cleared_with_audit_rows(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.schedule(o.agent.id).await.unwrap(), None);
    let s = db.set_schedule(o.agent.id, &new("Summarise the open tickets.", nine(), 60), o.by_admin(1)).await.unwrap();
    assert_eq!(s.instruction, "Summarise the open tickets.");
    assert_eq!(s.when, nine());
    assert_eq!(s.next_due, at(60));
    assert_eq!(s.set_by, Some(o.admin.id));
    assert_eq!(db.schedule(o.agent.id).await.unwrap(), Some(s));
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!((audit[0].action.as_str(), audit[0].detail.as_str()), ("agent.schedule", "set: Daily at 09:00"));

    let again = db.set_schedule(o.agent.id, &new("Summarise them by team.", When::Every(120), 90), o.by_admin(2)).await;
    let again = again.unwrap();
    assert_eq!(again.when, When::Every(120));
    assert_eq!(db.schedule(o.agent.id).await.unwrap().unwrap().instruction, "Summarise them by team.");
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!(audit[0].detail, "Daily at 09:00 → Every 2 hours, instruction changed");
    // The instruction's words are never in the audit.
    assert!(audit.iter().all(|a| !a.detail.contains("Summarise")));

    assert!(db.clear_schedule(o.agent.id, o.by_admin(3)).await.unwrap());
    assert_eq!(db.schedule(o.agent.id).await.unwrap(), None);
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!((audit[0].action.as_str(), audit[0].detail.as_str()), ("agent.schedule_cleared", "was: Every 2 hours"));
    // Clearing nothing changes nothing and writes no row.
    assert!(!db.clear_schedule(o.agent.id, o.by_admin(4)).await.unwrap());
    assert_eq!(db.audit_log(5).await.unwrap()[0].action, "agent.schedule_cleared");
}

async fn a_due_schedule_is_claimed_once_however_many_ask(db: Db) {
    let o = org(&db).await;
    db.set_schedule(o.agent.id, &new("Summarise.", nine(), 60), o.by_admin(0)).await.unwrap();
    assert_eq!(db.due_schedules(at(59), 10).await.unwrap(), []);
    let due = db.due_schedules(at(61), 10).await.unwrap();
    assert_eq!(due.len(), 1);
    let next = at(60) + Duration::days(1);
    // Eight callers, as eight servers' ticks: exactly one wins the claim.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (db, agent, due) = (db.clone(), o.agent.id, due[0].next_due);
        tasks.push(tokio::spawn(async move { db.claim_schedule(agent, due, next).await.unwrap() }));
    }
    let mut won = 0;
    for t in tasks {
        won += u32::from(t.await.unwrap());
    }
    assert_eq!(won, 1);
    assert_eq!(db.schedule(o.agent.id).await.unwrap().unwrap().next_due, next);
    assert_eq!(db.due_schedules(at(61), 10).await.unwrap(), []);
    // A claim of a due time that has moved on, or of a schedule that changed, takes nothing.
    assert!(!db.claim_schedule(o.agent.id, at(60), next).await.unwrap());
}

async fn a_paused_agents_schedule_is_neither_due_nor_claimed(db: Db) {
    let o = org(&db).await;
    db.set_schedule(o.agent.id, &new("Summarise.", nine(), 60), o.by_admin(0)).await.unwrap();
    assert!(!db.paused(o.agent.id).await.unwrap());
    assert!(db.set_paused(o.agent.id, true, o.by_admin(1)).await.unwrap());
    assert!(!db.set_paused(o.agent.id, true, o.by_admin(2)).await.unwrap(), "already paused");
    assert!(db.paused(o.agent.id).await.unwrap());
    assert_eq!(db.audit_log(5).await.unwrap()[0].action, "agent.paused");
    assert_eq!(db.due_schedules(at(61), 10).await.unwrap(), []);
    assert!(!db.claim_schedule(o.agent.id, at(60), at(120)).await.unwrap());
    assert!(db.set_paused(o.agent.id, false, o.by_admin(3)).await.unwrap());
    assert_eq!(db.audit_log(5).await.unwrap()[0].action, "agent.resumed");
    assert_eq!(db.due_schedules(at(61), 10).await.unwrap().len(), 1);
    assert!(db.claim_schedule(o.agent.id, at(60), at(120)).await.unwrap());
}

async fn a_trigger_fires_with_its_secret_within_its_hourly_limit(db: Db) {
    let o = org(&db).await;
    let per_hour = TRIGGER_RUNS_PER_HOUR;
    assert_eq!(db.trigger(o.agent.id).await.unwrap(), None);
    assert_eq!(db.fire_trigger(o.agent.id, "hash-1", at(0), per_hour).await.unwrap(), TriggerFire::Refused);
    let t = db.set_trigger(o.agent.id, "hash-1", o.by_admin(0)).await.unwrap();
    assert_eq!((t.made_by, t.made_at), (Some(o.admin.id), at(0)));
    assert_eq!(db.trigger(o.agent.id).await.unwrap(), Some(t));
    assert_eq!(db.audit_log(5).await.unwrap()[0].detail, "made");
    assert_eq!(db.fire_trigger(o.agent.id, "hash-2", at(1), per_hour).await.unwrap(), TriggerFire::Refused);
    assert_eq!(db.fire_trigger(o.agent.id, "hash-1", at(1), per_hour).await.unwrap(), TriggerFire::Fired);

    // Rotated: the old secret stops at once.
    db.set_trigger(o.agent.id, "hash-2", o.by_admin(2)).await.unwrap();
    assert_eq!(db.audit_log(5).await.unwrap()[0].detail, "rotated");
    assert_eq!(db.fire_trigger(o.agent.id, "hash-1", at(2), per_hour).await.unwrap(), TriggerFire::Refused);

    // 60 in an hour, the one fired at minute 1 included; the 61st waits until that one is an hour old.
    for i in 1..per_hour {
        let got = db.fire_trigger(o.agent.id, "hash-2", at(2) + Duration::seconds(i64::from(i)), per_hour).await;
        assert_eq!(got.unwrap(), TriggerFire::Fired, "fire {i}");
    }
    assert_eq!(db.fire_trigger(o.agent.id, "hash-2", at(30), per_hour).await.unwrap(), TriggerFire::Limited);
    assert_eq!(db.fire_trigger(o.agent.id, "hash-2", at(61), per_hour).await.unwrap(), TriggerFire::Fired);

    // Paused, it fires nothing, and a wrong secret still hears only that it is wrong.
    db.set_paused(o.agent.id, true, o.by_admin(62)).await.unwrap();
    assert_eq!(db.fire_trigger(o.agent.id, "hash-2", at(200), per_hour).await.unwrap(), TriggerFire::Paused);
    assert_eq!(db.fire_trigger(o.agent.id, "nope", at(200), per_hour).await.unwrap(), TriggerFire::Refused);

    assert!(db.clear_trigger(o.agent.id, o.by_admin(201)).await.unwrap());
    assert_eq!(db.audit_log(5).await.unwrap()[0].action, "agent.trigger_cleared");
    assert!(!db.clear_trigger(o.agent.id, o.by_admin(202)).await.unwrap());
    assert_eq!(db.trigger(o.agent.id).await.unwrap(), None);
}

async fn concurrent_posts_never_pass_the_hourly_limit(db: Db) {
    let o = org(&db).await;
    db.set_trigger(o.agent.id, "hash", o.by_admin(0)).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..12 {
        let (db, agent) = (db.clone(), o.agent.id);
        tasks.push(tokio::spawn(async move {
            db.fire_trigger(agent, "hash", at(1) + Duration::seconds(i), 5).await.unwrap()
        }));
    }
    let mut fired = 0;
    for t in tasks {
        if t.await.unwrap() == TriggerFire::Fired {
            fired += 1;
        }
    }
    assert_eq!(fired, 5);
}

/// A run of the agent's schedule, for nobody, made at `minutes` and ended as `end` says.
async fn scheduled_run(db: &Db, agent: engine::org::AgentId, minutes: i64, end: Option<RunEnd>) -> RunId {
    let (thread, message) =
        db.create_thread(agent, None, "daily", &Author::Agent(agent), "Summarise.", at(minutes)).await.unwrap();
    let new = NewRun {
        thread: thread.id,
        message: message.id,
        agent,
        for_person: None,
        kind: RunKind::Schedule,
        unwatched: true,
        retry_of: None,
    };
    let run = db.create_run(&new, at(minutes)).await.unwrap();
    if let Some(end) = end {
        db.end_run(run.id, &end, at(minutes)).await.unwrap();
    }
    run.id
}

async fn a_failed_scheduled_run_is_retried_once_however_many_ask(db: Db) {
    let o = org(&db).await;
    let failed = scheduled_run(&db, o.agent.id, 10, Some(crate::runs::failed())).await;
    // Neither an answered one, one still running, nor one made before `since` is taken up.
    scheduled_run(&db, o.agent.id, 11, Some(crate::runs::answered("Two open."))).await;
    scheduled_run(&db, o.agent.id, 12, None).await;
    scheduled_run(&db, o.agent.id, 1, Some(crate::runs::failed())).await;

    // Eight callers, as eight servers' ticks: exactly one takes it up.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let db = db.clone();
        tasks.push(tokio::spawn(async move { db.retry_failed_schedule_runs(at(5), at(20), 10).await.unwrap() }));
    }
    let mut retried = Vec::new();
    for t in tasks {
        retried.extend(t.await.unwrap());
    }
    assert_eq!(retried.len(), 1, "{retried:?}");
    let old = db.run(failed).await.unwrap().unwrap();
    assert_eq!(old.state, RunState::Retried);
    let fresh = db.run(retried[0]).await.unwrap().unwrap();
    assert_eq!((fresh.state, fresh.retry_of, fresh.kind), (RunState::Running, Some(failed), RunKind::Schedule));
    assert_eq!((fresh.thread, fresh.message, fresh.for_person, fresh.unwatched), (old.thread, old.message, None, true));
    assert_eq!(fresh.created_at, at(20));

    // The retry failing too is never taken up again.
    db.end_run(fresh.id, &crate::runs::failed(), at(21)).await.unwrap();
    assert_eq!(db.retry_failed_schedule_runs(at(5), at(22), 10).await.unwrap(), []);

    // A paused agent's failed run waits while it is paused.
    let other = scheduled_run(&db, o.agent.id, 30, Some(crate::runs::failed())).await;
    db.set_paused(o.agent.id, true, o.by_admin(31)).await.unwrap();
    assert_eq!(db.retry_failed_schedule_runs(at(5), at(32), 10).await.unwrap(), []);
    db.set_paused(o.agent.id, false, o.by_admin(33)).await.unwrap();
    let again = db.retry_failed_schedule_runs(at(5), at(34), 10).await.unwrap();
    assert_eq!(db.run(again[0]).await.unwrap().unwrap().retry_of, Some(other));
}
