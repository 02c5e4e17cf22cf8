//! Teams as admins shape them: a new team whose name no other has in any case, a team's name,
//! role and lead changed together, people moved between main teams, and managers that never go
//! round in a circle, even when two changes race.

use crate::backends::{actor, new_person, on_both, org, Db};
use engine::org::teams::{TeamChange, TeamStoreError};
use engine::org::{PersonId, RoleId, TeamId};
use engine::store::NewPerson;

on_both! {
    a_new_team_is_audited_and_no_other_has_its_name_in_any_case:
        sqlite_a_new_team_is_audited_and_no_other_has_its_name_in_any_case,
        postgres_a_new_team_is_audited_and_no_other_has_its_name_in_any_case;
    name_role_and_lead_change_together_one_audit_row_each:
        sqlite_name_role_and_lead_change_together_one_audit_row_each,
        postgres_name_role_and_lead_change_together_one_audit_row_each;
    a_refused_part_changes_nothing: sqlite_a_refused_part_changes_nothing, postgres_a_refused_part_changes_nothing;
    a_lead_changes_their_team_only_while_they_lead_it:
        sqlite_a_lead_changes_their_team_only_while_they_lead_it,
        postgres_a_lead_changes_their_team_only_while_they_lead_it;
    a_person_is_moved_to_another_main_team_audited:
        sqlite_a_person_is_moved_to_another_main_team_audited,
        postgres_a_person_is_moved_to_another_main_team_audited;
    managers_never_go_round_in_a_circle: sqlite_managers_never_go_round_in_a_circle,
        postgres_managers_never_go_round_in_a_circle;
    racing_manager_changes_never_close_a_circle: sqlite_racing_manager_changes_never_close_a_circle,
        postgres_racing_manager_changes_never_close_a_circle;
    racing_new_teams_with_one_name_in_two_cases_make_one_team:
        sqlite_racing_new_teams_with_one_name_in_two_cases_make_one_team,
        postgres_racing_new_teams_with_one_name_in_two_cases_make_one_team;
}

async fn a_new_team_is_audited_and_no_other_has_its_name_in_any_case(db: Db) {
    let o = org(&db).await;
    let desk = db.add_team("Support Desk", Some(o.support.id), o.by_admin(1)).await.unwrap();
    assert_eq!((desk.name.as_str(), desk.role, desk.lead), ("Support Desk", Some(o.support.id), None));
    assert_eq!(db.team(desk.id).await.unwrap(), Some(desk.clone()));
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.actor), ("team.create", Some(o.admin.id)));
    assert_eq!((audit.subject, audit.detail), (format!("team:{}", desk.id), "Support Desk".to_string()));

    for (name, taken) in [("support desk", "Support Desk"), ("DEALS", "Deals"), ("Deals", "Deals")] {
        let again = db.add_team(name, None, o.by_admin(2)).await;
        assert_eq!(again, Err(TeamStoreError::NameTaken(taken.to_string())), "{name}");
    }
    let no_role = db.add_team("Platform", Some(RoleId(9_999)), o.by_admin(2)).await;
    assert_eq!(no_role, Err(TeamStoreError::NoSuchRole));
    assert_eq!(db.directory().await.unwrap().teams.len(), 2, "only Deals and Support Desk");
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "team.create", "no refusal wrote a row");
}

