//! ErasureStore: erasing a third party's email address or phone number removes, in one write,
//! every card, forgotten mark, list snapshot (open or closed), lesson (any scope, any state, with
//! the versions it replaced), who's-who entry, refetch claim and saved answer naming it in any
//! spelling, leaves no trace of it in any column of any table, keeps everything else, and audits
//! it with the value's keyed hash. Someone in the directory is refused, whole. The hash is keyed
//! with the company's own key, which a rotation of the secret key keeps.

use crate::backends::{at, on_both_stores, org, suite_key, Org};
use crate::cards::use_of;
use crate::connectors::{card, connector};
use crate::lessons::new as lesson;
use crate::traces::{traces, Value};
use crate::whoswho::entry;
use engine::cards::access::KeyKind;
use engine::cards::snapshots::NewSnapshot;
use engine::cards::source::{CardField, KeyMode};
use engine::cards::store::NewCard;
use engine::erasure::{ErasedCounts, ErasureOutcome, ErasureRecord, Naming};
use engine::lessons::{Claim, LessonScope, LessonState};
use engine::org::PersonId;
use engine::runs::lists::unknown_id_slot;
use engine::store::{Actor, Store};
use serde_json::json;
use server::secrets::{SecretBox, SecretKey};
use server::store::AnyStore;
use std::sync::Arc;

on_both_stores! {
    an_erasure_removes_every_row_naming_the_value_in_any_spelling_and_leaves_no_trace:
        sqlite_an_erasure_removes_every_row_naming_the_value_in_any_spelling_and_leaves_no_trace,
        postgres_an_erasure_removes_every_row_naming_the_value_in_any_spelling_and_leaves_no_trace;
    someone_in_the_directory_is_refused_and_nothing_changes:
        sqlite_someone_in_the_directory_is_refused_and_nothing_changes,
        postgres_someone_in_the_directory_is_refused_and_nothing_changes;
    the_keyed_hash_is_one_per_value_and_a_rotation_keeps_it:
        sqlite_the_keyed_hash_is_one_per_value_and_a_rotation_keeps_it,
        postgres_the_keyed_hash_is_one_per_value_and_a_rotation_keeps_it;
}

fn field(name: &str, value: &str) -> CardField {
    CardField { name: name.into(), value: value.into(), free_text: false }
}

fn contact(connector: i64, record: &str, fields: Vec<CardField>) -> NewCard {
    NewCard { kind: "contact".into(), fields, ..card(connector, record, KeyKind::Company, None) }
}

fn snapshot(person: PersonId, connector: i64, owner: &str, asked: &str, minute: i64) -> NewSnapshot {
    NewSnapshot {
        person,
        connector,
        tool: "list_leads".into(),
        arguments: json!({"owner": owner}),
        asked: asked.into(),
        records: vec!["L-1".into()],
        taken_at: at(minute),
    }
}

/// The ids of what must stay after both erasures.
struct Kept {
    cards: Vec<i64>,
    lessons: Vec<i64>,
    /// The lesson that replaced an erased one: it stays, without the link.
    unlinked: i64,
}

