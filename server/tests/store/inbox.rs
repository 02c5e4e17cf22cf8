//! The Inbox: an action waits for its person, is approved or declined once (two decisions never
//! both stand), is then done or failed with its outcome, and is never deleted.

use crate::backends::{actor, at, on_both, org, Db, Org};
use crate::connectors::connector;
use crate::runs;
use engine::cards::source::KeyMode;
use engine::runs::inbox::{ActionKind, ActionState, NewAction};
use engine::runs::RunId;
use engine::store::StoreError;
use serde_json::json;

on_both! {
    an_action_waits_then_is_decided_once_and_finished: sqlite_an_action_waits_then_is_decided_once_and_finished,
        postgres_an_action_waits_then_is_decided_once_and_finished;
    racing_decisions_leave_exactly_one: sqlite_racing_decisions_leave_exactly_one,
        postgres_racing_decisions_leave_exactly_one;
    each_person_sees_their_own_newest_first: sqlite_each_person_sees_their_own_newest_first,
        postgres_each_person_sees_their_own_newest_first;
}

pub fn new_action(o: &Org, run: RunId, connector: Option<i64>) -> NewAction {
    NewAction {
        person: o.alice.id,
        run,
        kind: ActionKind::Write,
        connector,
        tool: "update_lead".into(),
        arguments: json!({"id": "L-1001", "stage": "Won"}),
        line: "update_lead on Acme ATS".into(),
    }
}

async fn a_run(db: &Db, o: &Org) -> RunId {
    let t = runs::thread(db, o, "move Nimbus to won", 1).await;
    runs::run(db, o, t.id, 1).await.id
}

async fn an_action_waits_then_is_decided_once_and_finished(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let run = a_run(&db, &o).await;
    let added = db.add_action(&new_action(&o, run, Some(crm.id)), at(2)).await.unwrap();
    assert_eq!(added.state, ActionState::Waiting);
    assert_eq!(
        (added.person, added.run, added.kind, added.connector),
        (o.alice.id, run, ActionKind::Write, Some(crm.id))
    );
    assert_eq!(added.arguments, json!({"id": "L-1001", "stage": "Won"}));
    assert_eq!((added.outcome.clone(), added.created_at, added.decided_at), (None, at(2), None));
    assert_eq!(db.action(added.id).await.unwrap(), Some(added.clone()));

    let by_alice = actor(Some(o.alice.id), 3);
    let finished = db.finish_action(added.id, ActionState::Done, "Done", at(3)).await;
    assert_eq!(finished.unwrap_err(), StoreError::Changed { current: 0 }, "only an approved action is carried out");
    let approved = db.decide_action(added.id, ActionState::Approved, by_alice).await.unwrap();
    assert_eq!((approved.state, approved.decided_at), (ActionState::Approved, Some(at(3))));
    let again = db.decide_action(added.id, ActionState::Declined, actor(Some(o.alice.id), 4)).await;
    assert_eq!(again.unwrap_err(), StoreError::Changed { current: 0 }, "a decided action stays decided");
    let log = db.audit_log(10).await.unwrap();
    assert!(log.iter().any(|e| e.action == "inbox.approved" && e.subject == format!("inbox_action:{}", added.id)));
    assert!(!log.iter().any(|e| e.action == "inbox.declined"), "the refused decision changed nothing");

    let done = db.finish_action(added.id, ActionState::Done, "Done", at(5)).await.unwrap();
    assert_eq!((done.state, done.outcome.as_deref(), done.decided_at), (ActionState::Done, Some("Done"), Some(at(3))));
    let twice = db.finish_action(added.id, ActionState::Failed, "Not done", at(6)).await;
    assert_eq!(twice.unwrap_err(), StoreError::Changed { current: 0 }, "carried out once");

    let other = db.add_action(&new_action(&o, run, None), at(7)).await.unwrap();
    let declined = db.decide_action(other.id, ActionState::Declined, actor(Some(o.alice.id), 8)).await.unwrap();
    assert_eq!((declined.state, declined.connector), (ActionState::Declined, None));
    assert_eq!(db.action(other.id).await.unwrap().unwrap().state, ActionState::Declined, "kept, never deleted");
    assert_eq!(db.action(9_999).await.unwrap(), None);
    assert!(matches!(db.decide_action(9_999, ActionState::Approved, by_alice).await, Err(StoreError::NotFound(_))));
}

async fn racing_decisions_leave_exactly_one(db: Db) {
    let o = org(&db).await;
    let run = a_run(&db, &o).await;
    let added = db.add_action(&new_action(&o, run, None), at(2)).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..6 {
        let db = db.clone();
        let to = if i % 2 == 0 { ActionState::Approved } else { ActionState::Declined };
        let by = actor(Some(o.alice.id), 3);
        tasks.push(tokio::spawn(async move { db.decide_action(added.id, to, by).await }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => won += 1,
            Err(e) => assert_eq!(e, StoreError::Changed { current: 0 }),
        }
    }
    assert_eq!(won, 1, "exactly one decision stands");
    let log = db.audit_log(20).await.unwrap();
    assert_eq!(log.iter().filter(|e| e.action.starts_with("inbox.")).count(), 1, "and only it is audited");
}

async fn each_person_sees_their_own_newest_first(db: Db) {
    let o = org(&db).await;
    let run = a_run(&db, &o).await;
    let first = db.add_action(&new_action(&o, run, None), at(2)).await.unwrap();
    let second = db.add_action(&new_action(&o, run, None), at(3)).await.unwrap();
    let bobs = db.add_action(&NewAction { person: o.bob.id, ..new_action(&o, run, None) }, at(4)).await.unwrap();
    // Every kind of action is kept as it was added.
    for (kind, tool) in [(ActionKind::Send, "send_email"), (ActionKind::Task, "create_task")] {
        let a =
            db.add_action(&NewAction { kind, tool: tool.into(), ..new_action(&o, run, None) }, at(5)).await.unwrap();
        assert_eq!(db.action(a.id).await.unwrap().map(|a| (a.kind, a.tool)), Some((kind, tool.to_string())));
        db.decide_action(a.id, ActionState::Declined, actor(Some(o.alice.id), 6)).await.unwrap();
    }
    let ids = |v: Vec<engine::runs::inbox::InboxAction>| v.into_iter().map(|a| a.id).collect::<Vec<_>>();
    let hers = ids(db.inbox(o.alice.id, 10).await.unwrap());
    assert_eq!(hers[2..], [second.id, first.id]);
    assert_eq!(hers.len(), 4);
    assert_eq!(ids(db.inbox(o.bob.id, 10).await.unwrap()), vec![bobs.id]);
    assert!(db.inbox(o.admin.id, 10).await.unwrap().is_empty());
}
