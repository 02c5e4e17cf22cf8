//! OrgStore's bounded reads: the outline, a page of people by name, a search by how a name, an
//! email or a team's name starts (A to Z folded alike on both backends), a picker's matches, a
//! whole name, a team's members a page at a time, and the counts by team the triggers keep as people
//! are added, imported, moved and leave.

use crate::backends::{actor, exec, new_person, on_both, on_both_stores, org, Db};
use crate::import::person;
use chrono::Duration;
use engine::org::import::PeopleImport;
use engine::org::listing::{PrefixSearch, TeamSize};
use engine::org::{Person, PersonId, TeamId};
use engine::store::NewPerson;
use server::store::AnyStore;

on_both! {
    outline_holds_teams_roles_and_company_agents_but_no_people:
        sqlite_outline_holds_teams_roles_and_company_agents_but_no_people,
        postgres_outline_holds_teams_roles_and_company_agents_but_no_people;
    people_come_a_page_at_a_time_by_name_then_id: sqlite_people_come_a_page_at_a_time_by_name_then_id,
        postgres_people_come_a_page_at_a_time_by_name_then_id;
    a_search_matches_the_start_of_a_name_an_email_or_a_team: sqlite_a_search_matches_the_start_of_a_name_an_email_or_a_team,
        postgres_a_search_matches_the_start_of_a_name_an_email_or_a_team;
    a_search_considers_a_bounded_number_of_each_way: sqlite_a_search_considers_a_bounded_number_of_each_way,
        postgres_a_search_considers_a_bounded_number_of_each_way;
    a_picker_and_a_whole_name_find_only_current_people: sqlite_a_picker_and_a_whole_name_find_only_current_people,
        postgres_a_picker_and_a_whole_name_find_only_current_people;
    a_team_s_members_come_a_page_at_a_time: sqlite_a_team_s_members_come_a_page_at_a_time,
        postgres_a_team_s_members_come_a_page_at_a_time;
    counts_by_team_follow_every_way_people_come_move_and_go:
        sqlite_counts_by_team_follow_every_way_people_come_move_and_go,
        postgres_counts_by_team_follow_every_way_people_come_move_and_go;
}

on_both_stores! {
    people_added_or_removed_together_count_each_team_once:
        sqlite_people_added_or_removed_together_count_each_team_once,
        postgres_people_added_or_removed_together_count_each_team_once;
}

fn names(people: &[Person]) -> Vec<&str> {
    people.iter().map(|p| p.name.as_str()).collect()
}

fn search(typed: &str) -> PrefixSearch {
    PrefixSearch::parse(typed).expect("a search")
}

async fn add(db: &Db, name: &str, email: &str, team: Option<TeamId>) -> Person {
    db.create_person(&NewPerson { main_team: team, ..new_person(name, email) }, actor(None, 1)).await.expect("add")
}

async fn sizes(db: &Db) -> Vec<TeamSize> {
    let mut s = db.team_sizes().await.unwrap();
    s.sort_by_key(|s| s.team.map(|t| t.0).unwrap_or(0));
    s
}

async fn outline_holds_teams_roles_and_company_agents_but_no_people(db: Db) {
    let o = org(&db).await;
    let outline = db.outline().await.unwrap();
    assert_eq!(outline.teams, std::slice::from_ref(&o.team));
    assert_eq!(outline.roles.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["Sales", "Support"]);
    assert_eq!(outline.agents, std::slice::from_ref(&o.agent));
    let dir = db.directory().await.unwrap();
    assert_eq!((outline.teams, outline.roles, outline.agents), (dir.teams, dir.roles, dir.agents));
    // Each list by name, by bytes (upper case before lower); a private agent is in none of them.
    db.add_team("alpha desk", None, actor(None, 2)).await.unwrap();
    db.add_team("Zeta Desk", Some(o.support.id), actor(None, 2)).await.unwrap();
    let hand_made = |name: &str| engine::store::NewAgent {
        name: name.into(),
        template: "hand-made".into(),
        role: None,
        owner: o.alice.id,
        team_copy: None,
    };
    db.add_private_agent(&hand_made("Aaa (Alice)"), "", actor(Some(o.alice.id), 2)).await.unwrap();
    let outline = db.outline().await.unwrap();
    let team_names: Vec<&str> = outline.teams.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(team_names, [o.team.name.as_str(), "Zeta Desk", "alpha desk"]);
    assert_eq!(outline.teams[1].role, Some(o.support.id));
    assert_eq!(outline.agents, std::slice::from_ref(&o.agent), "no private agent");
    assert_eq!(outline.roles.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["Sales", "Support"]);
    let by_ids = db.people_by_ids(&[o.bob.id, o.admin.id, PersonId(999_999)]).await.unwrap();
    assert_eq!(names(&by_ids), ["Ada Admin", "Bob"]);
    assert!(db.people_by_ids(&[]).await.unwrap().is_empty());
}

