//! What a run's question reads of a person's kept cards: only those sharing a match term with the
//! question, and pinned or open-work ones when few do, each whole with its use; the terms (open
//! work among them) follow the card through every write, and an archive's cards get theirs on
//! import.

use crate::backends::{exec, on_both, on_both_stores, org, Db};
use crate::cards::use_of;
use crate::connectors::{card, connector};
use chrono::{TimeZone, Utc};
use engine::cards::access::KeyKind;
use engine::cards::select::question_terms;
use engine::cards::source::{CardField, KeyMode};
use engine::cards::store::{KeptForQuestion, NewCard, OpenWhen};
use engine::org::PersonId;
use server::store::AnyStore;
use sqlx::migrate::Migrator;
use std::path::Path;

on_both! {
    a_question_reads_the_cards_it_may_load_only:
        sqlite_a_question_reads_the_cards_it_may_load_only,
        postgres_a_question_reads_the_cards_it_may_load_only;
    a_cards_terms_follow_its_fields_and_go_with_it: sqlite_a_cards_terms_follow_its_fields_and_go_with_it,
        postgres_a_cards_terms_follow_its_fields_and_go_with_it;
    a_persons_terms_follow_their_uses_on_every_path: sqlite_a_persons_terms_follow_their_uses_on_every_path,
        postgres_a_persons_terms_follow_their_uses_on_every_path;
}

on_both_stores! {
    the_migration_gives_uses_kept_before_it_their_terms:
        sqlite_the_migration_gives_uses_kept_before_it_their_terms,
        postgres_the_migration_gives_uses_kept_before_it_their_terms;
    the_migration_gives_open_work_kept_before_it_its_term:
        sqlite_the_migration_gives_open_work_kept_before_it_its_term,
        postgres_the_migration_gives_open_work_kept_before_it_its_term;
    the_migration_writes_every_cards_terms_the_way_people_write:
        sqlite_the_migration_writes_every_cards_terms_the_way_people_write,
        postgres_the_migration_writes_every_cards_terms_the_way_people_write;
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

/// (record, named) of each card read, in card order, the cards that may pad always among them.
async fn asked(db: &Db, person: PersonId, question: &str) -> Vec<(String, bool)> {
    asked_padding_below(db, person, question, u32::MAX).await
}

async fn asked_padding_below(db: &Db, person: PersonId, question: &str, pad_below: u32) -> Vec<(String, bool)> {
    let kept: Vec<KeptForQuestion> = db.kept_for_question(person, &question_terms(question), pad_below).await.unwrap();
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
    let full = db.kept_for_question(o.alice.id, &question_terms("glow salon and acme"), u32::MAX).await.unwrap();
    assert_eq!(full[0].card, glow, "a named card reads as the card itself");
    assert_eq!(full[0].usage, use_of(o.alice.id, glow.id, false), "with the person's use of it");
    assert_eq!(full[1].card, acme);
    assert_eq!(full[2].card, open, "open work whole");
    assert_eq!(full[3].usage, use_of(o.alice.id, pinned.id, true), "a pinned card with its use");
    assert_eq!(asked(&db, o.bob.id, "glow salon").await, vec![], "only the person's own");
    assert_eq!(asked(&db, o.bob.id, "acme").await, vec![s("D-2", true)]);

    let two_named = "glow salon and acme";
    assert_eq!(
        asked_padding_below(&db, o.alice.id, two_named, 2).await,
        vec![s("D-1", true), s("D-2", true)],
        "enough cards named: none read only to pad"
    );
    assert_eq!(
        asked_padding_below(&db, o.alice.id, two_named, 3).await,
        vec![s("D-1", true), s("D-2", true), s("D-3", false), s("D-4", false)],
        "too few named: the open-work and pinned cards too"
    );
    assert_eq!(
        asked_padding_below(&db, o.alice.id, "zenith and orbit", 3).await,
        vec![s("D-3", true), s("D-4", true)],
        "a named card that may pad is read once, as named"
    );
    db.save_use(&use_of(o.alice.id, pinned.id, false)).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "").await, vec![s("D-3", false)], "an unpinned card no longer pads");
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

    let other = db.upsert_card(&lead(c.id, "D-2", "Zenith", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, other.id, false)).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "glow").await, named, "not open work, so not read to pad");
    db.upsert_card(&lead(c.id, "D-2", "Zenith", "proposal")).await.unwrap();
    let padded = vec![("D-1".to_string(), true), ("D-2".to_string(), false)];
    assert_eq!(asked(&db, o.alice.id, "glow").await, padded, "open work now, read to pad");
    db.upsert_card(&lead(c.id, "D-2", "Zenith", "won")).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "glow").await, named, "and no longer");
}

