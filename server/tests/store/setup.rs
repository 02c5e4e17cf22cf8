//! SetupStore: the company and its first admin in one transaction, once, even when setups race.

use crate::backends::{actor, at, company, new_person, on_both, Db};
use engine::org::setup::{FirstAdmin, SetUp};
use engine::org::{Company, LocaleName, TimeZoneName};
use engine::store::StoreError;

on_both! {
    a_setup_makes_the_company_and_its_first_admin: sqlite_a_setup_makes_the_company_and_its_first_admin,
        postgres_a_setup_makes_the_company_and_its_first_admin;
    a_second_setup_is_refused_and_changes_nothing: sqlite_a_second_setup_is_refused_and_changes_nothing,
        postgres_a_second_setup_is_refused_and_changes_nothing;
    a_company_made_another_way_closes_the_setup: sqlite_a_company_made_another_way_closes_the_setup,
        postgres_a_company_made_another_way_closes_the_setup;
    racing_setups_make_exactly_one_company: sqlite_racing_setups_make_exactly_one_company,
        postgres_racing_setups_make_exactly_one_company;
    a_setup_that_fails_half_way_leaves_no_company: sqlite_a_setup_that_fails_half_way_leaves_no_company,
        postgres_a_setup_that_fails_half_way_leaves_no_company;
    the_locale_is_kept_with_the_company_and_changed_with_an_audit_row:
        sqlite_the_locale_is_kept_with_the_company_and_changed_with_an_audit_row,
        postgres_the_locale_is_kept_with_the_company_and_changed_with_an_audit_row;
}

fn admin(name: &str, email: &str) -> FirstAdmin {
    FirstAdmin { name: name.into(), email: email.into(), password_hash: format!("hash-of-{name}") }
}

fn named(name: &str, zone: &str) -> Company {
    Company { name: name.into(), time_zone: TimeZoneName::parse(zone).unwrap(), locale: Default::default() }
}

async fn a_setup_makes_the_company_and_its_first_admin(db: Db) {
    let done = db.set_up_company(&company(), &admin("Ada Lovelace", " Ada@Acme.Test "), at(1)).await.unwrap();
    let SetUp::Done(ada) = done else { panic!("the first setup is done: {done:?}") };
    assert_eq!((ada.name.as_str(), ada.email.as_str(), ada.is_admin), ("Ada Lovelace", "ada@acme.test", true));
    assert_eq!((ada.main_team, ada.role_override, ada.manager, ada.left_at), (None, None, None, None));
    assert_eq!(db.company().await.unwrap(), Some(company()));
    assert_eq!(db.person(ada.id).await.unwrap(), Some(ada.clone()));
    let (found, hash) = db.credentials("ada@acme.test").await.unwrap().expect("the admin can sign in");
    assert_eq!((found, hash.as_str()), (ada.clone(), "hash-of-Ada Lovelace"));
    let audit = db.audit_log(10).await.unwrap();
    let rows: Vec<_> = audit.iter().map(|a| (a.action.as_str(), a.subject.as_str(), a.detail.as_str())).collect();
    let subject = format!("person:{}", ada.id);
    assert_eq!(
        rows,
        [
            ("person.create", subject.as_str(), "Ada Lovelace (the first admin)"),
            ("company.create", "Acme", "Europe/Berlin")
        ]
    );
    assert!(audit.iter().all(|a| a.actor == Some(ada.id) && a.at == at(1)), "{audit:?}");
}

async fn a_second_setup_is_refused_and_changes_nothing(db: Db) {
    db.set_up_company(&company(), &admin("Ada", "ada@acme.test"), at(1)).await.unwrap();
    let again = db.set_up_company(&named("Other", "Asia/Kolkata"), &admin("Eve", "eve@other.test"), at(2)).await;
    assert_eq!(again, Ok(SetUp::AlreadySetUp));
    assert_eq!(db.company().await.unwrap(), Some(company()));
    assert_eq!(db.directory().await.unwrap().people.len(), 1);
    assert_eq!(db.credentials("eve@other.test").await.unwrap(), None);
    assert_eq!(db.audit_log(10).await.unwrap().len(), 2, "the refused setup is not audited");
}

