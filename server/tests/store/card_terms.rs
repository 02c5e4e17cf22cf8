//! What a run's question reads of a person's kept cards: only those sharing a match term with the
//! question, pinned, or open work, each whole with its use; the terms follow the card through
//! every write, and an archive's cards get theirs on import.

use crate::backends::{on_both, org, Db};
use crate::cards::use_of;
use crate::connectors::{card, connector};
use engine::cards::access::KeyKind;
use engine::cards::select::question_terms;
use engine::cards::source::{CardField, KeyMode};
use engine::cards::store::{KeptForQuestion, NewCard, OpenWhen};
use engine::org::PersonId;

on_both! {
    a_question_reads_the_cards_it_may_load_only:
        sqlite_a_question_reads_the_cards_it_may_load_only,
        postgres_a_question_reads_the_cards_it_may_load_only;
    a_cards_terms_follow_its_fields_and_go_with_it: sqlite_a_cards_terms_follow_its_fields_and_go_with_it,
        postgres_a_cards_terms_follow_its_fields_and_go_with_it;
}

fn field(name: &str, value: &str) -> CardField {
    CardField { name: name.into(), value: value.into(), free_text: false }
}

fn lead(connector: i64, record: &str, company: &str, stage: &str) -> NewCard {
    NewCard {
        fields: vec![
            field("company", company),
            field("stage", stage),
            CardField { name: "notes".into(), value: "ask about acme".into(), free_text: true },
        ],
        open_when: Some(OpenWhen { field: "stage".into(), values: vec!["proposal".into()] }),
        ..card(connector, record, KeyKind::Company, None)
    }
}

/// (record, named) of each card read, in card order.
async fn asked(db: &Db, person: PersonId, question: &str) -> Vec<(String, bool)> {
    let kept: Vec<KeptForQuestion> = db.kept_for_question(person, &question_terms(question)).await.unwrap();
    kept.into_iter().map(|k| (k.card.record_id, k.named)).collect()
}

async fn a_question_reads_the_cards_it_may_load_only(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let glow = db.upsert_card(&lead(c.id, "D-1", "Glow Salon", "won")).await.unwrap();
    let acme = db.upsert_card(&lead(c.id, "D-2", "Acme", "lost")).await.unwrap();
    let open = db.upsert_card(&lead(c.id, "D-3", "Zenith", "proposal")).await.unwrap();
    let pinned = db.upsert_card(&lead(c.id, "D-4", "Orbit", "won")).await.unwrap();
    for (card, pin) in [(&glow, false), (&acme, false), (&open, false), (&pinned, true)] {
        db.save_use(&use_of(o.alice.id, card.id, pin)).await.unwrap();
    }
    db.save_use(&use_of(o.bob.id, acme.id, false)).await.unwrap();

    let s = |r: &str, named: bool| (r.to_string(), named);
    assert_eq!(
        asked(&db, o.alice.id, "Where is Glow Salon?").await,
        vec![s("D-1", true), s("D-3", false), s("D-4", false)],
        "the named card, and the open-work and pinned ones that may pad; not the others"
    );
    assert_eq!(asked(&db, o.alice.id, "status of d-2").await[0], s("D-2", true), "by record id");
    assert_eq!(asked(&db, o.alice.id, "what did acme say").await[0], s("D-2", true), "by a value");
    assert_eq!(
        asked(&db, o.alice.id, "what are our sales stages").await,
        vec![s("D-3", false), s("D-4", false)],
        "a field's name or free text names no card"
    );
    assert_eq!(asked(&db, o.alice.id, "").await, vec![s("D-3", false), s("D-4", false)], "no terms, nothing named");
    let full = db.kept_for_question(o.alice.id, &question_terms("glow salon and acme")).await.unwrap();
    assert_eq!(full[0].card, glow, "a named card reads as the card itself");
    assert_eq!(full[0].usage, use_of(o.alice.id, glow.id, false), "with the person's use of it");
    assert_eq!(full[1].card, acme);
    assert_eq!(full[2].card, open, "open work whole");
    assert_eq!(full[3].usage, use_of(o.alice.id, pinned.id, true), "a pinned card with its use");
    assert_eq!(asked(&db, o.bob.id, "glow salon").await, vec![], "only the person's own");
    assert_eq!(asked(&db, o.bob.id, "acme").await, vec![s("D-2", true)]);
}

async fn a_cards_terms_follow_its_fields_and_go_with_it(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let first = db.upsert_card(&lead(c.id, "D-1", "Acme", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, first.id, false)).await.unwrap();
    let named = vec![("D-1".to_string(), true)];
    assert_eq!(asked(&db, o.alice.id, "acme").await, named);

    let renamed = db.upsert_card(&lead(c.id, "D-1", "Glow Works", "won")).await.unwrap();
    assert_eq!(renamed.id, first.id);
    assert!(asked(&db, o.alice.id, "acme").await.is_empty(), "the old value names it no more");
    assert_eq!(asked(&db, o.alice.id, "works").await, named, "each word of a value of several");

    db.remove_card(first.id, "gone at the source", o.by_admin(5)).await.unwrap();
    assert!(asked(&db, o.alice.id, "works").await.is_empty());
    let again = db.upsert_card(&lead(c.id, "D-1", "Glow Works", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, again.id, false)).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "glow").await, named, "a card made again has its terms again");
}