/// A person's terms (`use_terms`) go with each use that ends, whichever way it ends, so a card
/// the person keeps again later is named by what it says then and never by what it said when they
/// last kept it. Bob keeps the card throughout, so its terms are rewritten while Alice has no use.
async fn a_persons_terms_follow_their_uses_on_every_path(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let card = db.upsert_card(&lead(c.id, "D-1", "Acme", "won")).await.unwrap();
    db.save_use(&use_of(o.bob.id, card.id, false)).await.unwrap();
    let named = vec![("D-1".to_string(), true)];

    db.save_use(&use_of(o.alice.id, card.id, false)).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "acme").await, named);
    db.remove_use(o.alice.id, card.id, "removed by hand", o.by_admin(5)).await.unwrap();
    assert!(asked(&db, o.alice.id, "acme").await.is_empty(), "no use, nothing named");
    db.upsert_card(&lead(c.id, "D-1", "Glow Works", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, card.id, false)).await.unwrap();
    assert!(asked(&db, o.alice.id, "acme").await.is_empty(), "after a removed use, not by what the card said");
    assert_eq!(asked(&db, o.alice.id, "glow").await, named, "but by what it says now");

    let until = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
    let card = db.card(card.id).await.unwrap().unwrap();
    db.forget(o.alice.id, &card, until, o.by_admin(6)).await.unwrap();
    db.upsert_card(&lead(c.id, "D-1", "Zenith", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, card.id, false)).await.unwrap();
    assert!(asked(&db, o.alice.id, "glow").await.is_empty(), "after a forget, not by what the card said");
    assert_eq!(asked(&db, o.alice.id, "zenith").await, named);
    assert_eq!(asked(&db, o.bob.id, "zenith").await, named, "Bob's terms followed the card all along");
    assert!(asked(&db, o.bob.id, "acme glow").await.is_empty());

    db.remove_card(card.id, "gone at the source", o.by_admin(7)).await.unwrap();
    let again = db.upsert_card(&lead(c.id, "D-1", "Orbit", "won")).await.unwrap();
    db.save_use(&use_of(o.bob.id, again.id, false)).await.unwrap();
    assert!(asked(&db, o.bob.id, "zenith").await.is_empty(), "a removed card's terms went with its uses");
    assert_eq!(asked(&db, o.bob.id, "orbit").await, named);
}

/// The migration that made `use_terms` fills it from the uses already kept. The database is put
/// back as it was before that migration, with its uses and their cards' terms, and migrated again.
async fn the_migration_gives_uses_kept_before_it_their_terms(store: AnyStore) {
    const VERSION: i64 = 20261213000001;
    let db = store.shared();
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let acme = db.upsert_card(&lead(c.id, "D-1", "Acme", "won")).await.unwrap();
    let glow = db.upsert_card(&lead(c.id, "D-2", "Glow Salon", "won")).await.unwrap();
    db.save_use(&use_of(o.alice.id, acme.id, false)).await.unwrap();
    db.save_use(&use_of(o.bob.id, glow.id, false)).await.unwrap();
    let forget_version = format!("DELETE FROM _sqlx_migrations WHERE version = {VERSION}");
    let mut back = match &store {
        AnyStore::Sqlite(_) => {
            let mut back = vec!["DROP TABLE use_terms".to_string(), "DROP INDEX card_uses_by_card".to_string()];
            for t in ["use_added", "use_removed", "term_added", "term_removed"] {
                back.push(format!("DROP TRIGGER use_terms_{t}"));
            }
            back
        }
        AnyStore::Postgres(_) => [
            "DROP FUNCTION use_terms_use_changed() CASCADE",
            "DROP FUNCTION use_terms_term_changed() CASCADE",
            "DROP TABLE use_terms",
            "DROP INDEX card_uses_by_card",
        ]
        .map(String::from)
        .to_vec(),
    };
    back.push(forget_version);
    for sql in &back {
        exec(&store, sql, &[]).await;
    }
    migrate_again(&store).await;
    let named = |r: &str| vec![(r.to_string(), true)];
    assert_eq!(asked(&db, o.alice.id, "acme").await, named("D-1"), "a use kept before has its terms");
    assert_eq!(asked(&db, o.bob.id, "glow salon").await, named("D-2"));
    assert!(asked(&db, o.alice.id, "glow").await.is_empty(), "and only the person's own");
    db.upsert_card(&lead(c.id, "D-1", "Orbit", "won")).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "orbit").await, named("D-1"), "kept in step from then on");
}

