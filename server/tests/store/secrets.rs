//! Connector keys sealed at rest: what the database holds is never the key, a sealed key opens
//! only in its own row, start-up seals keys kept in plain text and refuses a wrong key, and a
//! rotation re-seals everything so that the old key opens nothing.

use crate::backends::{at, exec, on_both_stores, org, suite_key, Org};
use crate::connectors::connector;
use engine::cards::source::KeyMode;
use server::secrets::{SecretBox, SecretKey};
use server::store::{AnyStore, Sealed, UnlockError};
use std::sync::Arc;

on_both_stores! {
    keys_are_sealed_at_rest_and_read_back_equal: sqlite_keys_are_sealed_at_rest_and_read_back_equal,
        postgres_keys_are_sealed_at_rest_and_read_back_equal;
    a_key_moved_to_another_row_does_not_open: sqlite_a_key_moved_to_another_row_does_not_open,
        postgres_a_key_moved_to_another_row_does_not_open;
    unlocking_seals_plain_keys_once_and_refuses_a_wrong_key:
        sqlite_unlocking_seals_plain_keys_once_and_refuses_a_wrong_key,
        postgres_unlocking_seals_plain_keys_once_and_refuses_a_wrong_key;
    a_rotation_reseals_everything_and_the_old_key_opens_nothing:
        sqlite_a_rotation_reseals_everything_and_the_old_key_opens_nothing,
        postgres_a_rotation_reseals_everything_and_the_old_key_opens_nothing;
    a_replaced_company_key_is_sealed_in_its_row: sqlite_a_replaced_company_key_is_sealed_in_its_row,
        postgres_a_replaced_company_key_is_sealed_in_its_row;
}

/// Every stored key as the database holds it: company keys by connector, then person keys.
async fn raw_keys(store: &AnyStore) -> Vec<String> {
    let company = "SELECT company_key FROM connectors WHERE company_key IS NOT NULL ORDER BY id";
    let people = "SELECT secret FROM person_keys ORDER BY connector_id, person_id";
    let mut keys = Vec::new();
    for sql in [company, people] {
        let got: Vec<String> = match store {
            AnyStore::Sqlite(s) => sqlx::query_scalar(sql).fetch_all(s.pool()).await,
            AnyStore::Postgres(s) => sqlx::query_scalar(sql).fetch_all(s.pool()).await,
        }
        .expect(sql);
        keys.extend(got);
    }
    keys
}

/// A connector with a company key, and Alice's and Bob's own keys for it.
async fn keys_of_three(store: &AnyStore) -> (Org, i64) {
    let db = store.shared();
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::OwnKeys).await;
    db.set_person_key(c.id, o.alice.id, "alice-key", o.by_admin(2)).await.unwrap();
    db.set_person_key(c.id, o.bob.id, "bob-key", o.by_admin(2)).await.unwrap();
    (o, c.id)
}

async fn keys_are_sealed_at_rest_and_read_back_equal(store: AnyStore) {
    let (o, c) = keys_of_three(&store).await;
    let raw = raw_keys(&store).await;
    assert_eq!(raw.len(), 3);
    for (stored, plain) in raw.iter().zip(["company-secret", "alice-key", "bob-key"]) {
        assert!(stored.starts_with("v1:"), "{stored}");
        assert!(!stored.contains(plain), "the database never holds {plain}");
    }
    let db = store.shared();
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-secret"));
    assert_eq!(db.person_key(c, o.alice.id).await.unwrap().as_deref(), Some("alice-key"));
    assert_eq!(db.person_key(c, o.bob.id).await.unwrap().as_deref(), Some("bob-key"));
}

async fn a_key_moved_to_another_row_does_not_open(store: AnyStore) {
    let (o, c) = keys_of_three(&store).await;
    let db = store.shared();
    let other = connector(&db, &o, "ats", KeyMode::Company).await;
    let raw = raw_keys(&store).await;
    // crm's company key into ats's row, and Alice's key into Bob's.
    exec(&store, "UPDATE connectors SET company_key = ? WHERE name = 'ats'", &[raw[0].as_str()]).await;
    let bob = o.bob.id.0.to_string();
    exec(&store, &format!("UPDATE person_keys SET secret = ? WHERE person_id = {bob}"), &[raw[2].as_str()]).await;
    let moved = db.company_key(other.id).await.unwrap_err().to_string();
    assert!(moved.contains(&format!("the company key of connector {} does not open", other.id)), "{moved}");
    assert!(db.person_key(c, o.bob.id).await.is_err(), "Alice's key does not open as Bob's");
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-secret"), "in its own row it still opens");
    assert_eq!(db.person_key(c, o.alice.id).await.unwrap().as_deref(), Some("alice-key"));
}

