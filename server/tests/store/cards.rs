//! CardStore, the card side: cards, each person's use of them, forgetting, the cap's counts, and
//! what leaving removes.

use crate::backends::{at, on_both, org, Db};
use crate::connectors::{card, connector};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::activation::{Use, UseSummary, CARD_CAP};
use engine::cards::source::CardField;
use engine::cards::source::KeyMode;
use engine::cards::store::{CardUse, Forgotten, NewCard, OpenWhen, PrepareSetting};
use engine::org::PersonId;
use engine::store::Departure;

on_both! {
    upsert_inserts_then_updates_the_same_identity: sqlite_upsert_inserts_then_updates_the_same_identity,
        postgres_upsert_inserts_then_updates_the_same_identity;
    racing_upserts_of_one_record_make_one_card: sqlite_racing_upserts_of_one_record_make_one_card,
        postgres_racing_upserts_of_one_record_make_one_card;
    uses_are_saved_replaced_and_listed: sqlite_uses_are_saved_replaced_and_listed,
        postgres_uses_are_saved_replaced_and_listed;
    remove_card_takes_every_use_of_it: sqlite_remove_card_takes_every_use_of_it,
        postgres_remove_card_takes_every_use_of_it;
    remove_use_takes_one_persons_place_only: sqlite_remove_use_takes_one_persons_place_only,
        postgres_remove_use_takes_one_persons_place_only;
    forget_keeps_a_record_out_until_a_time: sqlite_forget_keeps_a_record_out_until_a_time,
        postgres_forget_keeps_a_record_out_until_a_time;
    lift_forget_ends_a_forget_early: sqlite_lift_forget_ends_a_forget_early, postgres_lift_forget_ends_a_forget_early;
    counts_and_kept_hold_a_full_cap_of_cards: sqlite_counts_and_kept_hold_a_full_cap_of_cards,
        postgres_counts_and_kept_hold_a_full_cap_of_cards;
    remove_unkept_cards_removes_only_cards_nobody_keeps: sqlite_remove_unkept_cards_removes_only_cards_nobody_keeps,
        postgres_remove_unkept_cards_removes_only_cards_nobody_keeps;
    leaving_removes_the_persons_memory_of_records: sqlite_leaving_removes_the_persons_memory_of_records,
        postgres_leaving_removes_the_persons_memory_of_records;
    a_field_left_out_keeps_its_value_until_read_again: sqlite_a_field_left_out_keeps_its_value_until_read_again,
        postgres_a_field_left_out_keeps_its_value_until_read_again;
}

/// A field missing from the source's answer is unknown, never a change.
async fn a_field_left_out_keeps_its_value_until_read_again(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let field = |name: &str, value: &str| CardField { name: name.into(), value: value.into(), free_text: false };
    let open = Some(OpenWhen { field: "stage".into(), values: vec!["proposal".into()] });
    let first = NewCard {
        fields: vec![field("stage", "proposal"), field("city", "Pune")],
        open_when: open.clone(),
        ..card(c.id, "D-1", KeyKind::Company, None)
    };
    let kept = db.upsert_card(&first).await.unwrap();
    assert!(kept.open_work && kept.not_returned.is_empty());

    let partial = NewCard {
        fields: vec![field("city", "Mumbai")],
        missing: vec!["stage".into()],
        open_when: open.clone(),
        read_at: at(5),
        ..card(c.id, "D-1", KeyKind::Company, None)
    };
    let after = db.upsert_card(&partial).await.unwrap();
    assert_eq!(after.id, kept.id);
    assert_eq!(after.fields, vec![field("stage", "proposal"), field("city", "Mumbai")]);
    assert_eq!(after.not_returned, vec!["stage".to_string()]);
    assert!(after.open_work, "judged on what the card still holds");
    assert_eq!(db.card(kept.id).await.unwrap(), Some(after));

    let full = NewCard {
        fields: vec![field("stage", "won"), field("city", "Mumbai")],
        open_when: open,
        read_at: at(6),
        ..card(c.id, "D-1", KeyKind::Company, None)
    };
    let again = db.upsert_card(&full).await.unwrap();
    assert_eq!(again.fields, vec![field("stage", "won"), field("city", "Mumbai")]);
    assert!(again.not_returned.is_empty() && !again.open_work);
}

pub fn use_of(person: PersonId, card: i64, pinned: bool) -> CardUse {
    let mut summary = UseSummary::default();
    summary.record(Use { at: at(3), weight: 1.0 });
    summary.record(Use { at: at(4), weight: 0.25 });
    CardUse { person, card, summary, pinned, last_use: at(4) }
}

