//! People an admin adds: invite links (made, replaced, used once, expired), passwords and the
//! session generation that ends sessions, and the admin flag that never leaves the company
//! without an admin, even when two admins race.

use crate::backends::{at, new_person, on_both, org, Db};
use engine::org::people::{InviteState, NewInvite, ResetNotice, PASSWORD_RESET_EVENT};
use engine::org::PersonId;
use engine::store::{NewPerson, StoreError};

on_both! {
    an_added_person_has_their_role_and_an_open_link: sqlite_an_added_person_has_their_role_and_an_open_link,
        postgres_an_added_person_has_their_role_and_an_open_link;
    a_link_is_used_once: sqlite_a_link_is_used_once, postgres_a_link_is_used_once;
    racing_uses_of_a_link_set_one_password: sqlite_racing_uses_of_a_link_set_one_password,
        postgres_racing_uses_of_a_link_set_one_password;
    an_expired_link_changes_nothing: sqlite_an_expired_link_changes_nothing, postgres_an_expired_link_changes_nothing;
    a_reset_replaces_the_open_link_and_ends_sessions: sqlite_a_reset_replaces_the_open_link_and_ends_sessions,
        postgres_a_reset_replaces_the_open_link_and_ends_sessions;
    a_password_change_raises_the_generation: sqlite_a_password_change_raises_the_generation,
        postgres_a_password_change_raises_the_generation;
    a_reset_is_an_event_and_a_notice_told_once: sqlite_a_reset_is_an_event_and_a_notice_told_once,
        postgres_a_reset_is_an_event_and_a_notice_told_once;
    the_last_admin_cannot_be_removed_or_leave: sqlite_the_last_admin_cannot_be_removed_or_leave,
        postgres_the_last_admin_cannot_be_removed_or_leave;
    two_admins_demoting_each_other_leave_one: sqlite_two_admins_demoting_each_other_leave_one,
        postgres_two_admins_demoting_each_other_leave_one;
    a_demotion_racing_a_departure_leaves_an_admin: sqlite_a_demotion_racing_a_departure_leaves_an_admin,
        postgres_a_demotion_racing_a_departure_leaves_an_admin;
}

fn link(name: &str, expires_in_minutes: i64) -> NewInvite {
    NewInvite { secret_hash: format!("hash-of-link-{name}"), expires_at: at(expires_in_minutes) }
}

async fn hash_of(db: &Db, email: &str) -> String {
    db.credentials(email).await.unwrap().expect("a current person").1
}

async fn an_added_person_has_their_role_and_an_open_link(db: Db) {
    let o = org(&db).await;
    let new = NewPerson { main_team: Some(o.team.id), ..new_person("Cleo", "Cleo@Acme.test") };
    let cleo = db.add_person(&new, Some(o.support.id), &link("cleo", 60), o.by_admin(1)).await.unwrap();
    assert_eq!(
        (cleo.email.as_str(), cleo.role_override, cleo.main_team),
        ("cleo@acme.test", Some(o.support.id), Some(o.team.id))
    );
    assert_eq!(db.person(cleo.id).await.unwrap().unwrap(), cleo);
    let invite = db.invite("hash-of-link-cleo").await.unwrap().expect("the link is kept by its hash");
    assert_eq!((invite.person, invite.name.as_str(), invite.email.as_str()), (cleo.id, "Cleo", "cleo@acme.test"));
    assert_eq!((invite.created_at, invite.expires_at), (at(1), at(60)));
    assert_eq!(invite.state(at(2)), InviteState::Open);
    assert!(db.invite("hash-of-another").await.unwrap().is_none());
    assert_eq!(db.person_with_generation(cleo.id).await.unwrap().map(|s| s.generation), Some(0));
    let audit = db.audit_log(2).await.unwrap();
    assert_eq!((audit[0].action.as_str(), audit[0].actor), ("person.invite", Some(o.admin.id)));
    assert_eq!((audit[1].action.as_str(), audit[1].detail.as_str()), ("person.create", "Cleo"));
    // The same email, in any case, is refused and adds nothing.
    let twice = db.add_person(&new_person("Cleo Two", "CLEO@acme.test"), None, &link("cleo2", 60), o.by_admin(2)).await;
    assert!(matches!(twice, Err(StoreError::Duplicate(_))), "{twice:?}");
    assert!(db.invite("hash-of-link-cleo2").await.unwrap().is_none());
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "person.invite");
}