async fn name_role_and_lead_change_together_one_audit_row_each(db: Db) {
    let o = org(&db).await;
    let (t, by) = (o.team.id, o.by_admin(1));
    let change = TeamChange {
        name: Some("Big Deals".into()),
        role: Some(Some(o.support.id)),
        lead: Some(Some(o.alice.id)),
        as_lead: None,
    };
    let team = db.change_team(t, &change, by).await.unwrap();
    assert_eq!((team.name.as_str(), team.role, team.lead), ("Big Deals", Some(o.support.id), Some(o.alice.id)));
    assert_eq!(db.team(t).await.unwrap(), Some(team));
    let seen: Vec<_> =
        db.audit_log(3).await.unwrap().into_iter().map(|a| (a.action, a.subject, a.detail, a.actor, a.at)).collect();
    let row = |action: &str, detail: String| (action.to_string(), format!("team:{t}"), detail, by.person, by.at);
    assert_eq!(
        seen,
        [
            row("team.lead", format!("none -> {}", o.alice.id)),
            row("team.role", format!("{} -> {}", o.sales.id, o.support.id)),
            row("team.rename", "Deals -> Big Deals".to_string()),
        ]
    );

    // Its own name in another case is no clash; what is already so writes no row.
    let same = TeamChange { name: Some("BIG DEALS".into()), lead: Some(Some(o.alice.id)), ..Default::default() };
    assert_eq!(db.change_team(t, &same, o.by_admin(2)).await.unwrap().name, "BIG DEALS");
    let audit = db.audit_log(2).await.unwrap();
    assert_eq!((audit[0].action.as_str(), audit[0].detail.as_str()), ("team.rename", "Big Deals -> BIG DEALS"));
    assert_eq!(audit[1].action, "team.lead", "the unchanged lead wrote nothing");

    // Clearing the role and the lead.
    let clear = TeamChange { role: Some(None), lead: Some(None), ..Default::default() };
    let team = db.change_team(t, &clear, o.by_admin(3)).await.unwrap();
    assert_eq!((team.role, team.lead), (None, None));
    let details: Vec<_> = db.audit_log(2).await.unwrap().into_iter().map(|a| a.detail).collect();
    assert_eq!(details, [format!("{} -> none", o.alice.id), format!("{} -> none", o.support.id)]);

    let missing = db.change_team(TeamId(9_999), &clear, o.by_admin(4)).await;
    assert_eq!(missing, Err(TeamStoreError::NoSuchTeam));
}

async fn a_refused_part_changes_nothing(db: Db) {
    let o = org(&db).await;
    let desk = db.add_team("Support Desk", None, o.by_admin(1)).await.unwrap();
    let before = db.audit_log(100).await.unwrap().len();
    db.mark_left(o.bob.id, o.by_admin(2)).await.unwrap();
    let left = before + 1;
    let renamed = |lead| TeamChange {
        name: Some("Closers".into()),
        role: Some(Some(o.support.id)),
        lead: Some(lead),
        as_lead: None,
    };
    let cases = [
        (renamed(Some(o.bob.id)), TeamStoreError::HasLeft("Bob".into())),
        (renamed(Some(PersonId(9_999))), TeamStoreError::NoSuchPerson),
        (TeamChange { role: Some(Some(RoleId(9_999))), ..renamed(None) }, TeamStoreError::NoSuchRole),
        (TeamChange { name: Some("SUPPORT desk".into()), ..renamed(None) }, TeamStoreError::NameTaken(desk.name)),
    ];
    for (change, refusal) in cases {
        assert_eq!(db.change_team(o.team.id, &change, o.by_admin(3)).await, Err(refusal));
    }
    assert_eq!(db.team(o.team.id).await.unwrap(), Some(o.team.clone()), "the team is as it was");
    assert_eq!(db.audit_log(100).await.unwrap().len(), left, "no row but the leaving");
}

