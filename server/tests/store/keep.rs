//! KeptCardStore's `keep_card`: one record kept for a person in one transaction, with the card,
//! the use and the cap decided together, so racing keeps make one card and never pass the cap.

use crate::backends::{at, on_both, org, Db};
use crate::cards::use_of;
use crate::connectors::{card, connector};
use engine::cards::access::KeyKind;
use engine::cards::activation::{Use, UseSummary, CARD_CAP};
use engine::cards::keep::Keep;
use engine::cards::source::KeyMode;
use engine::cards::store::{CardUse, NewCard};
use engine::org::PersonId;

on_both! {
    keep_card_makes_the_card_and_its_use_then_adds_uses:
        sqlite_keep_card_makes_the_card_and_its_use_then_adds_uses,
        postgres_keep_card_makes_the_card_and_its_use_then_adds_uses;
    keep_card_keeps_a_forgotten_record_out_unless_pinned_back:
        sqlite_keep_card_keeps_a_forgotten_record_out_unless_pinned_back,
        postgres_keep_card_keeps_a_forgotten_record_out_unless_pinned_back;
    keep_card_at_the_cap_evicts_the_weakest_and_audits_it:
        sqlite_keep_card_at_the_cap_evicts_the_weakest_and_audits_it,
        postgres_keep_card_at_the_cap_evicts_the_weakest_and_audits_it;
    racing_keeps_of_one_record_make_one_card_and_one_use:
        sqlite_racing_keeps_of_one_record_make_one_card_and_one_use,
        postgres_racing_keeps_of_one_record_make_one_card_and_one_use;
    racing_keeps_at_the_cap_never_go_over_it: sqlite_racing_keeps_at_the_cap_never_go_over_it,
        postgres_racing_keeps_at_the_cap_never_go_over_it;
}

fn keep(person: PersonId, card: NewCard, minutes: i64, pin_back: bool) -> Keep {
    Keep { person, card: NewCard { read_at: at(minutes), ..card }, weight: 1.0, pin_back, at: at(minutes) }
}

async fn keep_card_makes_the_card_and_its_use_then_adds_uses(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let new = card(c.id, "D-1", KeyKind::Company, None);
    assert!(db.keep_card(&keep(o.alice.id, new.clone(), 10, false), o.by_admin(10)).await.unwrap());
    let kept = db.kept(o.alice.id).await.unwrap();
    assert_eq!(kept.len(), 1);
    let (first, u) = &kept[0];
    let mut summary = UseSummary::default();
    summary.record(Use { at: at(10), weight: 1.0 });
    assert_eq!(
        u,
        &CardUse { person: o.alice.id, card: first.id, summary: summary.clone(), pinned: false, last_use: at(10) }
    );

    assert!(db.keep_card(&keep(o.alice.id, new, 20, false), o.by_admin(20)).await.unwrap());
    summary.record(Use { at: at(20), weight: 1.0 });
    let u = db.card_use(o.alice.id, first.id).await.unwrap().expect("still kept");
    assert_eq!((u.summary, u.last_use), (summary, at(20)), "one more use of the same card");
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (1, 0));
    assert_eq!(db.card(first.id).await.unwrap().map(|c| c.read_at), Some(at(20)), "the card read again");
}

async fn keep_card_keeps_a_forgotten_record_out_unless_pinned_back(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let new = card(c.id, "D-1", KeyKind::Company, None);
    assert!(db.keep_card(&keep(o.alice.id, new.clone(), 1, false), o.by_admin(1)).await.unwrap());
    let (kept, _) = db.kept(o.alice.id).await.unwrap().remove(0);
    db.forget(o.alice.id, &kept, at(100), o.by_admin(2)).await.unwrap();

    assert!(!db.keep_card(&keep(o.alice.id, new.clone(), 50, false), o.by_admin(50)).await.unwrap());
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (0, 0), "kept out while forgotten");
    assert!(db.keep_card(&keep(o.bob.id, new.clone(), 50, false), o.by_admin(50)).await.unwrap(), "only for Alice");

    assert!(db.keep_card(&keep(o.alice.id, new.clone(), 60, true), o.by_admin(60)).await.unwrap());
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (1, 1), "pinned back, and pinned");

    db.forget(o.alice.id, &kept, at(100), o.by_admin(70)).await.unwrap();
    assert!(db.keep_card(&keep(o.alice.id, new, 100, false), o.by_admin(100)).await.unwrap(), "its time is over");
}