async fn a_link_is_used_once(db: Db) {
    let o = org(&db).await;
    let cleo =
        db.add_person(&new_person("Cleo", "cleo@acme.test"), None, &link("cleo", 60), o.by_admin(1)).await.unwrap();
    let used = db.use_invite("hash-of-link-cleo", "cleo-hash", at(5)).await.unwrap();
    assert_eq!(used.map(|p| p.id), Some(cleo.id));
    assert_eq!(hash_of(&db, "cleo@acme.test").await, "cleo-hash");
    let invite = db.invite("hash-of-link-cleo").await.unwrap().unwrap();
    assert_eq!((invite.used_at, invite.state(at(6))), (Some(at(5)), InviteState::Used));
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.actor), ("person.invite_used", Some(cleo.id)));
    assert!(db.use_invite("hash-of-link-cleo", "another-hash", at(7)).await.unwrap().is_none());
    assert_eq!(hash_of(&db, "cleo@acme.test").await, "cleo-hash", "a used link changes nothing");
    assert!(db.use_invite("hash-of-nothing", "x", at(7)).await.unwrap().is_none());
}

async fn racing_uses_of_a_link_set_one_password(db: Db) {
    let o = org(&db).await;
    db.add_person(&new_person("Cleo", "cleo@acme.test"), None, &link("cleo", 60), o.by_admin(1)).await.unwrap();
    let tries: Vec<_> = (0..6)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move { db.use_invite("hash-of-link-cleo", &format!("hash-{i}"), at(5)).await })
        })
        .collect();
    let mut won = Vec::new();
    for (i, t) in tries.into_iter().enumerate() {
        if t.await.unwrap().unwrap().is_some() {
            won.push(i);
        }
    }
    assert_eq!(won.len(), 1, "exactly one use wins: {won:?}");
    assert_eq!(hash_of(&db, "cleo@acme.test").await, format!("hash-{}", won[0]));
}

async fn an_expired_link_changes_nothing(db: Db) {
    let o = org(&db).await;
    db.add_person(&new_person("Cleo", "cleo@acme.test"), None, &link("cleo", 60), o.by_admin(1)).await.unwrap();
    let before = hash_of(&db, "cleo@acme.test").await;
    assert!(db.use_invite("hash-of-link-cleo", "late", at(60)).await.unwrap().is_none(), "it ends at expires_at");
    assert_eq!(hash_of(&db, "cleo@acme.test").await, before);
    let invite = db.invite("hash-of-link-cleo").await.unwrap().unwrap();
    assert_eq!((invite.used_at, invite.state(at(60))), (None, InviteState::Expired));
    assert!(db.use_invite("hash-of-link-cleo", "in-time", at(59)).await.unwrap().is_some());
}

