//! TokenStore: personal API tokens, listed to their owner, revoked by them, and found by secret.

use crate::backends::{on_both, org, Db};
use engine::org::PersonId;

on_both! {
    a_new_token_is_listed_to_its_owner_newest_first: sqlite_a_new_token_is_listed_to_its_owner_newest_first,
        postgres_a_new_token_is_listed_to_its_owner_newest_first;
    a_live_token_finds_its_owner_and_marks_it_used: sqlite_a_live_token_finds_its_owner_and_marks_it_used,
        postgres_a_live_token_finds_its_owner_and_marks_it_used;
    a_revoked_token_finds_nobody: sqlite_a_revoked_token_finds_nobody, postgres_a_revoked_token_finds_nobody;
    revoke_refuses_another_persons_or_a_missing_token: sqlite_revoke_refuses_another_persons_or_a_missing_token,
        postgres_revoke_refuses_another_persons_or_a_missing_token;
    a_secret_is_held_by_one_token_only: sqlite_a_secret_is_held_by_one_token_only,
        postgres_a_secret_is_held_by_one_token_only;
    a_sign_in_lock_is_audited_and_an_event_for_the_admins: sqlite_a_sign_in_lock_is_audited_and_an_event_for_the_admins,
        postgres_a_sign_in_lock_is_audited_and_an_event_for_the_admins;
}

async fn a_new_token_is_listed_to_its_owner_newest_first(db: Db) {
    let o = org(&db).await;
    let laptop = db.create_api_token(o.alice.id, "laptop", "secret-1", o.by_admin(1)).await.unwrap();
    assert_eq!(laptop.name, "laptop");
    assert_eq!(laptop.created_at, o.by_admin(1).at);
    assert_eq!((laptop.last_used_at, laptop.revoked_at), (None, None));
    let ci = db.create_api_token(o.alice.id, "ci", "secret-2", o.by_admin(2)).await.unwrap();
    db.create_api_token(o.bob.id, "bob's", "secret-3", o.by_admin(3)).await.unwrap();

    assert_eq!(db.api_tokens(o.alice.id).await.unwrap(), [ci.clone(), laptop]);
    assert_eq!(db.api_tokens(PersonId(9_999)).await.unwrap(), []);
    let entry = &db.audit_log(2).await.unwrap()[1];
    assert_eq!(entry.action, "api_token.create");
    assert_eq!(entry.subject, format!("person:{}", o.alice.id));
    assert_eq!(entry.detail, format!("token:{} ci", ci.id));
    assert_eq!(entry.actor, Some(o.admin.id));
}

async fn a_live_token_finds_its_owner_and_marks_it_used(db: Db) {
    let o = org(&db).await;
    let t = db.create_api_token(o.alice.id, "laptop", "secret-1", o.by_admin(1)).await.unwrap();
    let found = db.person_by_token("secret-1", o.by_admin(5).at).await.unwrap();
    assert_eq!(found, Some(o.alice.clone()));
    let listed = db.api_tokens(o.alice.id).await.unwrap();
    assert_eq!(listed[0].id, t.id);
    assert_eq!(listed[0].last_used_at, Some(o.by_admin(5).at));
    assert_eq!(db.person_by_token("no-such-secret", o.by_admin(6).at).await.unwrap(), None);
}

async fn a_revoked_token_finds_nobody(db: Db) {
    let o = org(&db).await;
    let t = db.create_api_token(o.alice.id, "laptop", "secret-1", o.by_admin(1)).await.unwrap();
    let keep = db.create_api_token(o.alice.id, "ci", "secret-2", o.by_admin(1)).await.unwrap();
    assert!(db.revoke_api_token(o.alice.id, t.id, o.by_admin(2)).await.unwrap());
    assert_eq!(db.person_by_token("secret-1", o.by_admin(3).at).await.unwrap(), None);
    assert_eq!(db.person_by_token("secret-2", o.by_admin(3).at).await.unwrap().map(|p| p.id), Some(o.alice.id));

    let listed = db.api_tokens(o.alice.id).await.unwrap();
    let revoked = listed.iter().find(|x| x.id == t.id).unwrap();
    assert_eq!(revoked.revoked_at, Some(o.by_admin(2).at));
    assert_eq!(revoked.last_used_at, None, "a refused use does not mark it used");
    assert_eq!(listed.iter().find(|x| x.id == keep.id).unwrap().revoked_at, None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.detail.clone()), ("api_token.revoke", format!("token:{}", t.id)));
    assert!(!db.revoke_api_token(o.alice.id, t.id, o.by_admin(4)).await.unwrap(), "only a live token is revoked");
    assert_eq!(db.api_tokens(o.alice.id).await.unwrap(), listed, "the second revoke changed nothing");
}

async fn revoke_refuses_another_persons_or_a_missing_token(db: Db) {
    let o = org(&db).await;
    let t = db.create_api_token(o.alice.id, "laptop", "secret-1", o.by_admin(1)).await.unwrap();
    let audited = db.audit_log(100).await.unwrap().len();
    assert!(!db.revoke_api_token(o.bob.id, t.id, o.by_admin(2)).await.unwrap());
    assert!(!db.revoke_api_token(o.alice.id, 9_999, o.by_admin(2)).await.unwrap());
    assert_eq!(db.api_tokens(o.alice.id).await.unwrap()[0].revoked_at, None);
    assert_eq!(db.audit_log(100).await.unwrap().len(), audited, "a refused revoke audits nothing");
    assert!(db.person_by_token("secret-1", o.by_admin(3).at).await.unwrap().is_some());
}

async fn a_secret_is_held_by_one_token_only(db: Db) {
    let o = org(&db).await;
    db.create_api_token(o.alice.id, "laptop", "secret-1", o.by_admin(1)).await.unwrap();
    let clash = db.create_api_token(o.bob.id, "mine", "secret-1", o.by_admin(2)).await;
    assert!(clash.is_err(), "{clash:?}");
    assert_eq!(db.api_tokens(o.bob.id).await.unwrap(), []);
    let found = db.person_by_token("secret-1", o.by_admin(3).at).await.unwrap();
    assert_eq!(found.map(|p| p.id), Some(o.alice.id));
}

async fn a_sign_in_lock_is_audited_and_an_event_for_the_admins(db: Db) {
    let o = org(&db).await;
    let at = o.by_admin(1).at;
    let until = at + chrono::Duration::minutes(5);
    let event = db.record_sign_in_lock(&o.alice, until, at).await.unwrap();
    assert_eq!(
        (event.name.as_str(), event.state.as_deref(), event.at),
        ("sign_in_locked", Some(o.alice.email.as_str()), at)
    );
    assert_eq!((event.run, event.thread, event.message, event.connector), (None, None, None, None));
    assert!(event.refs.is_empty());
    assert_eq!(db.events_after(0, 100).await.unwrap(), std::slice::from_ref(&event), "the admins' events show it");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.subject.clone(), entry.actor, entry.at),
        ("person.sign_in_locked", format!("person:{}", o.alice.id), None, at)
    );
    assert_eq!(entry.detail, format!("wrong passwords; new addresses wait until {}", until.to_rfc3339()));
    // A second lock is a second row of each, after the first.
    let again = db.record_sign_in_lock(&o.alice, until + chrono::Duration::minutes(6), at).await.unwrap();
    assert!(again.id > event.id);
    assert_eq!(db.events_after(event.id, 100).await.unwrap(), [again]);
}
