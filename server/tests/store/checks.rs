//! The check after an answer in the store: recorded once with its step and its event, counted per
//! connector and kind of fact, and the notice that a limit may be too long raised once.

use crate::backends::{at, on_both, org, Db};
use crate::connectors::connector;
use crate::runs::{answered, run, thread};
use engine::cards::facts::FactKind;
use engine::cards::source::KeyMode;
use engine::runs::check::{CheckEnd, CheckState};
use engine::runs::{MemoryRef, RunCheck, RunEnd, StepKind};
use engine::store::StoreError;

on_both! {
    a_check_is_recorded_once_with_its_step_and_event: sqlite_a_check_is_recorded_once_with_its_step_and_event,
        postgres_a_check_is_recorded_once_with_its_step_and_event;
    the_notice_comes_once_past_two_percent_of_a_hundred:
        sqlite_the_notice_comes_once_past_two_percent_of_a_hundred,
        postgres_the_notice_comes_once_past_two_percent_of_a_hundred;
    racing_checks_record_one: sqlite_racing_checks_record_one, postgres_racing_checks_record_one;
    checked_only_is_set_per_role_or_team_and_audited: sqlite_checked_only_is_set_per_role_or_team_and_audited,
        postgres_checked_only_is_set_per_role_or_team_and_audited;
    stale_checks_are_the_checking_ones_that_ended_before: sqlite_stale_checks_are_the_checking_ones_that_ended_before,
        postgres_stale_checks_are_the_checking_ones_that_ended_before;
}

fn checking() -> RunEnd {
    RunEnd { check: Some(CheckState::Checking), ..answered("Stage: Proposal.") }
}

fn changed(facts: Vec<(i64, FactKind, bool)>) -> CheckEnd {
    CheckEnd {
        state: CheckState::Changed,
        reason: None,
        line: "Checked 1 record against Acme ATS: 1 change".into(),
        words: vec!["stage: Proposal → Won (Acme ATS, read just now)".into()],
        facts,
        refs: vec![MemoryRef::Card("card:7".into())],
    }
}

async fn a_check_is_recorded_once_with_its_step_and_event(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "Acme ATS", KeyMode::Company).await;
    let t = thread(&db, &o, "where is L-1001", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    let ended = db.end_run(r.id, &checking(), at(3)).await.unwrap();
    assert_eq!(ended.check, Some(RunCheck { state: CheckState::Checking, reason: None }));
    let end = changed(vec![(c.id, FactKind::State, true), (c.id, FactKind::Reference, false)]);
    let notices = db.record_check(r.id, &end, at(4)).await.unwrap();
    assert!(notices.is_empty(), "two checks say nothing of a limit");
    let checked = db.run(r.id).await.unwrap().unwrap();
    assert_eq!(checked.check, Some(RunCheck { state: CheckState::Changed, reason: None }));
    let step = checked.steps.last().unwrap();
    assert_eq!((step.kind, step.line.as_str(), step.at), (StepKind::Checked, end.line.as_str(), at(4)));
    assert_eq!((step.words.clone(), step.refs.clone()), (end.words.clone(), end.refs.clone()));
    // The event names the thread, the answer's message and the state, and nothing else.
    let answer = db.messages(t.id).await.unwrap().into_iter().find(|m| m.answer_of == Some(r.id)).unwrap();
    let events = db.events_after(0, 10).await.unwrap();
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(
        (e.name.as_str(), e.run, e.thread, e.message, e.connector, e.state.as_deref(), e.refs.is_empty()),
        ("message_checked", None, Some(t.id), Some(answer.id), None, Some("changed"), true)
    );
    let again = db.record_check(r.id, &end, at(5)).await;
    assert_eq!(again, Err(StoreError::Changed { current: 0 }), "a check is recorded once");
    assert_eq!(db.run(r.id).await.unwrap().unwrap().steps.len(), checked.steps.len());

    // Not checked keeps its reason; a run that needed none cannot be given one.
    let r2 = run(&db, &o, t.id, 6).await;
    db.end_run(r2.id, &checking(), at(7)).await.unwrap();
    let down = CheckEnd {
        state: CheckState::NotChecked,
        reason: Some("Acme ATS: the source could not be reached".into()),
        line: "Not checked: Acme ATS: the source could not be reached".into(),
        words: vec![],
        facts: vec![],
        refs: vec![],
    };
    db.record_check(r2.id, &down, at(8)).await.unwrap();
    assert_eq!(db.run(r2.id).await.unwrap().unwrap().check.unwrap().reason, down.reason);
    let r3 = run(&db, &o, t.id, 9).await;
    let plain = db.end_run(r3.id, &RunEnd { check: Some(CheckState::NotNeeded), ..answered("ok") }, at(10)).await;
    assert_eq!(plain.unwrap().check.unwrap().state, CheckState::NotNeeded);
    assert_eq!(db.record_check(r3.id, &down, at(11)).await, Err(StoreError::Changed { current: 0 }));
}