async fn upsert_inserts_then_updates_the_same_identity(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let first = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let want = card(c.id, "D-1", KeyKind::Company, None);
    assert_eq!((first.connector, first.tool.as_str(), first.kind.as_str()), (c.id, "list_deals", "deal"));
    assert_eq!((first.record_id.as_str(), first.version.as_deref()), ("D-1", Some("v1")));
    assert_eq!((first.fields.clone(), first.read_with, first.read_as), (want.fields, KeyKind::Company, None));
    assert_eq!((first.label_when_read, first.open_work, first.read_at), (DataLabel::Internal, false, at(2)));
    assert_eq!(db.card(first.id).await.unwrap(), Some(first.clone()));

    let reread = NewCard {
        tool: "get_deal".into(),
        version: None,
        fields: vec![CardField { name: "notes".into(), value: "Call back \"soon\"".into(), free_text: true }],
        label_when_read: DataLabel::Confidential,
        open_when: Some(OpenWhen { field: "notes".into(), values: vec!["call back \"soon\"".into()] }),
        read_at: at(9),
        ..card(c.id, "D-1", KeyKind::Company, None)
    };
    let updated = db.upsert_card(&reread).await.unwrap();
    assert_eq!(updated.id, first.id, "the same identity is the same card");
    assert_eq!(
        (updated.tool.as_str(), updated.version.clone(), updated.fields.clone()),
        ("get_deal", None, reread.fields)
    );
    assert_eq!((updated.label_when_read, updated.open_work, updated.read_at), (DataLabel::Confidential, true, at(9)));

    let as_alice = db.upsert_card(&card(c.id, "D-1", KeyKind::ActingFor, Some(o.alice.id))).await.unwrap();
    let as_bob = db.upsert_card(&card(c.id, "D-1", KeyKind::ActingFor, Some(o.bob.id))).await.unwrap();
    let own = db.upsert_card(&card(c.id, "D-1", KeyKind::OwnKey, Some(o.alice.id))).await.unwrap();
    let lead = NewCard { kind: "lead".into(), ..card(c.id, "D-1", KeyKind::Company, None) };
    let other_kind = db.upsert_card(&lead).await.unwrap();
    let ids = [first.id, as_alice.id, as_bob.id, own.id, other_kind.id];
    let mut distinct = ids.to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 5, "key kind, person read as and kind each make another card: {ids:?}");
    assert_eq!(as_alice.read_as, Some(o.alice.id));
    assert_eq!(db.card(9_999).await.unwrap(), None);
}

async fn racing_upserts_of_one_record_make_one_card(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::ActingFor).await;
    let upserts: Vec<_> = (0..8)
        .map(|i| {
            let db = db.clone();
            let new =
                NewCard { version: Some(format!("v{i}")), ..card(c.id, "D-1", KeyKind::ActingFor, Some(o.alice.id)) };
            tokio::spawn(async move { db.upsert_card(&new).await })
        })
        .collect();
    let mut ids = Vec::new();
    for u in upserts {
        ids.push(u.await.unwrap().expect("every racing upsert succeeds").id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    db.save_use(&use_of(o.alice.id, ids[0], false)).await.unwrap();
    assert_eq!(db.all_uses().await.unwrap().len(), 1);
    assert_eq!(db.remove_unkept_cards(o.by_admin(5)).await.unwrap(), 0, "no second card was left behind");
}

async fn uses_are_saved_replaced_and_listed(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let a = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let b = db.upsert_card(&card(c.id, "D-2", KeyKind::Company, None)).await.unwrap();
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), None);
    assert_eq!((db.kept(o.alice.id).await.unwrap(), db.counts(o.alice.id).await.unwrap()), (vec![], (0, 0)));

    db.save_use(&use_of(o.alice.id, b.id, false)).await.unwrap();
    db.save_use(&use_of(o.alice.id, a.id, false)).await.unwrap();
    db.save_use(&use_of(o.bob.id, a.id, false)).await.unwrap();
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), Some(use_of(o.alice.id, a.id, false)));

    let mut again = use_of(o.alice.id, a.id, true);
    again.summary.record(Use { at: at(7), weight: 0.5 });
    again.last_use = at(7);
    db.save_use(&again).await.unwrap();
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), Some(again.clone()), "the use is replaced, not added");
    assert_eq!(
        db.kept(o.alice.id).await.unwrap(),
        [(a.clone(), again.clone()), (b.clone(), use_of(o.alice.id, b.id, false))]
    );
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (2, 1));
    assert_eq!(db.counts(o.bob.id).await.unwrap(), (1, 0));
    let all: Vec<_> = db.all_uses().await.unwrap().into_iter().map(|(c, u)| (c.id, u.person)).collect();
    assert_eq!(all.len(), 3);
    for pair in [(a.id, o.alice.id), (a.id, o.bob.id), (b.id, o.alice.id)] {
        assert!(all.contains(&pair), "{pair:?} in {all:?}");
    }
}