/// Dana Brooks (a customer at Litware, outside the company) in Alice's and Bob's memory, spelled
/// every way, beside Sam Brooks and another number, which must stay.
async fn memory_naming_dana(db: &Arc<dyn Store>, o: &Org) -> Kept {
    let crm = connector(db, o, "crm", KeyMode::Company).await;
    db.set_whos_who(crm.id, true, o.by_admin(1)).await.unwrap();
    let keep = |c: NewCard| {
        let db = db.clone();
        async move { db.upsert_card(&c).await.unwrap() }
    };
    let both = keep(contact(
        crm.id,
        "C-77",
        vec![field("email", "Dana.Brooks+q3@Litware.example"), field("phone", "+1 (415) 555-0142")],
    ))
    .await;
    let by_email = keep(contact(crm.id, "dana.brooks@litware.example", vec![field("name", "D. Brooks")])).await;
    let by_phone = keep(contact(crm.id, "C-78", vec![field("mobile", "(415) 555 0142")])).await;
    let sam = keep(contact(crm.id, "C-79", vec![field("email", "sam.brooks@litware.example")])).await;
    let other = keep(contact(crm.id, "C-80", vec![field("phone", "415.555.0143")])).await;
    for (person, card) in [(o.alice.id, both.id), (o.bob.id, both.id), (o.alice.id, by_phone.id), (o.alice.id, sam.id)]
    {
        db.save_use(&use_of(person, card, false)).await.unwrap();
    }
    db.save_use(&use_of(o.alice.id, by_email.id, false)).await.unwrap();
    db.forget(o.alice.id, &by_email, at(60 * 24 * 30), o.by_admin(3)).await.unwrap();

    // The same query kept twice: the first is closed, and both name Dana.
    db.keep_snapshot(&snapshot(o.alice.id, crm.id, "mailto:dana.brooks@litware.example", "Dana's leads", 4))
        .await
        .unwrap();
    db.keep_snapshot(&snapshot(o.alice.id, crm.id, "mailto:dana.brooks@litware.example", "Dana's leads", 5))
        .await
        .unwrap();
    db.keep_snapshot(&snapshot(o.bob.id, crm.id, "sam.brooks@litware.example", "Sam's leads", 5)).await.unwrap();

    let by = |p: PersonId| Actor { person: Some(p), at: at(6) };
    let line = db
        .add_lesson(
            &lesson(o.alice.id, LessonScope::Personal, "Dana's direct line is 415.555.0142", LessonState::Accepted, 6),
            by(o.alice.id),
        )
        .await
        .unwrap();
    let moved = lesson(o.alice.id, LessonScope::Personal, "Dana moved to a new line", LessonState::Accepted, 7);
    let moved = db.supersede_lesson(&line, &moved, "corrected", by(o.alice.id)).await.unwrap();
    db.add_lesson(
        &lesson(
            o.bob.id,
            LessonScope::Team(o.team.id),
            "Escalate to Dana Brooks <DANA.BROOKS@litware.example>",
            LessonState::Waiting,
            6,
        ),
        by(o.bob.id),
    )
    .await
    .unwrap();
    let office = db
        .add_lesson(
            &lesson(o.alice.id, LessonScope::Agent(o.agent.id), "Call the office first", LessonState::Accepted, 6),
            by(o.alice.id),
        )
        .await
        .unwrap();
    let claim = Claim { record: "contact C-77".into(), field: "phone".into(), value: "+1 415 555 0142".into() };
    let claimed = engine::lessons::NewLesson {
        claim: Some(claim),
        ..lesson(o.alice.id, LessonScope::Agent(o.agent.id), "Dana's number is on her card", LessonState::Contested, 8)
    };
    db.supersede_lesson(&office, &claimed, "read again", by(o.alice.id)).await.unwrap();
    let sams = db
        .add_lesson(
            &lesson(o.bob.id, LessonScope::Company, "Sam Brooks answers before noon", LessonState::Accepted, 6),
            by(o.bob.id),
        )
        .await
        .unwrap();

    let entries = [
        entry(crm.id, "crm", "list_contacts", "CT-1", &["Dana.Brooks@Litware.example"], 9),
        entry(crm.id, "crm", "list_contacts", "CT-2", &["sam.brooks@litware.example"], 9),
        engine::runs::whoswho::ListEntry {
            values: vec![("phone".into(), "4155550142".into())],
            ..entry(crm.id, "crm", "list_contacts", "CT-3", &[], 9)
        },
    ];
    db.save_list(crm.id, "list_contacts", &entries, at(9)).await.unwrap();
    assert!(db.claim_list_fetch(crm.id, &unknown_id_slot("+1 (415) 555-0142", at(9)), at(9)).await.unwrap());
    assert!(db.claim_list_fetch(crm.id, "2026-11-30", at(9)).await.unwrap());

    for (key, body) in [
        ("k1", r#"{"id":5,"text":"Dana's direct line is 415.555.0142"}"#),
        ("k2", r#"{"id":6,"text":"Sam Brooks answers before noon"}"#),
    ] {
        db.idem_claim("person:2", key, "POST /api/knowledge", "hash", at(9), at(0)).await.unwrap();
        db.idem_finish("person:2", key, 201, body.as_bytes()).await.unwrap();
    }
    Kept { cards: vec![sam.id, other.id], lessons: vec![moved.id, sams.id], unlinked: moved.id }
}

async fn erase(db: &Arc<dyn Store>, o: &Org, given: &str) -> ErasedCounts {
    let naming = Naming::parse(given).unwrap();
    let record = ErasureRecord { kind: naming.kind(), hash: db.keyed_hash(&naming.hashed_text()).await.unwrap() };
    match db.erase_naming(&naming, &record, o.by_admin(20)).await.unwrap() {
        ErasureOutcome::Erased(counts) => counts,
        other => panic!("{given:?} was not erased: {other:?}"),
    }
}

async fn an_erasure_removes_every_row_naming_the_value_in_any_spelling_and_leaves_no_trace(store: AnyStore) {
    let db = store.shared();
    let o = org(&db).await;
    let kept = memory_naming_dana(&db, &o).await;
    let email = Value::new("dana.brooks@litware.example", &["dana.brooks", "Dana.Brooks+q3@Litware.example"]);
    let phone = Value::new("+1 (415) 555-0142", &["415.555.0142", "+1 (415) 555-0142", "(415) 555 0142"]);
    let before = traces(&store, &[&email, &phone]).await;
    for place in [
        "cards.fields",
        "cards.record_id",
        "card_terms.term",
        "use_terms.term",
        "forgotten_records.record_id",
        "list_snapshots.arguments",
        "lessons.text",
        "lessons.claim_value",
        "list_entries.names",
        "list_entry_keys.key",
        "list_fetch_claims.slot",
        "idempotency_keys.body",
    ] {
        assert!(before.iter().any(|t| t.contains(&format!("{place}:"))), "the scan sees {place}: {before:#?}");
    }

    let by_email = erase(&db, &o, "mailto:Dana.Brooks@Litware.example").await;
    assert_eq!(
        by_email,
        ErasedCounts { cards: 2, forgotten: 1, snapshots: 2, lessons: 1, whos_who: 1, ..Default::default() },
        "C-77 and the contact whose id is the email, its forgotten mark, both snapshots, the team proposal, CT-1"
    );
    let by_phone = erase(&db, &o, "415.555.0142").await;
    assert_eq!(
        by_phone,
        ErasedCounts { cards: 1, lessons: 3, whos_who: 1, fetch_claims: 1, saved_answers: 1, ..Default::default() },
        "C-78; the first line (not the correction that replaced it), the claim with the version it replaced; CT-3"
    );

    let left = traces(&store, &[&email, &phone]).await;
    assert!(left.is_empty(), "no trace of either value is left anywhere: {left:#?}");

    // Everything else stays as it was.
    for id in &kept.cards {
        assert!(db.card(*id).await.unwrap().is_some(), "card {id} stays");
    }
    assert_eq!(db.kept(o.alice.id).await.unwrap().iter().map(|(c, _)| c.id).collect::<Vec<_>>(), vec![kept.cards[0]]);
    for id in &kept.lessons {
        assert!(db.lesson(*id).await.unwrap().is_some(), "lesson {id} stays");
    }
    assert_eq!(db.lesson(kept.unlinked).await.unwrap().unwrap().supersedes, None);
    assert_eq!(db.snapshots_of(o.bob.id).await.unwrap().len(), 1);
    assert!(db.snapshots_of(o.alice.id).await.unwrap().is_empty());
    let entries: Vec<Option<String>> = db.list_entries().await.unwrap().into_iter().map(|e| e.id).collect();
    assert_eq!(entries, vec![Some("CT-2".to_string())]);
    assert_eq!(db.list_entries_naming(&["sam.brooks@litware.example".into()]).await.unwrap().len(), 1);
    assert!(
        !db.claim_list_fetch(kept_connector(&db).await, "2026-11-30", at(21)).await.unwrap(),
        "the daily claim stays"
    );

    // One audit row each, with the keyed hash and the counts.
    let audit: Vec<_> =
        db.audit_log(50).await.unwrap().into_iter().filter(|a| a.action == ErasureRecord::ACTION).collect();
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[0].detail, "phone: 1 card, 0 list snapshots, 3 lessons, 1 who's-who entry, 0 forgotten records' marks, 1 who's-who refetch claim, 1 saved API answer");
    assert_eq!(audit[1].detail, "email: 2 cards, 2 list snapshots, 1 lesson, 1 who's-who entry, 1 forgotten record's mark, 0 who's-who refetch claims, 0 saved API answers");
    for a in &audit {
        let hash = a.subject.strip_prefix("hmac-sha256:").expect("a keyed hash");
        assert!(hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");
        assert_eq!(a.actor, Some(o.admin.id));
    }

    // Erasing again finds nothing, and says so.
    assert_eq!(erase(&db, &o, "DANA.BROOKS@LITWARE.EXAMPLE").await, ErasedCounts::default());
}

async fn kept_connector(db: &Arc<dyn Store>) -> i64 {
    db.connectors().await.unwrap()[0].id
}

async fn someone_in_the_directory_is_refused_and_nothing_changes(store: AnyStore) {
    let db = store.shared();
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let card =
        db.upsert_card(&contact(crm.id, "C-1", vec![field("owner", "Alice <alice+crm@acme.test>")])).await.unwrap();
    db.mark_left(o.bob.id, o.by_admin(2)).await.unwrap();
    let audit_before = db.audit_log(100).await.unwrap().len();
    for (given, name) in [("ALICE@acme.test", "Alice"), ("mailto:bob@acme.test", "Bob")] {
        let naming = Naming::parse(given).unwrap();
        let record = ErasureRecord { kind: naming.kind(), hash: "not used".into() };
        let outcome = db.erase_naming(&naming, &record, o.by_admin(3)).await.unwrap();
        assert_eq!(outcome, ErasureOutcome::InDirectory { name: name.into() }, "{given}: even after leaving");
    }
    assert!(db.card(card.id).await.unwrap().is_some(), "nothing was removed");
    assert_eq!(db.audit_log(100).await.unwrap().len(), audit_before, "nothing was audited");
}

async fn the_keyed_hash_is_one_per_value_and_a_rotation_keeps_it(store: AnyStore) {
    let db = store.shared();
    org(&db).await;
    let dana = db.keyed_hash("email:dana.brooks@litware.example").await.unwrap();
    assert_eq!(db.keyed_hash("email:dana.brooks@litware.example").await.unwrap(), dana, "one value, one hash");
    assert_ne!(db.keyed_hash("email:sam.brooks@litware.example").await.unwrap(), dana);
    assert_ne!(db.keyed_hash("phone:4155550142").await.unwrap(), dana);
    assert_eq!(dana.len(), 64);

    // The key is sealed in the database, never kept plain, and a rotation re-seals it.
    let traces_of_key = crate::traces::every_text(&store).await;
    let sealed: Vec<_> =
        traces_of_key.iter().filter(|t| t.table.ends_with("erasure_key") && t.column == "sealed").collect();
    assert_eq!(sealed.len(), 1);
    assert!(sealed[0].text.starts_with("v1:"), "{}", sealed[0].text);

    let new = Arc::new(SecretBox::new(&SecretKey::generate()));
    let resealed = store.reseal_all(&suite_key(), &new, at(5)).await.unwrap();
    assert_eq!(resealed, server::store::Sealed::Done(0), "no connector key here; the erasure key is not one");
    assert!(db.keyed_hash("email:dana.brooks@litware.example").await.is_err(), "the old key no longer opens it");
    let (rotated, _) = store.clone().unlock(new, at(6)).await.unwrap();
    assert_eq!(rotated.shared().keyed_hash("email:dana.brooks@litware.example").await.unwrap(), dana);
}
