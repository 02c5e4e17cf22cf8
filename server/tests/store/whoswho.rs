//! What who's who reads: a person's manager, the people around them, owners by email, and the
//! who's-who toolsets' reference lists (marked, saved whole, found by what they name, fetched once).

use crate::backends::{actor, at, new_person, on_both, org, Db};
use crate::connectors::connector;
use engine::cards::source::KeyMode;
use engine::org::teams::TeamStoreError;
use engine::org::PersonId;
use engine::runs::whoswho::ListEntry;
use engine::store::{NewPerson, StoreError};

on_both! {
    a_manager_is_set_audited_and_read_with_the_person: sqlite_a_manager_is_set_audited_and_read_with_the_person,
        postgres_a_manager_is_set_audited_and_read_with_the_person;
    around_reads_team_role_lead_manager_and_bounded_teammates:
        sqlite_around_reads_team_role_lead_manager_and_bounded_teammates,
        postgres_around_reads_team_role_lead_manager_and_bounded_teammates;
    around_a_person_without_a_team_has_their_manager_only:
        sqlite_around_a_person_without_a_team_has_their_manager_only,
        postgres_around_a_person_without_a_team_has_their_manager_only;
    people_by_emails_ignores_case_and_skips_who_left: sqlite_people_by_emails_ignores_case_and_skips_who_left,
        postgres_people_by_emails_ignores_case_and_skips_who_left;
    a_toolset_is_marked_whos_who_audited: sqlite_a_toolset_is_marked_whos_who_audited,
        postgres_a_toolset_is_marked_whos_who_audited;
    a_list_save_replaces_the_old_fetch: sqlite_a_list_save_replaces_the_old_fetch,
        postgres_a_list_save_replaces_the_old_fetch;
    entries_naming_match_exactly_ignoring_case: sqlite_entries_naming_match_exactly_ignoring_case,
        postgres_entries_naming_match_exactly_ignoring_case;
    a_list_fetch_is_claimed_once: sqlite_a_list_fetch_is_claimed_once, postgres_a_list_fetch_is_claimed_once;
}

async fn a_manager_is_set_audited_and_read_with_the_person(db: Db) {
    let o = org(&db).await;
    assert_eq!(o.alice.manager, None);
    db.set_manager(o.alice.id, Some(o.bob.id), o.by_admin(1)).await.unwrap();
    let alice = db.person(o.alice.id).await.unwrap().unwrap();
    assert_eq!(alice.manager, Some(o.bob.id));
    let listed = db.directory().await.unwrap().people.into_iter().find(|p| p.id == o.alice.id).unwrap();
    assert_eq!(listed.manager, Some(o.bob.id));
    let (signed_in, _) = db.credentials("alice@acme.test").await.unwrap().unwrap();
    assert_eq!(signed_in.manager, Some(o.bob.id));
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.actor), ("person.manager", Some(o.admin.id)));
    assert_eq!((audit.subject, audit.detail), (format!("person:{}", o.alice.id), format!("none -> {}", o.bob.id)));
    db.set_manager(o.alice.id, None, o.by_admin(2)).await.unwrap();
    assert_eq!(db.person(o.alice.id).await.unwrap().unwrap().manager, None);
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, format!("{} -> none", o.bob.id));
    let missing = db.set_manager(PersonId(o.alice.id.0 + 100), Some(o.bob.id), o.by_admin(3)).await;
    assert_eq!(missing, Err(TeamStoreError::NoSuchPerson));
}