async fn people_come_a_page_at_a_time_by_name_then_id(db: Db) {
    let o = org(&db).await;
    // Two of one name come by id; by bytes, upper case sorts before lower and "Z" before "a".
    let second_bob = add(&db, "Bob", "bob2@acme.test", None).await;
    add(&db, "zed", "zed@acme.test", None).await;
    add(&db, "Zoe", "zoe@acme.test", None).await;
    let all = db.people_page(None, 0, 100).await.unwrap();
    assert_eq!(names(&all), ["Ada Admin", "Alice", "Bob", "Bob", "Zoe", "zed"]);
    assert_eq!((all[2].id, all[3].id), (o.bob.id, second_bob.id));
    let page2 = db.people_page(None, 2, 2).await.unwrap();
    assert_eq!(page2.iter().map(|p| p.id).collect::<Vec<_>>(), [o.bob.id, second_bob.id]);
    assert!(db.people_page(None, 6, 2).await.unwrap().is_empty());
    // Someone who has left is still listed (the page marks them).
    db.mark_left(o.alice.id, actor(Some(o.admin.id), 2)).await.unwrap();
    assert_eq!(names(&db.people_page(None, 0, 2).await.unwrap()), ["Ada Admin", "Alice"]);
}

async fn a_search_matches_the_start_of_a_name_an_email_or_a_team(db: Db) {
    let o = org(&db).await; // Alice and Bob are in Deals
    add(&db, "Dee Lane", "dee@acme.test", None).await;
    add(&db, "Émile Zola", "emile@acme.test", None).await;
    add(&db, "Carl", "deacon@other.test", None).await;
    // "de" starts Dee's name, Carl's email and the team Deals, ignoring case.
    let found = db.people_page(Some(&search("DE")), 0, 10).await.unwrap();
    assert_eq!(names(&found), ["Alice", "Bob", "Carl", "Dee Lane"]);
    assert_eq!(names(&db.people_page(Some(&search("dea")), 0, 10).await.unwrap()), ["Alice", "Bob", "Carl"]);
    assert_eq!(names(&db.people_page(Some(&search("dea")), 1, 1).await.unwrap()), ["Bob"]);
    // The start only: "ice" is inside Alice's name, not at its start.
    assert!(db.people_page(Some(&search("ice")), 0, 10).await.unwrap().is_empty());
    assert_eq!(names(&db.people_page(Some(&search("ada@")), 0, 10).await.unwrap()), ["Ada Admin"]);
    // Only A to Z fold, on both backends alike.
    assert_eq!(names(&db.people_page(Some(&search("Émile")), 0, 10).await.unwrap()), ["Émile Zola"]);
    assert!(db.people_page(Some(&search("émile")), 0, 10).await.unwrap().is_empty());
    // Characters a LIKE pattern would read as wildcards are only characters here.
    assert!(db.people_page(Some(&search("%")), 0, 10).await.unwrap().is_empty());
    assert!(db.people_page(Some(&search("_")), 0, 10).await.unwrap().is_empty());
    let _ = o;
}