async fn remove_card_takes_every_use_of_it(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let a = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let b = db.upsert_card(&card(c.id, "D-2", KeyKind::Company, None)).await.unwrap();
    for (p, id) in [(o.alice.id, a.id), (o.bob.id, a.id), (o.alice.id, b.id)] {
        db.save_use(&use_of(p, id, true)).await.unwrap();
    }
    db.remove_card(a.id, "the tool was unticked", o.by_admin(5)).await.unwrap();
    assert_eq!(db.card(a.id).await.unwrap(), None);
    assert_eq!(
        (db.card_use(o.alice.id, a.id).await.unwrap(), db.card_use(o.bob.id, a.id).await.unwrap()),
        (None, None)
    );
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (1, 1));
    assert_eq!(db.card(b.id).await.unwrap(), Some(b));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("card.remove", format!("card:{}", a.id)));
    assert_eq!(entry.detail, "the tool was unticked");
}

async fn remove_use_takes_one_persons_place_only(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let a = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    db.save_use(&use_of(o.alice.id, a.id, false)).await.unwrap();
    db.save_use(&use_of(o.bob.id, a.id, false)).await.unwrap();
    db.remove_use(o.alice.id, a.id, "outranked by a new card", o.by_admin(5)).await.unwrap();
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), None);
    assert_eq!(db.card_use(o.bob.id, a.id).await.unwrap(), Some(use_of(o.bob.id, a.id, false)));
    assert_eq!(db.card(a.id).await.unwrap(), Some(a.clone()), "the card stays for others");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("card_use.remove", format!("person:{}", o.alice.id)));
    assert_eq!(entry.detail, format!("card:{}: outranked by a new card", a.id));

    let audited = db.audit_log(100).await.unwrap().len();
    db.remove_use(o.alice.id, a.id, "again", o.by_admin(6)).await.unwrap();
    assert_eq!(db.audit_log(100).await.unwrap().len(), audited, "removing nothing audits nothing");
}

async fn forget_keeps_a_record_out_until_a_time(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let a = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let b = db.upsert_card(&card(c.id, "D-2", KeyKind::Company, None)).await.unwrap();
    db.save_use(&use_of(o.alice.id, a.id, true)).await.unwrap();
    db.save_use(&use_of(o.bob.id, a.id, false)).await.unwrap();

    db.forget(o.alice.id, &a, at(100), o.by_admin(10)).await.unwrap();
    db.forget(o.alice.id, &b, at(200), o.by_admin(11)).await.unwrap();
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), None, "forgetting removes the use");
    assert!(db.card_use(o.bob.id, a.id).await.unwrap().is_some());
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.detail.clone()), ("card.forget", format!("card:{}", b.id)));

    let f = |record: &str, forgotten: i64, until: i64| Forgotten {
        connector: c.id,
        kind: "deal".into(),
        record_id: record.into(),
        tool: "list_deals".into(),
        forgotten_at: at(forgotten),
        until: at(until),
    };
    assert_eq!(db.forgotten(o.alice.id, at(50)).await.unwrap(), [f("D-2", 11, 200), f("D-1", 10, 100)]);
    assert_eq!(db.forgotten(o.alice.id, at(100)).await.unwrap(), [f("D-2", 11, 200)], "kept out until, not at");
    assert_eq!(db.forgotten(o.bob.id, at(50)).await.unwrap(), []);
    assert_eq!(db.forgotten_until(o.alice.id, c.id, "deal", "D-1").await.unwrap(), Some(at(100)));
    assert_eq!(db.forgotten_until(o.alice.id, c.id, "lead", "D-1").await.unwrap(), None);
    assert_eq!(db.forgotten_until(o.bob.id, c.id, "deal", "D-1").await.unwrap(), None);

    db.forget(o.alice.id, &a, at(300), o.by_admin(12)).await.unwrap();
    assert_eq!(db.forgotten(o.alice.id, at(50)).await.unwrap(), [f("D-1", 12, 300), f("D-2", 11, 200)], "replaced");
}