async fn around_reads_team_role_lead_manager_and_bounded_teammates(db: Db) {
    let o = org(&db).await;
    db.set_team_lead(o.team.id, Some(o.bob.id), o.by_admin(1)).await.unwrap();
    db.set_manager(o.alice.id, Some(o.admin.id), o.by_admin(1)).await.unwrap();
    for name in ["Zoe", "Carl", "Dana", "Eve"] {
        let email = format!("{}@acme.test", name.to_lowercase());
        db.create_person(&NewPerson { main_team: Some(o.team.id), ..new_person(name, &email) }, actor(None, 2))
            .await
            .unwrap();
    }
    let carl = db.people_by_emails(&["carl@acme.test".into()]).await.unwrap().remove(0);
    db.set_manager(o.bob.id, Some(carl.id), o.by_admin(3)).await.unwrap();
    db.mark_left(carl.id, o.by_admin(3)).await.unwrap();

    let around = db.around(o.alice.id, 3).await.unwrap();
    assert_eq!(around.team.as_ref().map(|t| t.id), Some(o.team.id));
    assert_eq!(around.team_role.as_deref(), Some("Sales"));
    assert_eq!(around.lead.as_ref().map(|p| p.id), Some(o.bob.id));
    assert_eq!(around.manager.as_ref().map(|p| p.id), Some(o.admin.id));
    let names: Vec<_> = around.teammates.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Bob", "Dana", "Eve"], "by name, at most 3, never Alice herself or Carl, who left");
    let all = db.around(o.alice.id, 50).await.unwrap();
    let names: Vec<_> = all.teammates.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Bob", "Dana", "Eve", "Zoe"]);
    assert!(db.around(o.alice.id, 0).await.unwrap().teammates.is_empty());

    // A manager who left is no longer named, and no one new is put under them.
    assert_eq!(db.around(o.bob.id, 3).await.unwrap().manager, None);
    let refused = db.set_manager(o.alice.id, Some(carl.id), o.by_admin(4)).await;
    assert_eq!(refused, Err(TeamStoreError::HasLeft("Carl".into())));
    let missing = db.around(PersonId(o.alice.id.0 + 100), 3).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");

    // A lead who left is named neither as the lead nor among the teammates.
    db.mark_left(o.bob.id, o.by_admin(5)).await.unwrap();
    let around = db.around(o.alice.id, 50).await.unwrap();
    assert_eq!(around.lead, None);
    let names: Vec<_> = around.teammates.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Dana", "Eve", "Zoe"]);
    assert_eq!(around.manager.as_ref().map(|p| p.id), Some(o.admin.id));
}

async fn around_a_person_without_a_team_has_their_manager_only(db: Db) {
    let o = org(&db).await;
    let around = db.around(o.admin.id, 5).await.unwrap();
    assert_eq!(around, Default::default());
    db.set_manager(o.admin.id, Some(o.alice.id), o.by_admin(1)).await.unwrap();
    let around = db.around(o.admin.id, 5).await.unwrap();
    assert_eq!(around.manager.map(|p| p.id), Some(o.alice.id));
    assert_eq!((around.team, around.team_role, around.lead, around.teammates.len()), (None, None, None, 0));
}

async fn people_by_emails_ignores_case_and_skips_who_left(db: Db) {
    let o = org(&db).await;
    let found = db
        .people_by_emails(&[
            " ALICE@acme.test".into(),
            "Bob@Acme.Test".into(),
            "nobody@acme.test".into(),
            "alice@acme.test".into(),
        ])
        .await
        .unwrap();
    assert_eq!(found, [o.alice.clone(), o.bob.clone()]);
    assert!(db.people_by_emails(&[]).await.unwrap().is_empty());
    db.mark_left(o.bob.id, o.by_admin(1)).await.unwrap();
    let found = db.people_by_emails(&["alice@acme.test".into(), "bob@acme.test".into()]).await.unwrap();
    assert_eq!(found, [o.alice]);
}