async fn keep_card_at_the_cap_evicts_the_weakest_and_audits_it(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let mut ids = Vec::new();
    for i in 0..CARD_CAP {
        let kept = db.upsert_card(&card(c.id, &format!("D-{i:03}"), KeyKind::Company, None)).await.unwrap();
        db.save_use(&use_of(o.alice.id, kept.id, false)).await.unwrap();
        ids.push(kept.id);
    }
    // One card used long before the others is the weakest.
    let weakest = ids[7];
    let mut old = use_of(o.alice.id, weakest, false);
    old.summary = UseSummary::default();
    old.summary.record(Use { at: at(-6000), weight: 0.1 });
    old.last_use = at(-6000);
    db.save_use(&old).await.unwrap();

    let new = card(c.id, "N-1", KeyKind::Company, None);
    assert!(db.keep_card(&keep(o.alice.id, new, 10, false), o.by_admin(10)).await.unwrap());
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (CARD_CAP as u32, 0), "still at the cap");
    assert_eq!(db.card_use(o.alice.id, weakest).await.unwrap(), None, "the weakest went");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.detail.clone()),
        ("card_use.remove", format!("card:{weakest}: outranked by a new card"))
    );

    // A use too light to outrank anyone is refused, and the cap stays whole.
    let light = Keep { weight: 0.0001, ..keep(o.alice.id, card(c.id, "N-2", KeyKind::Company, None), 10, false) };
    assert!(!db.keep_card(&light, o.by_admin(11)).await.unwrap());
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (CARD_CAP as u32, 0));
}

async fn racing_keeps_of_one_record_make_one_card_and_one_use(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::ActingFor).await;
    let keeps: Vec<_> = (0..16)
        .map(|i| {
            let db = db.clone();
            let new = card(c.id, "D-1", KeyKind::ActingFor, Some(o.alice.id));
            let k = keep(o.alice.id, new, i, false);
            let actor = o.by_admin(i);
            tokio::spawn(async move { db.keep_card(&k, actor).await })
        })
        .collect();
    for k in keeps {
        assert!(k.await.unwrap().expect("every racing keep succeeds"), "every read keeps the record");
    }
    let uses = db.all_uses().await.unwrap();
    assert_eq!(uses.len(), 1, "one card, one use: {uses:?}");
    assert_eq!(uses[0].1.summary.weight, 16.0, "every read counted once, on the one use");
    assert_eq!(db.remove_unkept_cards(o.by_admin(50)).await.unwrap(), 0, "no second card was left behind");
}

async fn racing_keeps_at_the_cap_never_go_over_it(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let room = 4;
    for i in 0..CARD_CAP - room {
        let kept = db.upsert_card(&card(c.id, &format!("D-{i:03}"), KeyKind::Company, None)).await.unwrap();
        db.save_use(&use_of(o.alice.id, kept.id, false)).await.unwrap();
    }
    let keeps: Vec<_> = (0..16)
        .map(|i| {
            let db = db.clone();
            let k = keep(o.alice.id, card(c.id, &format!("N-{i:02}"), KeyKind::Company, None), 10, false);
            let actor = o.by_admin(10);
            tokio::spawn(async move { db.keep_card(&k, actor).await })
        })
        .collect();
    let mut kept = 0;
    for k in keeps {
        kept += usize::from(k.await.unwrap().expect("every racing keep succeeds"));
    }
    assert_eq!(kept, 16, "each new record outranks an old one");
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (CARD_CAP as u32, 0), "at the cap, never past it");
    assert_eq!(db.kept(o.alice.id).await.unwrap().len(), CARD_CAP);
    let new = db.kept(o.alice.id).await.unwrap().into_iter().filter(|(c, _)| c.record_id.starts_with("N-")).count();
    assert_eq!(new, 16, "every new record is kept");
}