async fn a_lead_changes_their_team_only_while_they_lead_it(db: Db) {
    let o = org(&db).await;
    let t = o.team.id;
    let lead = TeamChange { lead: Some(Some(o.alice.id)), ..Default::default() };
    db.change_team(t, &lead, o.by_admin(1)).await.unwrap();
    let as_alice = TeamChange { name: Some("Alice's Deals".into()), as_lead: Some(o.alice.id), ..Default::default() };
    let team = db.change_team(t, &as_alice, actor(Some(o.alice.id), 2)).await.unwrap();
    assert_eq!(team.name, "Alice's Deals");
    assert_eq!(db.audit_log(1).await.unwrap()[0].actor, Some(o.alice.id));

    let as_bob = TeamChange { name: Some("Bob's Deals".into()), as_lead: Some(o.bob.id), ..Default::default() };
    assert_eq!(db.change_team(t, &as_bob, actor(Some(o.bob.id), 3)).await, Err(TeamStoreError::NotLead));
    // Once she has left, she leads it no more, and the audit log says why.
    db.mark_left(o.alice.id, o.by_admin(4)).await.unwrap();
    assert_eq!(db.team(t).await.unwrap().unwrap().lead, None);
    let log = db.audit_log(2).await.unwrap();
    assert_eq!((log[1].action.as_str(), log[1].subject.clone()), ("team.lead", format!("team:{t}")));
    assert_eq!(log[1].detail, format!("{} -> none: left", o.alice.id));
    assert_eq!(log[0].action, "person.left");
    let again = TeamChange { name: Some("Still Alice's".into()), ..as_alice };
    assert_eq!(db.change_team(t, &again, actor(Some(o.alice.id), 5)).await, Err(TeamStoreError::NotLead));
    assert_eq!(db.team(t).await.unwrap().unwrap().name, "Alice's Deals");
}

async fn a_person_is_moved_to_another_main_team_audited(db: Db) {
    let o = org(&db).await;
    let desk = db.add_team("Support Desk", Some(o.support.id), o.by_admin(1)).await.unwrap();
    let before = db.move_person(o.alice.id, desk.id, o.by_admin(2)).await.unwrap();
    assert_eq!(before, o.alice, "the person as they were");
    assert_eq!(db.person(o.alice.id).await.unwrap().unwrap().main_team, Some(desk.id));
    let audit = db.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.actor), ("person.team", Some(o.admin.id)));
    assert_eq!(
        (audit.subject, audit.detail),
        (format!("person:{}", o.alice.id), format!("{} -> {}", o.team.id, desk.id))
    );

    // Someone with no team yet is moved into one; a stay writes nothing.
    let admin = db.move_person(o.admin.id, desk.id, o.by_admin(3)).await.unwrap();
    assert_eq!(admin.main_team, None);
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, format!("none -> {}", desk.id));
    let rows = db.audit_log(100).await.unwrap().len();
    let stay = db.move_person(o.alice.id, desk.id, o.by_admin(4)).await.unwrap();
    assert_eq!(stay.main_team, Some(desk.id));
    assert_eq!(db.audit_log(100).await.unwrap().len(), rows);

    assert_eq!(db.move_person(o.alice.id, TeamId(9_999), o.by_admin(5)).await, Err(TeamStoreError::NoSuchTeam));
    assert_eq!(db.move_person(PersonId(9_999), desk.id, o.by_admin(5)).await, Err(TeamStoreError::NoSuchPerson));
    db.mark_left(o.bob.id, o.by_admin(6)).await.unwrap();
    let rows = db.audit_log(100).await.unwrap().len();
    assert_eq!(db.move_person(o.bob.id, desk.id, o.by_admin(7)).await, Err(TeamStoreError::HasLeft("Bob".into())));
    assert_eq!(db.person(o.bob.id).await.unwrap().unwrap().main_team, Some(o.team.id));
    assert_eq!(db.audit_log(100).await.unwrap().len(), rows, "no refusal wrote a row");
}