async fn lift_forget_ends_a_forget_early(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let a = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    db.forget(o.alice.id, &a, at(100), o.by_admin(10)).await.unwrap();
    let forgotten = db.forgotten(o.alice.id, at(50)).await.unwrap().remove(0);
    db.lift_forget(o.alice.id, &forgotten, "pinned back", o.by_admin(20)).await.unwrap();
    assert_eq!(db.forgotten(o.alice.id, at(50)).await.unwrap(), []);
    assert_eq!(db.forgotten_until(o.alice.id, c.id, "deal", "D-1").await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.subject.clone()),
        ("card.forget_lifted", format!("person:{}", o.alice.id))
    );
    assert_eq!(entry.detail, "pinned back");

    db.forget(o.alice.id, &a, at(400), o.by_admin(30)).await.unwrap();
    assert_eq!(db.forgotten_until(o.alice.id, c.id, "deal", "D-1").await.unwrap(), Some(at(400)), "forgotten anew");
}

async fn counts_and_kept_hold_a_full_cap_of_cards(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let cap = CARD_CAP as u32;
    for i in 0..cap {
        let kept = db.upsert_card(&card(c.id, &format!("D-{i:03}"), KeyKind::Company, None)).await.unwrap();
        db.save_use(&use_of(o.alice.id, kept.id, i % 30 == 0)).await.unwrap();
    }
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (cap, cap / 30));
    let kept = db.kept(o.alice.id).await.unwrap();
    assert_eq!(kept.len(), CARD_CAP);
    assert!(kept.windows(2).all(|w| w[0].0.id < w[1].0.id), "kept in card order");
    assert!(kept.iter().all(|(card, u)| u.card == card.id && u.person == o.alice.id));
    assert_eq!(db.counts(o.bob.id).await.unwrap(), (0, 0));
}

async fn remove_unkept_cards_removes_only_cards_nobody_keeps(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let kept = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let loose = db.upsert_card(&card(c.id, "D-2", KeyKind::Company, None)).await.unwrap();
    db.upsert_card(&card(c.id, "D-3", KeyKind::Company, None)).await.unwrap();
    db.save_use(&use_of(o.bob.id, kept.id, false)).await.unwrap();
    assert_eq!(db.remove_unkept_cards(o.by_admin(5)).await.unwrap(), 2);
    assert_eq!(db.card(kept.id).await.unwrap(), Some(kept));
    assert_eq!(db.card(loose.id).await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.detail.as_str()), ("card.remove_unkept", "2 cards nobody keeps"));
    let audited = db.audit_log(100).await.unwrap().len();
    assert_eq!(db.remove_unkept_cards(o.by_admin(6)).await.unwrap(), 0);
    assert_eq!(db.audit_log(100).await.unwrap().len(), audited, "removing none audits nothing");
}

async fn leaving_removes_the_persons_memory_of_records(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::ActingFor).await;
    let shared = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let as_alice = db.upsert_card(&card(c.id, "D-2", KeyKind::ActingFor, Some(o.alice.id))).await.unwrap();
    let as_bob = db.upsert_card(&card(c.id, "D-3", KeyKind::ActingFor, Some(o.bob.id))).await.unwrap();
    for (p, id) in [
        (o.alice.id, shared.id),
        (o.bob.id, shared.id),
        (o.alice.id, as_alice.id),
        (o.bob.id, as_alice.id),
        (o.bob.id, as_bob.id),
    ] {
        db.save_use(&use_of(p, id, false)).await.unwrap();
    }
    db.set_person_key(c.id, o.alice.id, "alice-key", o.by_admin(2)).await.unwrap();
    db.set_person_key(c.id, o.bob.id, "bob-key", o.by_admin(2)).await.unwrap();
    let on = PrepareSetting { enabled: true, at_time: "08:00".into(), last_local_date: None };
    db.save_prepare_setting(o.alice.id, &on).await.unwrap();
    db.save_prepare_setting(o.bob.id, &on).await.unwrap();

    let list = engine::cards::snapshots::NewSnapshot {
        person: o.alice.id,
        connector: c.id,
        tool: "list_deals".into(),
        arguments: serde_json::json!({}),
        asked: "my deals".into(),
        records: vec!["D-2".into()],
        taken_at: at(2),
    };
    db.keep_snapshot(&list).await.unwrap();
    let gone = db.mark_left(o.alice.id, o.by_admin(3)).await.unwrap();
    assert_eq!(gone, Departure { tokens: 0, uses: 3, cards: 1 }, "her two uses, bob's use of a card read as her");
    assert_eq!(db.card(as_alice.id).await.unwrap(), None);
    assert_eq!(db.card(shared.id).await.unwrap(), Some(shared.clone()));
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (0, 0));
    assert!(db.snapshots_of(o.alice.id).await.unwrap().is_empty(), "her lists are closed");
    assert_eq!(db.counts(o.bob.id).await.unwrap(), (2, 0));
    assert_eq!(db.person_key(c.id, o.alice.id).await.unwrap(), None);
    assert_eq!(db.person_key(c.id, o.bob.id).await.unwrap().as_deref(), Some("bob-key"));
    assert!(!db.prepare_setting(o.alice.id).await.unwrap().enabled);
    assert_eq!(db.prepare_enabled().await.unwrap(), [(o.bob.id, on)]);
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, "0 tokens revoked, 3 uses and 1 cards removed");
}