async fn the_notice_comes_once_past_two_percent_of_a_hundred(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "Acme ATS", KeyMode::Company).await;
    let t = thread(&db, &o, "q", 1).await;
    let mut raised = Vec::new();
    // 97 checks with no change, then three with a change of an amount: the 100th is the third
    // change among the last 100, more than 2%.
    for i in 0..101 {
        let r = run(&db, &o, t.id, 2).await;
        db.end_run(r.id, &checking(), at(3)).await.unwrap();
        let change = (97..100).contains(&i);
        let end = changed(vec![(c.id, FactKind::Moving, change), (c.id, FactKind::State, false)]);
        let notices = db.record_check(r.id, &end, at(4 + i)).await.unwrap();
        raised.push((i, notices));
    }
    let told: Vec<_> = raised.iter().filter(|(_, n)| !n.is_empty()).collect();
    assert_eq!(told.len(), 1, "told once: {told:?}");
    let (i, notices) = told[0];
    assert_eq!(*i, 99);
    assert_eq!(
        (notices[0].connector, notices[0].kind, notices[0].changed, notices[0].of_checks),
        (c.id, FactKind::Moving, 3, 100)
    );
    assert_eq!(db.limit_notices(c.id).await.unwrap(), notices.clone());
    let events = db.events_after(0, 1000).await.unwrap();
    let limit: Vec<_> = events.iter().filter(|e| e.name == "limit_may_be_too_long").collect();
    assert_eq!(limit.len(), 1);
    assert_eq!(
        (limit[0].connector, limit[0].state.as_deref(), limit[0].run, limit[0].thread),
        (Some(c.id), Some("moving"), None, None)
    );
}

async fn racing_checks_record_one(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "Acme ATS", KeyMode::Company).await;
    let t = thread(&db, &o, "q", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    db.end_run(r.id, &checking(), at(3)).await.unwrap();
    let racing: Vec<_> = (0..6)
        .map(|_| {
            let (db, end) = (db.clone(), changed(vec![(c.id, FactKind::State, true)]));
            tokio::spawn(async move { db.record_check(r.id, &end, at(4)).await.is_ok() })
        })
        .collect();
    let mut won = 0;
    for h in racing {
        won += usize::from(h.await.unwrap());
    }
    assert_eq!(won, 1);
    let steps = db.run(r.id).await.unwrap().unwrap().steps;
    assert_eq!(steps.iter().filter(|s| s.kind == StepKind::Checked).count(), 1);
    let events = db.events_after(0, 100).await.unwrap();
    assert_eq!(events.iter().filter(|e| e.name == "message_checked").count(), 1);
}

async fn checked_only_is_set_per_role_or_team_and_audited(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.checked_only().await.unwrap(), Vec::<String>::new(), "off by default");
    db.set_checked_only("role:sales", true, o.by_admin(1)).await.unwrap();
    db.set_checked_only("team:7", true, o.by_admin(2)).await.unwrap();
    db.set_checked_only("role:sales", true, o.by_admin(3)).await.unwrap();
    assert_eq!(db.checked_only().await.unwrap(), ["role:sales", "team:7"]);
    db.set_checked_only("team:7", false, o.by_admin(4)).await.unwrap();
    db.set_checked_only("team:7", false, o.by_admin(5)).await.unwrap();
    assert_eq!(db.checked_only().await.unwrap(), ["role:sales"]);
    let log = db.audit_log(100).await.unwrap();
    let mine: Vec<(&str, &str)> = log
        .iter()
        .filter(|e| e.action.starts_with("checked_only"))
        .map(|e| (e.action.as_str(), e.subject.as_str()))
        .collect();
    assert_eq!(mine.len(), 3, "a change is audited once, a repeat not at all: {mine:?}");
    assert!(mine.contains(&("checked_only.off", "team:7")));
}

async fn stale_checks_are_the_checking_ones_that_ended_before(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let old = run(&db, &o, t.id, 2).await;
    db.end_run(old.id, &checking(), at(3)).await.unwrap();
    let done = run(&db, &o, t.id, 2).await;
    db.end_run(done.id, &checking(), at(3)).await.unwrap();
    db.record_check(done.id, &changed(vec![]), at(4)).await.unwrap();
    let plain = run(&db, &o, t.id, 2).await;
    db.end_run(plain.id, &answered("ok"), at(3)).await.unwrap();
    let recent = run(&db, &o, t.id, 19).await;
    db.end_run(recent.id, &checking(), at(20)).await.unwrap();
    let running = run(&db, &o, t.id, 2).await;
    assert_eq!(db.stale_checks(at(10)).await.unwrap(), [old.id]);
    assert_eq!(db.stale_checks(at(30)).await.unwrap(), [old.id, recent.id]);
    assert_eq!(db.stale_checks(at(3)).await.unwrap(), [], "ended at the bound is not before it");
    assert!(!db.stale_checks(at(30)).await.unwrap().contains(&running.id), "a running run has no check yet");
}