async fn managers_never_go_round_in_a_circle(db: Db) {
    let o = org(&db).await;
    // Alice reports to Bob, Bob to the admin.
    db.set_manager(o.alice.id, Some(o.bob.id), o.by_admin(1)).await.unwrap();
    db.set_manager(o.bob.id, Some(o.admin.id), o.by_admin(2)).await.unwrap();
    let rows = db.audit_log(100).await.unwrap().len();
    for (person, manager) in [(o.admin.id, o.alice.id), (o.admin.id, o.bob.id), (o.bob.id, o.alice.id)] {
        let refused = db.set_manager(person, Some(manager), o.by_admin(3)).await;
        assert_eq!(refused, Err(TeamStoreError::ManagerCircle), "{person} under {manager}");
    }
    assert_eq!(db.set_manager(o.alice.id, Some(o.alice.id), o.by_admin(3)).await, Err(TeamStoreError::ManagerCircle));
    assert_eq!(db.audit_log(100).await.unwrap().len(), rows, "no refusal wrote a row");
    assert_eq!(db.person(o.admin.id).await.unwrap().unwrap().manager, None);

    // Someone who left manages nobody new; no one is missing.
    let carl = db.create_person(&new_person("Carl", "carl@acme.test"), actor(None, 4)).await.unwrap();
    db.mark_left(carl.id, o.by_admin(5)).await.unwrap();
    let refused = db.set_manager(o.alice.id, Some(carl.id), o.by_admin(6)).await;
    assert_eq!(refused, Err(TeamStoreError::HasLeft("Carl".into())));
    let missing = db.set_manager(o.alice.id, Some(PersonId(9_999)), o.by_admin(6)).await;
    assert_eq!(missing, Err(TeamStoreError::NoSuchPerson));
    assert_eq!(db.person(o.alice.id).await.unwrap().unwrap().manager, Some(o.bob.id));
}

/// Two admins at once: one puts Alice under Bob, the other Bob under Alice. Checked outside the
/// write, each would find no circle; checked inside, exactly one wins.
async fn racing_manager_changes_never_close_a_circle(db: Db) {
    let o = org(&db).await;
    for round in 0..12 {
        let (a, b) = (db.clone(), db.clone());
        let (p, q) = if round % 2 == 0 { (o.alice.id, o.bob.id) } else { (o.bob.id, o.alice.id) };
        let one = tokio::spawn(async move { a.set_manager(p, Some(q), actor(None, round)).await });
        let two = tokio::spawn(async move { b.set_manager(q, Some(p), actor(None, round)).await });
        let outcomes = [one.await.unwrap(), two.await.unwrap()];
        let won = outcomes.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "round {round}: {outcomes:?}");
        assert!(outcomes.contains(&Err(TeamStoreError::ManagerCircle)), "round {round}: {outcomes:?}");
        let (alice, bob) = (db.person(o.alice.id).await.unwrap().unwrap(), db.person(o.bob.id).await.unwrap().unwrap());
        assert!(!(alice.manager == Some(bob.id) && bob.manager == Some(alice.id)), "round {round}: a circle");
        for person in [o.alice.id, o.bob.id] {
            db.set_manager(person, None, actor(None, round)).await.unwrap();
        }
    }
}

async fn racing_new_teams_with_one_name_in_two_cases_make_one_team(db: Db) {
    let o = org(&db).await;
    for round in 0..8 {
        let name = format!("Night Shift {round}");
        let (a, b) = (db.clone(), db.clone());
        let (upper, lower) = (name.to_uppercase(), name.to_lowercase());
        let one = tokio::spawn(async move { a.add_team(&upper, None, actor(None, 1)).await });
        let two = tokio::spawn(async move { b.add_team(&lower, None, actor(None, 1)).await });
        let outcomes = [one.await.unwrap(), two.await.unwrap()];
        assert_eq!(outcomes.iter().filter(|r| r.is_ok()).count(), 1, "round {round}: {outcomes:?}");
        assert!(outcomes.iter().any(|r| matches!(r, Err(TeamStoreError::NameTaken(_)))), "{outcomes:?}");
    }
    // And a new person can still be put in one.
    let shift = db.directory().await.unwrap().teams.into_iter().find(|t| t.name.ends_with(" 0")).unwrap();
    let dana = NewPerson { main_team: Some(shift.id), ..new_person("Dana", "dana@acme.test") };
    assert_eq!(db.create_person(&dana, o.by_admin(9)).await.unwrap().main_team, Some(shift.id));
}