on_both! {
    removals_racing_a_purge_of_the_same_cards_all_succeed:
        sqlite_removals_racing_a_purge_of_the_same_cards_all_succeed,
        postgres_removals_racing_a_purge_of_the_same_cards_all_succeed;
}

/// Removing cards one by one while Keep cards off purges the same cards: every call succeeds, none
/// is refused as a deadlock, and nothing of the connector is left.
async fn removals_racing_a_purge_of_the_same_cards_all_succeed(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    for round in 0..5 {
        db.set_keep_cards(c.id, true, o.by_admin(round)).await.unwrap();
        let mut ids = Vec::new();
        for i in 0..20 {
            let kept = db.upsert_card(&card(c.id, &format!("D-{round}-{i}"), KeyKind::Company, None)).await.unwrap();
            db.save_use(&use_of(o.alice.id, kept.id, false)).await.unwrap();
            db.save_use(&use_of(o.bob.id, kept.id, true)).await.unwrap();
            ids.push(kept.id);
        }
        // Newest first, so the removals meet the purge, which goes oldest first, in the middle.
        let mut racing: Vec<_> = ids
            .iter()
            .rev()
            .map(|&id| {
                let db = db.clone();
                let by = o.by_admin(round);
                tokio::spawn(async move { db.remove_card(id, "the tool was unticked", by).await })
            })
            .collect();
        let purge = {
            let db = db.clone();
            let by = o.by_admin(round);
            tokio::spawn(async move { db.set_keep_cards(c.id, false, by).await.map(|_| ()) })
        };
        racing.push(purge);
        for r in racing {
            r.await.unwrap().expect("every removal and the purge succeed");
        }
        assert_eq!(db.counts(o.alice.id).await.unwrap(), (0, 0));
        assert!(db.snapshots_of(o.alice.id).await.unwrap().is_empty(), "her lists are closed");
        assert_eq!(db.counts(o.bob.id).await.unwrap(), (0, 0));
        for id in ids {
            assert_eq!(db.card(id).await.unwrap(), None);
        }
    }
}

on_both! {
    a_use_saved_while_unkept_cards_go_is_kept_or_refused:
        sqlite_a_use_saved_while_unkept_cards_go_is_kept_or_refused,
        postgres_a_use_saved_while_unkept_cards_go_is_kept_or_refused;
}

/// The forgetting job removes cards nobody keeps while a read saves the first use of a new card: the
/// save either lands before (the card and its use stay) or is refused (the card is gone); a save
/// that succeeded is never undone by the job.
async fn a_use_saved_while_unkept_cards_go_is_kept_or_refused(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    for i in 0..100 {
        let fresh = db.upsert_card(&card(c.id, &format!("D-{i}"), KeyKind::Company, None)).await.unwrap();
        let job = {
            let db = db.clone();
            let by = o.by_admin(5);
            tokio::spawn(async move { db.remove_unkept_cards(by).await })
        };
        let saved = db.save_use(&use_of(o.alice.id, fresh.id, false)).await;
        job.await.unwrap().expect("the job succeeds");
        if saved.is_ok() {
            assert_eq!(db.card_use(o.alice.id, fresh.id).await.unwrap(), Some(use_of(o.alice.id, fresh.id, false)));
            assert_eq!(db.card(fresh.id).await.unwrap(), Some(fresh), "round {i}");
        }
    }
}