async fn a_toolset_is_marked_whos_who_audited(db: Db) {
    let o = org(&db).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    assert!(db.whos_who_connectors().await.unwrap().is_empty());
    db.set_whos_who(crm.id, true, o.by_admin(2)).await.unwrap();
    db.set_whos_who(ats.id, true, o.by_admin(2)).await.unwrap();
    assert_eq!(db.whos_who_connectors().await.unwrap(), [ats.id, crm.id]);
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.detail.as_str()), ("connector.whos_who", "off -> on"));
    assert_eq!((audit.subject, audit.actor), (format!("connector:{}", ats.id), Some(o.admin.id)));
    db.set_whos_who(ats.id, false, o.by_admin(3)).await.unwrap();
    assert_eq!(db.whos_who_connectors().await.unwrap(), [crm.id]);
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, "on -> off");
    let missing = db.set_whos_who(crm.id + 100, true, o.by_admin(4)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

pub fn entry(connector: i64, source: &str, list: &str, id: &str, names: &[&str], minutes: i64) -> ListEntry {
    ListEntry {
        connector,
        source: source.into(),
        list: list.into(),
        id: Some(id.into()),
        values: vec![("region".into(), "South".into()), ("code".into(), id.into())],
        names: names.iter().map(|n| n.to_string()).collect(),
        fetched_at: at(minutes),
    }
}

async fn a_list_save_replaces_the_old_fetch(db: Db) {
    let o = org(&db).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    let other = connector(&db, &o, "other", KeyMode::Company).await;
    db.set_whos_who(ats.id, true, o.by_admin(1)).await.unwrap();
    let first = [
        entry(ats.id, "ats", "list_territories", "T-1", &["alice@acme.test"], 2),
        entry(ats.id, "ats", "list_territories", "T-2", &["bob@acme.test"], 2),
    ];
    db.save_list(ats.id, "list_territories", &first, at(2)).await.unwrap();
    let sources = [entry(ats.id, "ats", "list_lead_sources", "S-1", &[], 2)];
    db.save_list(ats.id, "list_lead_sources", &sources, at(2)).await.unwrap();
    // An unmarked connector's lists join no slice.
    db.save_list(
        other.id,
        "list_territories",
        &[entry(other.id, "other", "list_territories", "X", &["alice@acme.test"], 2)],
        at(2),
    )
    .await
    .unwrap();
    assert_eq!(db.list_entries().await.unwrap(), [first[0].clone(), first[1].clone(), sources[0].clone()]);

    let second = [entry(ats.id, "ats", "list_territories", "T-3", &["alice@acme.test"], 9)];
    db.save_list(ats.id, "list_territories", &second, at(9)).await.unwrap();
    assert_eq!(
        db.list_entries().await.unwrap(),
        [sources[0].clone(), second[0].clone()],
        "the old fetch is gone whole"
    );
    let bob = db.list_entries_naming(&["bob@acme.test".into()]).await.unwrap();
    assert_eq!(bob, [], "nor is it found by what it named");
    db.save_list(ats.id, "list_territories", &[], at(10)).await.unwrap();
    assert_eq!(db.list_entries().await.unwrap(), [sources[0].clone()]);
}

async fn entries_naming_match_exactly_ignoring_case(db: Db) {
    let o = org(&db).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    db.set_whos_who(ats.id, true, o.by_admin(1)).await.unwrap();
    let members = entry(ats.id, "ats", "list_team_members", "U-7", &["Alice@Acme.test", "bob@acme.test"], 2);
    let territory = entry(ats.id, "ats", "list_territories", "T-1", &["carl@acme.test"], 2);
    db.save_list(ats.id, "list_team_members", std::slice::from_ref(&members), at(2)).await.unwrap();
    db.save_list(ats.id, "list_territories", std::slice::from_ref(&territory), at(2)).await.unwrap();
    let naming = |keys: &[&str]| {
        let db = db.clone();
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        async move { db.list_entries_naming(&keys).await.unwrap() }
    };
    assert_eq!(naming(&["alice@acme.test"]).await, std::slice::from_ref(&members));
    assert_eq!(naming(&["ALICE@ACME.TEST"]).await, std::slice::from_ref(&members), "case does not matter");
    assert_eq!(naming(&["u-7"]).await, std::slice::from_ref(&members), "the entry's own id names it");
    assert_eq!(naming(&["alice"]).await, [], "a part of an email is not a match");
    assert_eq!(naming(&["alice@acme.tes"]).await, []);
    assert_eq!(naming(&["%"]).await, []);
    assert_eq!(naming(&[]).await, []);
    assert_eq!(naming(&["bob@acme.test", "carl@acme.test", "alice@acme.test"]).await, [members.clone(), territory]);
    db.set_whos_who(ats.id, false, o.by_admin(3)).await.unwrap();
    assert_eq!(naming(&["alice@acme.test"]).await, [], "an unmarked toolset's lists join no slice");
}

async fn a_list_fetch_is_claimed_once(db: Db) {
    let o = org(&db).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    let claims: Vec<_> = (0..2)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.claim_list_fetch(ats.id, "2026-11-30", at(1)).await.unwrap() })
        })
        .collect();
    let mut won = 0;
    for c in claims {
        won += u32::from(c.await.unwrap());
    }
    assert_eq!(won, 1, "exactly one of two servers fetches");
    assert!(!db.claim_list_fetch(ats.id, "2026-11-30", at(2)).await.unwrap());
    assert!(db.claim_list_fetch(ats.id, "2026-12-01", at(3)).await.unwrap(), "the next day is a new slot");
    assert!(db.claim_list_fetch(ats.id, "refetch:T-9:2026-11-30T10", at(3)).await.unwrap());
}