/// A company made another way (the demo's seed) closes the setup just the same.
async fn a_company_made_another_way_closes_the_setup(db: Db) {
    db.create_company(&company(), actor(None, 0)).await.unwrap();
    let late = db.set_up_company(&named("Other", "UTC"), &admin("Eve", "eve@other.test"), at(1)).await;
    assert_eq!(late, Ok(SetUp::AlreadySetUp));
    assert!(db.directory().await.unwrap().people.is_empty());
}

async fn racing_setups_make_exactly_one_company(db: Db) {
    let tries = 6;
    let mut racing = Vec::new();
    for i in 0..tries {
        let db = db.clone();
        racing.push(tokio::spawn(async move {
            let c = named(&format!("Company {i}"), "Asia/Kolkata");
            db.set_up_company(&c, &admin(&format!("Admin {i}"), &format!("admin{i}@acme.test")), at(i)).await
        }));
    }
    let mut winners = Vec::new();
    for r in racing {
        match r.await.unwrap() {
            Ok(SetUp::Done(p)) => winners.push(p),
            Ok(SetUp::AlreadySetUp) => {}
            Err(e) => panic!("a racing setup failed rather than being refused: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one setup wins: {winners:?}");
    let winner = &winners[0];
    let n = winner.name.trim_start_matches("Admin ");
    assert_eq!(db.company().await.unwrap().map(|c| c.name), Some(format!("Company {n}")));
    assert_eq!(db.directory().await.unwrap().people, std::slice::from_ref(winner));
    assert_eq!(db.audit_log(100).await.unwrap().len(), 2);
}

async fn a_setup_that_fails_half_way_leaves_no_company(db: Db) {
    // A person with the admin's email, on a database with no company: the company is claimed
    // first, so only one transaction can undo that claim when the admin cannot be added.
    db.create_person(&new_person("Ada", "ada@acme.test"), actor(None, 0)).await.unwrap();
    let failed = db.set_up_company(&company(), &admin("Ada", "ADA@acme.test"), at(1)).await;
    assert_eq!(failed, Err(StoreError::Duplicate("ada@acme.test".into())));
    assert_eq!(db.company().await.unwrap(), None, "the company's row went with the failed admin");
    assert_eq!(db.audit_log(10).await.unwrap().len(), 1, "only the person made before");
    let done = db.set_up_company(&company(), &admin("Grace", "grace@acme.test"), at(2)).await.unwrap();
    assert!(matches!(done, SetUp::Done(ref p) if p.is_admin), "{done:?}");
}

async fn the_locale_is_kept_with_the_company_and_changed_with_an_audit_row(db: Db) {
    let before = db.set_company_locale(&LocaleName::parse("de-DE").unwrap(), actor(None, 1)).await;
    assert!(matches!(before, Err(StoreError::NotFound(_))), "no company yet: {before:?}");
    assert!(db.audit_log(10).await.unwrap().is_empty(), "the refusal wrote nothing");

    let mut acme = named("Acme", "Asia/Kolkata");
    acme.locale = LocaleName::parse("en-IN").unwrap();
    db.set_up_company(&acme, &admin("Ada", "ada@acme.test"), at(1)).await.unwrap();
    assert_eq!(db.company().await.unwrap().map(|c| c.locale.as_str().to_string()), Some("en-IN".into()));

    let ada = db.credentials("ada@acme.test").await.unwrap().expect("the admin").0;
    db.set_company_locale(&LocaleName::parse("de_de").unwrap(), actor(Some(ada.id), 2)).await.unwrap();
    let company = db.company().await.unwrap().expect("the company");
    assert_eq!((company.name.as_str(), company.locale.as_str()), ("Acme", "de-DE"), "only the locale changed");
    let last = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((last.action.as_str(), last.detail.as_str(), last.actor), ("company.locale", "de-DE", Some(ada.id)));
}