/// The migration that keeps open work as a term gives it to the open-work cards kept before it,
/// so a person's open work still pads; a card with no terms yet is left to the store's start-up,
/// which writes every term of a card that has none.
async fn the_migration_gives_open_work_kept_before_it_its_term(store: AnyStore) {
    const VERSION: i64 = 20261214000001;
    let db = store.shared();
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let open = db.upsert_card(&lead(c.id, "D-1", "Acme", "proposal")).await.unwrap();
    let unindexed = db.upsert_card(&lead(c.id, "D-2", "Glow Salon", "proposal")).await.unwrap();
    let closed = db.upsert_card(&lead(c.id, "D-3", "Zenith", "won")).await.unwrap();
    for card in [&open, &unindexed, &closed] {
        db.save_use(&use_of(o.alice.id, card.id, false)).await.unwrap();
    }
    for sql in [
        "DELETE FROM card_terms WHERE term = ' open work'".to_string(),
        format!("DELETE FROM card_terms WHERE card_id = {}", unindexed.id),
        "DROP INDEX card_uses_pinned".to_string(),
        format!("DELETE FROM _sqlx_migrations WHERE version = {VERSION}"),
    ] {
        exec(&store, &sql, &[]).await;
    }
    assert_eq!(asked(&db, o.alice.id, "").await, vec![], "undone: no open work is found");
    migrate_again(&store).await;
    let left = count(&store, &format!("SELECT COUNT(*) FROM card_terms WHERE card_id = {}", unindexed.id)).await;
    assert_eq!(asked(&db, o.alice.id, "").await, vec![("D-1".to_string(), false)], "open work kept before pads");
    assert_eq!(left, 0, "a card with no terms is left for start-up to find by having none");
}

/// The migration that stems cards' terms clears the terms kept the old way (lowercased words, a
/// hyphenated value as one), and the next start-up writes every card's terms again, open work
/// included, so a card kept before is named in every spelling, and the terms stay in step after.
async fn the_migration_writes_every_cards_terms_the_way_people_write(store: AnyStore) {
    const VERSION: i64 = 20261216000014;
    let db = store.shared();
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let hebbal = db.upsert_card(&lead(c.id, "D-1", "Hebbal-Biotech", "won")).await.unwrap();
    let open = db.upsert_card(&lead(c.id, "D-2", "Glow Salon", "proposal")).await.unwrap();
    for card in [&hebbal, &open] {
        db.save_use(&use_of(o.alice.id, card.id, false)).await.unwrap();
    }
    // Back to the terms as they were kept before: one lowercased word a one-word value.
    let old = [(hebbal.id, "d-1"), (hebbal.id, "hebbal-biotech"), (hebbal.id, "won"), (open.id, "d-2")];
    exec(&store, &format!("DELETE FROM card_terms WHERE card_id IN ({}, {})", hebbal.id, open.id), &[]).await;
    for (card, term) in old.iter().copied().chain([(open.id, "glow"), (open.id, "salon"), (open.id, "proposal")]) {
        exec(&store, &format!("INSERT INTO card_terms (card_id, term) VALUES ({card}, '{term}')"), &[]).await;
    }
    exec(&store, &format!("INSERT INTO card_terms (card_id, term) VALUES ({}, ' open work')", open.id), &[]).await;
    exec(&store, &format!("DELETE FROM _sqlx_migrations WHERE version = {VERSION}"), &[]).await;
    let pad = ("D-2".to_string(), false);
    assert_eq!(asked(&db, o.alice.id, "hebbal biotech").await, vec![pad.clone()], "undone: kept the old way");

    migrate_again(&store).await;
    assert!(asked(&db, o.alice.id, "").await.is_empty(), "cleared until the start-up writes them again");
    store.start_up_tasks().await.unwrap();
    let named = vec![("D-1".to_string(), true), pad.clone()];
    for q in ["hebbal biotech", "Hebbal-Biotech", "Hebbal's lead", "HEBBAL_BIOTECH"] {
        assert_eq!(asked(&db, o.alice.id, q).await, named, "{q:?}");
    }
    assert_eq!(asked(&db, o.alice.id, "").await, vec![pad.clone()], "open work still pads");
    let stemmed = format!("SELECT COUNT(*) FROM card_terms WHERE card_id = {} AND term = 'hebbal'", hebbal.id);
    assert_eq!(count(&store, &stemmed).await, 1);
    store.start_up_tasks().await.unwrap();
    let terms = count(&store, &format!("SELECT COUNT(*) FROM use_terms WHERE card_id = {}", hebbal.id)).await;
    assert_eq!(terms, 4, "written once, copied once to its user: d-1, hebbal, biotech, won");
    db.upsert_card(&lead(c.id, "D-1", "Orbit Labs", "won")).await.unwrap();
    assert_eq!(asked(&db, o.alice.id, "orbit-labs").await, named, "kept in step from then on");
    assert_eq!(asked(&db, o.alice.id, "hebbal").await, vec![pad]);
}

/// Applies the migrations still to be applied, as a server's start-up does.
async fn migrate_again(store: &AnyStore) {
    let dir = |backend: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations").join(backend);
    match store {
        AnyStore::Sqlite(s) => Migrator::new(dir("sqlite")).await.unwrap().run(s.pool()).await.unwrap(),
        AnyStore::Postgres(s) => Migrator::new(dir("postgres")).await.unwrap().run(s.pool()).await.unwrap(),
    }
}

async fn count(store: &AnyStore, sql: &str) -> i64 {
    match store {
        AnyStore::Sqlite(s) => sqlx::query_scalar(sql).fetch_one(s.pool()).await.unwrap(),
        AnyStore::Postgres(s) => sqlx::query_scalar(sql).fetch_one(s.pool()).await.unwrap(),
    }
}