async fn unlocking_seals_plain_keys_once_and_refuses_a_wrong_key(store: AnyStore) {
    let (o, c) = keys_of_three(&store).await;
    // A database from before sealing: keys in plain text and no key check.
    exec(&store, "UPDATE connectors SET company_key = 'company-secret'", &[]).await;
    exec(&store, "UPDATE person_keys SET secret = 'v1:looks sealed but is plain'", &[]).await;
    exec(&store, "DELETE FROM secret_key_check", &[]).await;
    assert!(!store.key_check_exists().await.unwrap());

    let (unlocked, sealed) = store.clone().unlock(suite_key(), at(10)).await.unwrap();
    assert_eq!(sealed, 3, "with no key check, every key is plain, whatever it looks like");
    assert!(store.key_check_exists().await.unwrap());
    assert!(raw_keys(&store).await.iter().all(|k| k.starts_with("v1:") && !k.contains("company-secret")));
    let db = unlocked.shared();
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-secret"));
    assert_eq!(db.person_key(c, o.alice.id).await.unwrap().as_deref(), Some("v1:looks sealed but is plain"));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.detail.as_str()),
        ("secret.seal", "sealed 3 connector key(s) kept in plain text")
    );

    // Sealed once: a second start seals nothing; a key written plain since then is sealed.
    assert_eq!(store.clone().unlock(suite_key(), at(11)).await.unwrap().1, 0);
    exec(&store, "UPDATE connectors SET company_key = 'company-secret'", &[]).await;
    assert_eq!(store.clone().unlock(suite_key(), at(12)).await.unwrap().1, 1);
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-secret"));

    let before = raw_keys(&store).await;
    let wrong = Arc::new(SecretBox::new(&SecretKey::generate()));
    assert!(matches!(store.clone().unlock(wrong, at(13)).await, Err(UnlockError::WrongKey)));
    assert_eq!(raw_keys(&store).await, before, "a wrong key changes nothing");
}

async fn a_rotation_reseals_everything_and_the_old_key_opens_nothing(store: AnyStore) {
    let (o, c) = keys_of_three(&store).await;
    let before = raw_keys(&store).await;
    let old = suite_key();
    let new = Arc::new(SecretBox::new(&SecretKey::generate()));

    let wrong = SecretBox::new(&SecretKey::generate());
    assert_eq!(store.reseal_all(&wrong, &new, at(20)).await.unwrap(), Sealed::WrongKey);
    assert_eq!(raw_keys(&store).await, before, "a rotation from a wrong key changes nothing");

    assert_eq!(store.reseal_all(&old, &new, at(21)).await.unwrap(), Sealed::Done(3));
    let after = raw_keys(&store).await;
    assert_eq!(after.len(), 3);
    for (b, a) in before.iter().zip(&after) {
        assert!(a.starts_with("v1:") && a != b, "every key is sealed anew");
    }
    let entry = &store.shared().audit_log(1).await.unwrap()[0];
    assert_eq!(entry.action, "secret.rotate");

    assert!(matches!(store.clone().unlock(old, at(22)).await, Err(UnlockError::WrongKey)), "the old key is refused");
    let stale = store.shared();
    let refused = stale.set_person_key(c, o.alice.id, "alice-newer-key", o.by_admin(23)).await.unwrap_err();
    assert!(refused.to_string().contains("no longer opens the database"), "{refused}");
    assert!(stale.company_key(c).await.is_err(), "the old key opens no key");

    let (rotated, sealed) = store.clone().unlock(new.clone(), at(24)).await.unwrap();
    assert_eq!(sealed, 0);
    let db = rotated.shared();
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-secret"));
    assert_eq!(db.person_key(c, o.alice.id).await.unwrap().as_deref(), Some("alice-key"));
    assert_eq!(db.person_key(c, o.bob.id).await.unwrap().as_deref(), Some("bob-key"));
    db.set_person_key(c, o.alice.id, "alice-newer-key", o.by_admin(25)).await.unwrap();
    assert_eq!(db.person_key(c, o.alice.id).await.unwrap().as_deref(), Some("alice-newer-key"));
}

async fn a_replaced_company_key_is_sealed_in_its_row(store: AnyStore) {
    let (o, c) = keys_of_three(&store).await;
    let db = store.shared();
    let before = raw_keys(&store).await;
    db.set_company_key(c, "company-rotated", o.by_admin(3)).await.unwrap();
    assert_eq!(db.company_key(c).await.unwrap().as_deref(), Some("company-rotated"));
    let raw = raw_keys(&store).await;
    assert!(raw[0].starts_with("v1:"), "{}", raw[0]);
    assert!(!raw[0].contains("company-rotated"), "the database never holds the new key");
    assert_ne!(raw[0], before[0], "the old sealed key is gone");
    assert_eq!(raw[1..], before[1..], "people's keys are untouched");
}