async fn a_reset_replaces_the_open_link_and_ends_sessions(db: Db) {
    let o = org(&db).await;
    let cleo =
        db.add_person(&new_person("Cleo", "cleo@acme.test"), None, &link("first", 60), o.by_admin(1)).await.unwrap();
    db.use_invite("hash-of-link-first", "chosen", at(2)).await.unwrap().unwrap();
    db.reset_password(cleo.id, "unusable-1", &link("second", 100), o.by_admin(3)).await.unwrap();
    assert_eq!(hash_of(&db, "cleo@acme.test").await, "unusable-1", "the old password stops working");
    assert_eq!(db.person_with_generation(cleo.id).await.unwrap().map(|s| s.generation), Some(1));
    let first = db.invite("hash-of-link-first").await.unwrap().unwrap();
    assert_eq!((first.used_at, first.replaced_at), (Some(at(2)), None), "a used link stays used");
    let audit = db.audit_log(2).await.unwrap();
    assert_eq!((audit[0].action.as_str(), audit[1].action.as_str()), ("person.invite", "person.password_reset"));
    assert_eq!(audit[1].subject, format!("person:{}", cleo.id));
    // A second reset replaces the second, still open, link.
    db.reset_password(cleo.id, "unusable-2", &link("third", 100), o.by_admin(4)).await.unwrap();
    let second = db.invite("hash-of-link-second").await.unwrap().unwrap();
    assert_eq!((second.replaced_at, second.state(at(5))), (Some(at(4)), InviteState::Replaced));
    assert_eq!(db.person_with_generation(cleo.id).await.unwrap().map(|s| s.generation), Some(2));
    assert!(db.use_invite("hash-of-link-second", "old-link", at(5)).await.unwrap().is_none());
    assert_eq!(hash_of(&db, "cleo@acme.test").await, "unusable-2");
    assert!(db.use_invite("hash-of-link-third", "new-link", at(5)).await.unwrap().is_some());
    assert_eq!(hash_of(&db, "cleo@acme.test").await, "new-link");
    // Nobody resets the password of someone who left, and their links no longer work.
    db.reset_password(cleo.id, "unusable-3", &link("fourth", 100), o.by_admin(6)).await.unwrap();
    db.mark_left(cleo.id, o.by_admin(7)).await.unwrap();
    let gone = db.reset_password(cleo.id, "unusable-4", &link("fifth", 100), o.by_admin(8)).await;
    assert!(matches!(gone, Err(StoreError::NotFound(_))), "{gone:?}");
    assert!(db.invite("hash-of-link-fifth").await.unwrap().is_none());
    let fourth = db.invite("hash-of-link-fourth").await.unwrap().unwrap();
    assert_eq!(fourth.state(at(9)), InviteState::PersonLeft);
    assert!(db.use_invite("hash-of-link-fourth", "after-leaving", at(9)).await.unwrap().is_none());
    let missing = db.reset_password(PersonId(cleo.id.0 + 100), "x", &link("sixth", 100), o.by_admin(9)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

/// Whether the session's read of `who` says a reset notice waits for them.
async fn reset_waiting(db: &Db, who: PersonId) -> bool {
    db.person_with_generation(who).await.unwrap().unwrap().reset_notice_waiting
}

async fn a_reset_is_an_event_and_a_notice_told_once(db: Db) {
    let o = org(&db).await;
    let before = db.events_after(0, 1000).await.unwrap().len();
    assert_eq!(db.take_reset_notice(o.alice.id, at(1)).await.unwrap(), None, "nothing waits before a reset");
    assert!(!reset_waiting(&db, o.alice.id).await);

    db.reset_password(o.alice.id, "unusable-1", &link("first", 100), o.by_admin(2)).await.unwrap();
    db.reset_password(o.alice.id, "unusable-2", &link("second", 100), o.by_admin(3)).await.unwrap();
    let events = db.events_after(0, 1000).await.unwrap();
    let resets: Vec<_> = events[before..].iter().filter(|e| e.name == PASSWORD_RESET_EVENT).collect();
    assert_eq!(resets.len(), 2, "{events:?}");
    assert_eq!((resets[0].state.as_deref(), resets[0].at), (Some("alice@acme.test"), at(2)));

    assert!(reset_waiting(&db, o.alice.id).await, "the guard's read of her says one waits");
    assert!(!reset_waiting(&db, o.bob.id).await, "and of him that none does");
    assert_eq!(db.take_reset_notice(o.bob.id, at(4)).await.unwrap(), None, "only hers");
    let notice = db.take_reset_notice(o.alice.id, at(4)).await.unwrap().expect("her notice");
    assert_eq!(notice, ResetNotice { by: o.admin.name.clone(), at: at(3) }, "the newest reset");
    assert_eq!(db.take_reset_notice(o.alice.id, at(5)).await.unwrap(), None, "told once, for both resets");
    assert!(!reset_waiting(&db, o.alice.id).await, "none waits once told");

    // A reset the store refuses leaves no event and no notice.
    let events_before = db.events_after(0, 1000).await.unwrap().len();
    let missing = db.reset_password(PersonId(o.alice.id.0 + 100), "x", &link("third", 100), o.by_admin(6)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    assert_eq!(db.events_after(0, 1000).await.unwrap().len(), events_before);
    assert_eq!(db.take_reset_notice(o.alice.id, at(7)).await.unwrap(), None);
}

async fn a_password_change_raises_the_generation(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.change_password(o.alice.id, "alice-new", actor_alice(&o, 1)).await.unwrap(), 1);
    assert_eq!(db.change_password(o.alice.id, "alice-newer", actor_alice(&o, 2)).await.unwrap(), 2);
    assert_eq!(hash_of(&db, "alice@acme.test").await, "alice-newer");
    let alice = db.person_with_generation(o.alice.id).await.unwrap().unwrap();
    assert_eq!((alice.person, alice.generation, alice.reset_notice_waiting), (o.alice.clone(), 2, false));
    assert_eq!(db.person_with_generation(o.bob.id).await.unwrap().map(|s| s.generation), Some(0), "only hers");
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.actor), ("person.password", Some(o.alice.id)));
    db.mark_left(o.alice.id, o.by_admin(3)).await.unwrap();
    let gone = db.change_password(o.alice.id, "after", actor_alice(&o, 4)).await;
    assert!(matches!(gone, Err(StoreError::NotFound(_))), "{gone:?}");
    assert!(db.person_with_generation(PersonId(o.alice.id.0 + 100)).await.unwrap().is_none());
}