async fn a_search_considers_a_bounded_number_of_each_way(db: Db) {
    let o = org(&db).await;
    let kappa = db.add_team("Kappa", None, actor(None, 1)).await.unwrap();
    // "ka" starts three names, three emails and a team of three; a search that considers two of
    // each way takes the first two in that way's order: the folded name, the email, the team's
    // members by name.
    let abe = add(&db, "Kai Abe", "x1@t.test", None).await;
    add(&db, "kai Bo", "x2@t.test", None).await;
    add(&db, "Kai Cy", "x3@t.test", None).await;
    add(&db, "Zed One", "ka1@t.test", None).await;
    add(&db, "Ann Two", "ka2@t.test", None).await;
    add(&db, "Moe Three", "ka3@t.test", None).await;
    for (name, email) in [("Yan", "y@t.test"), ("Xu", "xu@t.test"), ("Wu", "w@t.test")] {
        add(&db, name, email, Some(kappa.id)).await;
    }
    let two = PrefixSearch { considers: 2, ..search("KA") };
    let page = db.people_page(Some(&two), 0, 50).await.unwrap();
    assert_eq!(names(&page), ["Ann Two", "Kai Abe", "Wu", "Xu", "Zed One", "kai Bo"]);
    assert_eq!(names(&db.people_page(Some(&two), 2, 2).await.unwrap()), ["Wu", "Xu"]);
    assert!(db.search_overflows(&two).await.unwrap(), "each way has a third");
    // Considering as many as match takes everyone in and no longer overflows.
    let three = PrefixSearch { considers: 3, ..search("ka") };
    assert_eq!(db.people_page(Some(&three), 0, 50).await.unwrap().len(), 9);
    assert!(!db.search_overflows(&three).await.unwrap());
    // One way over is enough to say so.
    let names_only = PrefixSearch { considers: 2, ..search("kai ") };
    assert_eq!(names(&db.people_page(Some(&names_only), 0, 50).await.unwrap()), ["Kai Abe", "kai Bo"]);
    assert!(db.search_overflows(&names_only).await.unwrap());
    assert!(!db.search_overflows(&PrefixSearch { considers: 3, ..search("kai ") }).await.unwrap());
    // A page of a search and whether it overflows, read at once, say what the two reads say, on
    // a page past the end and on a search that matches nobody too.
    for (s, offset, limit) in
        [(&two, 0, 50), (&two, 2, 2), (&two, 6, 5), (&three, 0, 50), (&three, 4, 3), (&names_only, 0, 1)]
    {
        let apart = (db.people_page(Some(s), offset, limit).await.unwrap(), db.search_overflows(s).await.unwrap());
        assert_eq!(db.search_page(s, offset, limit).await.unwrap(), apart, "{s:?} from {offset}, {limit}");
    }
    let (page, over) = db.search_page(&two, 6, 5).await.unwrap();
    assert!(page.is_empty() && over, "past the end, still over");
    assert_eq!(db.search_page(&search("nobody"), 0, 50).await.unwrap(), (Vec::new(), false));
    // Someone who left still counts on a page; a picker considers current people only, so the
    // next one by name takes the place, and it never matches by team.
    db.mark_left(abe.id, actor(Some(o.admin.id), 2)).await.unwrap();
    assert_eq!(names(&db.people_page(Some(&two), 0, 50).await.unwrap())[1], "Kai Abe");
    assert_eq!(names(&db.pick_people(&two, 10).await.unwrap()), ["Ann Two", "Kai Cy", "Zed One", "kai Bo"]);
    assert_eq!(names(&db.pick_people(&two, 2).await.unwrap()), ["Ann Two", "Kai Cy"]);
}

async fn a_picker_and_a_whole_name_find_only_current_people(db: Db) {
    let o = org(&db).await;
    let sam = add(&db, "Sam Rao", "sam@acme.test", None).await;
    let other_sam = add(&db, "sam rao", "sam.rao@acme.test", None).await;
    add(&db, "Samira", "samira@acme.test", None).await;
    db.mark_left(o.bob.id, actor(Some(o.admin.id), 2)).await.unwrap();
    // A picker: by the start of a name or an email, current people only, at most the limit.
    assert_eq!(names(&db.pick_people(&search("sam"), 10).await.unwrap()), ["Sam Rao", "Samira", "sam rao"]);
    assert_eq!(db.pick_people(&search("sam"), 2).await.unwrap().len(), 2);
    assert!(db.pick_people(&search("bob"), 10).await.unwrap().is_empty(), "Bob has left");
    assert!(db.pick_people(&search("Deals"), 10).await.unwrap().is_empty(), "a picker matches no team");
    // A whole name, folded, by id; not a prefix, and never someone who has left.
    let named = db.people_named(" SAM RAO ", 5).await.unwrap();
    assert_eq!(named.iter().map(|p| p.id).collect::<Vec<_>>(), [sam.id, other_sam.id]);
    assert_eq!(db.people_named("sam rao", 1).await.unwrap().len(), 1);
    assert!(db.people_named("Sam", 5).await.unwrap().is_empty());
    assert!(db.people_named("Bob", 5).await.unwrap().is_empty());
}

async fn a_team_s_members_come_a_page_at_a_time(db: Db) {
    let o = org(&db).await;
    add(&db, "Aaron", "aaron@acme.test", Some(o.team.id)).await;
    add(&db, "Nobody's", "nobody@acme.test", None).await;
    assert_eq!(names(&db.team_members(o.team.id, 0, 10).await.unwrap()), ["Aaron", "Alice", "Bob"]);
    assert_eq!(names(&db.team_members(o.team.id, 1, 1).await.unwrap()), ["Alice"]);
    db.mark_left(o.alice.id, actor(Some(o.admin.id), 2)).await.unwrap();
    assert_eq!(names(&db.team_members(o.team.id, 0, 10).await.unwrap()), ["Aaron", "Bob"]);
    assert!(db.team_members(TeamId(999_999), 0, 10).await.unwrap().is_empty());
}

