//! SnapshotStore: a person's list snapshots, kept newest first; the same query or question kept
//! again closes the one before it, also when two servers keep it at once.

use crate::backends::{at, on_both, org, Db};
use crate::connectors::connector;
use engine::cards::snapshots::NewSnapshot;
use engine::cards::source::KeyMode;
use engine::org::PersonId;
use serde_json::json;

on_both! {
    a_list_kept_again_closes_the_one_before: sqlite_a_list_kept_again_closes_the_one_before,
        postgres_a_list_kept_again_closes_the_one_before;
    lists_kept_at_once_leave_one_open: sqlite_lists_kept_at_once_leave_one_open,
        postgres_lists_kept_at_once_leave_one_open;
}

fn snapshot(person: PersonId, connector: i64, day: &str, asked: &str, records: &[&str], minute: i64) -> NewSnapshot {
    NewSnapshot {
        person,
        connector,
        tool: "list_leads".into(),
        arguments: json!({"owner": "alice@acme.test", "follow_up_on": day}),
        asked: asked.into(),
        records: records.iter().map(|r| r.to_string()).collect(),
        taken_at: at(minute),
    }
}

async fn a_list_kept_again_closes_the_one_before(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "Acme ATS", KeyMode::Company).await;
    let today = "Leads with a follow-up today";
    assert!(db.snapshots_of(o.alice.id).await.unwrap().is_empty());

    let first = db.keep_snapshot(&snapshot(o.alice.id, c.id, "2026-12-02", today, &["L-1", "L-2"], 1)).await.unwrap();
    assert_eq!(
        (first.person, first.asked.as_str(), first.records.clone(), first.taken_at),
        (o.alice.id, today, vec!["L-1".to_string(), "L-2".to_string()], at(1))
    );
    assert_eq!(first.arguments, json!({"owner": "alice@acme.test", "follow_up_on": "2026-12-02"}));
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap(), std::slice::from_ref(&first));

    // The same query again, and the same question on another day: each closes the one before.
    let again =
        db.keep_snapshot(&snapshot(o.alice.id, c.id, "2026-12-02", "my follow-ups", &["L-1"], 2)).await.unwrap();
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap(), std::slice::from_ref(&again));
    let tomorrow = db.keep_snapshot(&snapshot(o.alice.id, c.id, "2026-12-03", "my follow-ups", &[], 3)).await.unwrap();
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap(), std::slice::from_ref(&tomorrow));
    assert!(tomorrow.records.is_empty());

    // Another list stays beside it, and Bob's are his own.
    let deals = db.keep_snapshot(&snapshot(o.alice.id, c.id, "x", "My open deals", &["L-9"], 4)).await.unwrap();
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap(), [deals, tomorrow]);
    db.keep_snapshot(&snapshot(o.bob.id, c.id, "2026-12-03", "my follow-ups", &["L-5"], 5)).await.unwrap();
    assert_eq!(db.snapshots_of(o.bob.id).await.unwrap().len(), 1);
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap().len(), 2);
}

async fn lists_kept_at_once_leave_one_open(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "Acme ATS", KeyMode::Company).await;
    let keeps: Vec<_> = (0..8)
        .map(|i| {
            let db = db.clone();
            let s = snapshot(o.alice.id, c.id, "2026-12-02", "my follow-ups", &["L-1"], i);
            tokio::spawn(async move { db.keep_snapshot(&s).await })
        })
        .collect();
    for kept in keeps {
        kept.await.unwrap().expect("each keep lands, closing the one before");
    }
    assert_eq!(db.snapshots_of(o.alice.id).await.unwrap().len(), 1);
}