fn actor_alice(o: &crate::backends::Org, minutes: i64) -> engine::store::Actor {
    crate::backends::actor(Some(o.alice.id), minutes)
}

async fn admins(db: &Db) -> Vec<PersonId> {
    let dir = db.directory().await.unwrap();
    dir.people.iter().filter(|p| p.is_admin && p.left_at.is_none()).map(|p| p.id).collect()
}

async fn the_last_admin_cannot_be_removed_or_leave(db: Db) {
    let o = org(&db).await;
    let alone = db.set_admin(o.admin.id, false, o.by_admin(1)).await;
    assert_eq!(alone, Err(StoreError::LastAdmin));
    let left = db.mark_left(o.admin.id, actor_alice(&o, 1)).await;
    assert!(matches!(left, Err(StoreError::LastAdmin)), "{left:?}");
    assert_eq!(admins(&db).await, vec![o.admin.id], "nothing changed");
    db.set_admin(o.alice.id, true, o.by_admin(2)).await.unwrap();
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.detail.as_str()), ("person.admin", "no -> yes"));
    assert_eq!(audit.subject, format!("person:{}", o.alice.id));
    db.set_admin(o.admin.id, false, actor_alice(&o, 3)).await.unwrap();
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, "yes -> no");
    assert_eq!(admins(&db).await, vec![o.alice.id]);
    assert_eq!(db.set_admin(o.alice.id, false, actor_alice(&o, 4)).await, Err(StoreError::LastAdmin));
    assert!(matches!(db.mark_left(o.alice.id, o.by_admin(4)).await, Err(StoreError::LastAdmin)));
    // Someone who is not an admin leaves as before.
    db.mark_left(o.bob.id, actor_alice(&o, 5)).await.unwrap();
    let gone = db.set_admin(o.bob.id, true, actor_alice(&o, 6)).await;
    assert!(matches!(gone, Err(StoreError::NotFound(_))), "{gone:?}");
}

async fn two_admins_demoting_each_other_leave_one(db: Db) {
    let o = org(&db).await;
    for round in 0..8 {
        db.set_admin(o.alice.id, true, o.by_admin(round * 3)).await.unwrap();
        db.set_admin(o.admin.id, true, actor_alice(&o, round * 3)).await.ok();
        let (d1, d2) = (db.clone(), db.clone());
        let (admin, alice) = (o.admin.id, o.alice.id);
        let a = tokio::spawn(async move { d1.set_admin(alice, false, crate::backends::actor(Some(admin), 1)).await });
        let b = tokio::spawn(async move { d2.set_admin(admin, false, crate::backends::actor(Some(alice), 1)).await });
        let outcomes = [a.await.unwrap(), b.await.unwrap()];
        let refused = outcomes.iter().filter(|r| **r == Err(StoreError::LastAdmin)).count();
        assert_eq!((outcomes.iter().filter(|r| r.is_ok()).count(), refused), (1, 1), "round {round}: {outcomes:?}");
        assert_eq!(admins(&db).await.len(), 1, "round {round}: exactly one admin is left");
    }
}

async fn a_demotion_racing_a_departure_leaves_an_admin(db: Db) {
    let o = org(&db).await;
    db.set_admin(o.alice.id, true, o.by_admin(1)).await.unwrap();
    let (d1, d2) = (db.clone(), db.clone());
    let (admin, alice) = (o.admin.id, o.alice.id);
    // Alice takes Ada's admin away while Ada marks Alice as left: one of them must lose.
    let demote = tokio::spawn(async move { d1.set_admin(admin, false, crate::backends::actor(Some(alice), 2)).await });
    let leave =
        tokio::spawn(async move { d2.mark_left(alice, crate::backends::actor(Some(admin), 2)).await.map(|_| ()) });
    let outcomes = [demote.await.unwrap(), leave.await.unwrap()];
    assert_eq!(outcomes.iter().filter(|r| r.is_ok()).count(), 1, "{outcomes:?}");
    assert!(outcomes.contains(&Err(StoreError::LastAdmin)), "{outcomes:?}");
    assert_eq!(admins(&db).await.len(), 1);
}