async fn counts_by_team_follow_every_way_people_come_move_and_go(db: Db) {
    let o = org(&db).await; // Ada has no team; Alice and Bob are in Deals
    let team = o.team.id;
    let size = |team: Option<TeamId>, people: u32| TeamSize { team, people };
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(team), 2)]);
    let night = db.add_team("Night Desk", None, actor(None, 1)).await.unwrap();
    // Moved: out of one team and into another.
    db.move_person(o.alice.id, night.id, actor(Some(o.admin.id), 2)).await.unwrap();
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(team), 1), size(Some(night.id), 1)]);
    // A change that is not a move or a leaving counts nothing.
    db.set_person_role(o.bob.id, Some(o.support.id), actor(Some(o.admin.id), 3)).await.unwrap();
    db.set_password_hash(o.bob.id, "another-hash", actor(Some(o.admin.id), 3)).await.unwrap();
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(team), 1), size(Some(night.id), 1)]);
    // Left: counted nowhere, and the team with nobody left is not listed.
    db.mark_left(o.alice.id, actor(Some(o.admin.id), 4)).await.unwrap();
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(team), 1)]);
    // Imported, in one transaction.
    let import = PeopleImport {
        people: (0..30).map(|n| person(n, if n % 3 == 0 { night.id } else { team }, None)).collect(),
        password_hash: "no-password-matches".into(),
        invite_expires_at: chrono::Utc::now() + Duration::days(7),
        audit_detail: "added 30 people".into(),
    };
    db.import_people(&import, actor(Some(o.admin.id), 5)).await.unwrap();
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(team), 21), size(Some(night.id), 10)]);
    // What the counts say is what counting everyone says.
    let dir = db.directory().await.unwrap();
    for s in sizes(&db).await {
        let counted = dir.people.iter().filter(|p| p.left_at.is_none() && p.main_team == s.team).count();
        assert_eq!(counted, s.people as usize, "{s:?}");
    }
}

/// An import of thousands updates each team's count once, not once a person: on PostgreSQL every
/// update in one transaction leaves a dead row version behind, and 100,000 imported people once
/// left the 44 counts in 540 pages that every People, Teams and Roles page then read.
async fn people_added_or_removed_together_count_each_team_once(store: AnyStore) {
    let db = store.shared();
    let o = org(&db).await; // Ada has no team; Alice and Bob are in Deals
    let size = |team: Option<TeamId>, people: u32| TeamSize { team, people };
    let night = db.add_team("Night Desk", None, actor(None, 1)).await.unwrap();
    let import = PeopleImport {
        people: (0..3000).map(|n| person(n, if n % 3 == 0 { night.id } else { o.team.id }, None)).collect(),
        password_hash: "no-password-matches".into(),
        invite_expires_at: chrono::Utc::now() + Duration::days(7),
        audit_detail: "added 3000 people".into(),
    };
    db.import_people(&import, actor(Some(o.admin.id), 2)).await.unwrap();
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(o.team.id), 2002), size(Some(night.id), 1000)]);
    if let AnyStore::Postgres(s) = &store {
        let bytes: i64 = sqlx::query_scalar("SELECT pg_relation_size('team_sizes')").fetch_one(s.pool()).await.unwrap();
        assert!(bytes <= 2 * 8192, "three counts take {bytes} bytes: a version a person imported");
    }
    // Removed in one statement (the store never removes a person; a statement the triggers see).
    exec(&store, "DELETE FROM invites WHERE person_id IN (SELECT id FROM people WHERE email LIKE ?)", &["p1%"]).await;
    exec(&store, "DELETE FROM people WHERE email LIKE ?", &["p1%"]).await;
    // p1, p10..19, p100..199, p1000..1999: 1,111 people, 369 of them Night Desk's.
    assert_eq!(sizes(&db).await, [size(None, 1), size(Some(o.team.id), 2002 - 742), size(Some(night.id), 1000 - 369)]);
    let dir = db.directory().await.unwrap();
    for s in sizes(&db).await {
        let counted = dir.people.iter().filter(|p| p.left_at.is_none() && p.main_team == s.team).count();
        assert_eq!(counted, s.people as usize, "{s:?}");
    }
}
