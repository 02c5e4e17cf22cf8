//! CoreStore: versioned cores, refused when stale, and suggestions accepted or dismissed.

use crate::backends::{on_both, org, slug, Db, Org};
use engine::cores::{CoreHead, CoreScope, NewCoreVersion, NewSuggestion, SuggestionState};
use engine::org::{RoleId, TeamId};
use engine::store::StoreError;

on_both! {
    a_first_append_makes_version_one: sqlite_a_first_append_makes_version_one,
        postgres_a_first_append_makes_version_one;
    versions_are_listed_newest_first_and_found_by_number: sqlite_versions_are_listed_newest_first_and_found_by_number,
        postgres_versions_are_listed_newest_first_and_found_by_number;
    append_refuses_a_stale_version: sqlite_append_refuses_a_stale_version, postgres_append_refuses_a_stale_version;
    each_scope_counts_its_own_versions: sqlite_each_scope_counts_its_own_versions,
        postgres_each_scope_counts_its_own_versions;
    racing_appends_on_one_version_make_exactly_one: sqlite_racing_appends_on_one_version_make_exactly_one,
        postgres_racing_appends_on_one_version_make_exactly_one;
    suggestions_are_added_open_and_listed_in_order: sqlite_suggestions_are_added_open_and_listed_in_order,
        postgres_suggestions_are_added_open_and_listed_in_order;
    accept_appends_the_version_and_closes_the_suggestion: sqlite_accept_appends_the_version_and_closes_the_suggestion,
        postgres_accept_appends_the_version_and_closes_the_suggestion;
    accept_refuses_a_stale_version_and_leaves_it_open: sqlite_accept_refuses_a_stale_version_and_leaves_it_open,
        postgres_accept_refuses_a_stale_version_and_leaves_it_open;
    accept_refuses_a_missing_or_decided_suggestion: sqlite_accept_refuses_a_missing_or_decided_suggestion,
        postgres_accept_refuses_a_missing_or_decided_suggestion;
    dismiss_closes_an_open_suggestion_once: sqlite_dismiss_closes_an_open_suggestion_once,
        postgres_dismiss_closes_an_open_suggestion_once;
    racing_accepts_on_one_version_make_exactly_one: sqlite_racing_accepts_on_one_version_make_exactly_one,
        postgres_racing_accepts_on_one_version_make_exactly_one;
    versions_page_by_key_newest_first: sqlite_versions_page_by_key_newest_first,
        postgres_versions_page_by_key_newest_first;
    a_run_reads_the_role_and_the_team_with_their_current_cores:
        sqlite_a_run_reads_the_role_and_the_team_with_their_current_cores,
        postgres_a_run_reads_the_role_and_the_team_with_their_current_cores;
    every_cores_current_version_is_read_at_once: sqlite_every_cores_current_version_is_read_at_once,
        postgres_every_cores_current_version_is_read_at_once;
}

async fn every_cores_current_version_is_read_at_once(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.current_core_heads().await.unwrap(), Vec::<CoreHead>::new(), "no core has a version yet");

    let other = db.create_team("Renewals", None, o.by_admin(1)).await.unwrap();
    let (deals, renewals) = (CoreScope::Team(o.team.id), CoreScope::Team(other.id));
    db.append_core_version(&save(&o, &sales(), 0, "company one", 1)).await.unwrap();
    db.append_core_version(&save(&o, &sales(), 1, "company two is longer", 2)).await.unwrap();
    db.append_core_version(&save(&o, &renewals, 0, "renewals one", 3)).await.unwrap();
    for n in 0..3u32 {
        db.append_core_version(&save(&o, &deals, n, &"deals ".repeat(n as usize + 1), n as i64 + 4)).await.unwrap();
    }
    // A version under a key that names no role or team is not a core anyone lists.
    let stray = CoreScope::Company(slug("gone"));
    db.append_core_version(&save(&o, &stray, 0, "stray", 9)).await.unwrap();

    let mut heads = db.current_core_heads().await.unwrap();
    heads.sort_by_key(|h| h.scope.key());
    let head = |scope: &CoreScope, version, tokens| CoreHead { scope: scope.clone(), version, tokens };
    let mut expected = vec![head(&sales(), 2, 4), head(&deals, 3, 3), head(&renewals, 1, 2)];
    expected.sort_by_key(|h| h.scope.key());
    assert_eq!(heads, expected);
    assert_eq!(
        heads.iter().find(|h| h.scope == sales()).cloned().unwrap(),
        CoreHead {
            scope: sales(),
            version: db.current_core(&sales()).await.unwrap().unwrap().version,
            tokens: db.current_core(&sales()).await.unwrap().unwrap().tokens,
        },
        "the same version as the one-scope read"
    );
}

async fn a_run_reads_the_role_and_the_team_with_their_current_cores(db: Db) {
    let o = org(&db).await;
    let team = CoreScope::Team(o.team.id);
    // Nothing written yet: the role and the team, without cores.
    let read = db.cores_for_run(o.sales.id, Some(o.team.id)).await.unwrap().unwrap();
    assert_eq!((read.role, read.company, read.team), (o.sales.clone(), None, Some((o.team.clone(), None))));

    db.append_core_version(&save(&o, &sales(), 0, "company one", 1)).await.unwrap();
    let current = db.append_core_version(&save(&o, &sales(), 1, "company two", 2)).await.unwrap();
    let read = db.cores_for_run(o.sales.id, Some(o.team.id)).await.unwrap().unwrap();
    assert_eq!((read.company, read.team), (Some(current.clone()), Some((o.team.clone(), None))));

    db.append_core_version(&save(&o, &team, 0, "team one", 3)).await.unwrap();
    let team_current = db.append_core_version(&save(&o, &team, 1, "team two", 4)).await.unwrap();
    let read = db.cores_for_run(o.sales.id, Some(o.team.id)).await.unwrap().unwrap();
    assert_eq!(read.company, Some(current.clone()));
    assert_eq!(read.team, Some((o.team.clone(), Some(team_current.clone()))));

    // Another role reads its own company core (none yet), whatever the team's role; no team, no
    // team core; a team or a role that does not exist reads as none.
    let read = db.cores_for_run(o.support.id, Some(o.team.id)).await.unwrap().unwrap();
    assert_eq!((read.role, read.company), (o.support.clone(), None));
    assert_eq!(read.team, Some((o.team.clone(), Some(team_current))));
    let read = db.cores_for_run(o.sales.id, None).await.unwrap().unwrap();
    assert_eq!((read.company, read.team), (Some(current.clone()), None));
    let read = db.cores_for_run(o.sales.id, Some(TeamId(o.team.id.0 + 100))).await.unwrap().unwrap();
    assert_eq!((read.company, read.team), (Some(current), None));
    assert_eq!(db.cores_for_run(RoleId(o.support.id.0 + 100), Some(o.team.id)).await.unwrap(), None);
}

async fn versions_page_by_key_newest_first(db: Db) {
    let o = org(&db).await;
    for n in 0..7u32 {
        db.append_core_version(&save(&o, &sales(), n, &format!("v{}", n + 1), n as i64 + 1)).await.unwrap();
    }
    let numbers = |page: Vec<engine::cores::CoreVersion>| page.iter().map(|v| v.version).collect::<Vec<_>>();
    assert_eq!(numbers(db.core_versions(&sales(), None, 3).await.unwrap()), [7, 6, 5]);
    assert_eq!(numbers(db.core_versions(&sales(), Some(5), 3).await.unwrap()), [4, 3, 2]);
    assert_eq!(numbers(db.core_versions(&sales(), Some(2), 3).await.unwrap()), [1]);
    assert_eq!(numbers(db.core_versions(&sales(), Some(1), 3).await.unwrap()), Vec::<u32>::new());
    assert_eq!(numbers(db.core_versions(&sales(), Some(100), 2).await.unwrap()), [7, 6]);
    assert_eq!(numbers(db.core_versions(&sales(), None, 0).await.unwrap()), Vec::<u32>::new());
}

fn sales() -> CoreScope {
    CoreScope::Company(slug("sales"))
}

fn save(o: &Org, scope: &CoreScope, based_on: u32, text: &str, minutes: i64) -> NewCoreVersion {
    NewCoreVersion {
        scope: scope.clone(),
        based_on,
        text: text.into(),
        tokens: text.split_whitespace().count() as u32,
        author: o.alice.id,
        note: format!("note for {text}"),
        restored_from: None,
        at: o.by_admin(minutes).at,
    }
}

fn suggest(scope: &CoreScope, line: &str, based_on: u32, minutes: i64) -> NewSuggestion {
    NewSuggestion {
        scope: scope.clone(),
        line: line.into(),
        why: format!("why {line}"),
        rests_on: "three calls last week".into(),
        source: "nightly job".into(),
        based_on,
        at: crate::backends::at(minutes),
    }
}

async fn a_first_append_makes_version_one(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.current_core(&sales()).await.unwrap(), None);
    assert_eq!(db.core_versions(&sales(), None, 1000).await.unwrap(), []);
    let saved = db.append_core_version(&save(&o, &sales(), 0, "Quote in euros", 1)).await.unwrap();
    assert_eq!(saved.scope, sales());
    assert_eq!(saved.version, 1);
    assert_eq!(saved.text, "Quote in euros");
    assert_eq!(saved.tokens, 3);
    assert_eq!(saved.author, "Alice", "the author is read back by name");
    assert_eq!(saved.note, "note for Quote in euros");
    assert_eq!(saved.restored_from, None);
    assert_eq!(saved.saved_at, o.by_admin(1).at);
    assert_eq!(db.current_core(&sales()).await.unwrap(), Some(saved));
}

async fn versions_are_listed_newest_first_and_found_by_number(db: Db) {
    let o = org(&db).await;
    db.append_core_version(&save(&o, &sales(), 0, "one", 1)).await.unwrap();
    db.append_core_version(&save(&o, &sales(), 1, "two", 2)).await.unwrap();
    let restore = NewCoreVersion { restored_from: Some(1), author: o.bob.id, ..save(&o, &sales(), 2, "one", 3) };
    let third = db.append_core_version(&restore).await.unwrap();
    assert_eq!((third.version, third.restored_from, third.author.as_str()), (3, Some(1), "Bob"));

    let all = db.core_versions(&sales(), None, 1000).await.unwrap();
    let listed: Vec<_> = all.iter().map(|v| (v.version, v.text.as_str())).collect();
    assert_eq!(listed, [(3, "one"), (2, "two"), (1, "one")]);
    assert_eq!(db.core_version(&sales(), 2).await.unwrap().as_ref(), Some(&all[1]));
    assert_eq!(db.core_version(&sales(), 4).await.unwrap(), None);
    assert_eq!(db.current_core(&sales()).await.unwrap(), Some(third));
}

async fn append_refuses_a_stale_version(db: Db) {
    let o = org(&db).await;
    db.append_core_version(&save(&o, &sales(), 0, "one", 1)).await.unwrap();
    db.append_core_version(&save(&o, &sales(), 1, "two", 2)).await.unwrap();
    for based_on in [0, 1, 3] {
        let refused = db.append_core_version(&save(&o, &sales(), based_on, "late", 3)).await;
        assert_eq!(refused, Err(StoreError::Changed { current: 2 }), "based on {based_on}");
    }
    assert_eq!(db.core_versions(&sales(), None, 1000).await.unwrap().len(), 2);
    assert_eq!(db.current_core(&sales()).await.unwrap().unwrap().text, "two");
}

async fn each_scope_counts_its_own_versions(db: Db) {
    let o = org(&db).await;
    let team = CoreScope::Team(o.team.id);
    db.append_core_version(&save(&o, &sales(), 0, "company one", 1)).await.unwrap();
    db.append_core_version(&save(&o, &sales(), 1, "company two", 2)).await.unwrap();
    let first = db.append_core_version(&save(&o, &team, 0, "team one", 3)).await.unwrap();
    assert_eq!((first.scope, first.version), (team.clone(), 1));
    assert_eq!(db.core_versions(&team, None, 1000).await.unwrap().len(), 1);
    let support = CoreScope::Company(slug("support"));
    assert_eq!(db.current_core(&support).await.unwrap(), None);
    assert_eq!(db.core_version(&support, 1).await.unwrap(), None);
}

async fn racing_appends_on_one_version_make_exactly_one(db: Db) {
    let o = org(&db).await;
    db.append_core_version(&save(&o, &sales(), 0, "start", 1)).await.unwrap();
    let writers: Vec<_> = (0..32)
        .map(|i| {
            let db = db.clone();
            let new = save(&o, &sales(), 1, &format!("writer {i}"), 2);
            tokio::spawn(async move { db.append_core_version(&new).await })
        })
        .collect();
    let mut saved = Vec::new();
    for w in writers {
        match w.await.unwrap() {
            Ok(v) => saved.push(v),
            Err(e) => assert_eq!(e, StoreError::Changed { current: 2 }, "every loser is told the new version"),
        }
    }
    assert_eq!(saved.len(), 1, "exactly one writer wins: {saved:?}");
    assert_eq!(saved[0].version, 2);
    let all = db.core_versions(&sales(), None, 1000).await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0], saved[0]);
}

async fn suggestions_are_added_open_and_listed_in_order(db: Db) {
    let o = org(&db).await;
    let team = CoreScope::Team(o.team.id);
    let first = db.add_suggestion(&suggest(&sales(), "Quote in euros", 0, 1)).await.unwrap();
    assert_eq!(first.scope, sales());
    assert_eq!(first.line, "Quote in euros");
    assert_eq!(first.why, "why Quote in euros");
    assert_eq!(first.rests_on, "three calls last week");
    assert_eq!(first.source, "nightly job");
    assert_eq!(first.based_on, 0);
    assert_eq!(first.state, SuggestionState::Open);
    assert_eq!(first.created_at, crate::backends::at(1));
    assert_eq!((first.decided_by.clone(), first.decided_at), (None, None));
    let second = db.add_suggestion(&suggest(&sales(), "Never promise dates", 0, 2)).await.unwrap();
    db.add_suggestion(&suggest(&team, "Standup at ten", 0, 3)).await.unwrap();

    assert_eq!(db.suggestions(&sales()).await.unwrap(), [first.clone(), second]);
    assert_eq!(db.suggestions(&team).await.unwrap().len(), 1);
    assert_eq!(db.suggestion(first.id).await.unwrap(), Some(first));
    assert_eq!(db.suggestion(9_999).await.unwrap(), None);
}

async fn accept_appends_the_version_and_closes_the_suggestion(db: Db) {
    let o = org(&db).await;
    let s = db.add_suggestion(&suggest(&sales(), "Quote in euros", 0, 1)).await.unwrap();
    let saved = db.accept_suggestion(s.id, &save(&o, &sales(), 0, "Quote in euros", 2)).await.unwrap();
    assert_eq!((saved.version, saved.author.as_str()), (1, "Alice"));
    assert_eq!(db.current_core(&sales()).await.unwrap(), Some(saved));
    let decided = db.suggestion(s.id).await.unwrap().unwrap();
    assert_eq!(decided.state, SuggestionState::Accepted);
    assert_eq!(decided.decided_by.as_deref(), Some("Alice"));
    assert_eq!(decided.decided_at, Some(o.by_admin(2).at));
}

async fn accept_refuses_a_stale_version_and_leaves_it_open(db: Db) {
    let o = org(&db).await;
    let s = db.add_suggestion(&suggest(&sales(), "Quote in euros", 0, 1)).await.unwrap();
    db.append_core_version(&save(&o, &sales(), 0, "someone else", 2)).await.unwrap();
    let refused = db.accept_suggestion(s.id, &save(&o, &sales(), 0, "Quote in euros", 3)).await;
    assert_eq!(refused, Err(StoreError::Changed { current: 1 }));
    assert_eq!(db.suggestion(s.id).await.unwrap().unwrap().state, SuggestionState::Open);
    assert_eq!(db.core_versions(&sales(), None, 1000).await.unwrap().len(), 1);
    let saved = db.accept_suggestion(s.id, &save(&o, &sales(), 1, "someone else\nQuote in euros", 4)).await.unwrap();
    assert_eq!(saved.version, 2, "reopened on the new version, it goes through");
}

async fn accept_refuses_a_missing_or_decided_suggestion(db: Db) {
    let o = org(&db).await;
    let missing = db.accept_suggestion(9_999, &save(&o, &sales(), 0, "x", 1)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    let s = db.add_suggestion(&suggest(&sales(), "Quote in euros", 0, 1)).await.unwrap();
    db.accept_suggestion(s.id, &save(&o, &sales(), 0, "Quote in euros", 2)).await.unwrap();
    let twice = db.accept_suggestion(s.id, &save(&o, &sales(), 1, "Quote in euros twice", 3)).await;
    assert!(matches!(twice, Err(StoreError::NotFound(_))), "{twice:?}");
    let d = db.add_suggestion(&suggest(&sales(), "Dismissed", 1, 4)).await.unwrap();
    db.dismiss_suggestion(d.id, o.by_admin(5)).await.unwrap();
    let dismissed = db.accept_suggestion(d.id, &save(&o, &sales(), 1, "Dismissed", 6)).await;
    assert!(matches!(dismissed, Err(StoreError::NotFound(_))), "{dismissed:?}");
    assert_eq!(db.core_versions(&sales(), None, 1000).await.unwrap().len(), 1, "no refused accept saved a version");
}

async fn dismiss_closes_an_open_suggestion_once(db: Db) {
    let o = org(&db).await;
    let s = db.add_suggestion(&suggest(&sales(), "Quote in euros", 0, 1)).await.unwrap();
    db.dismiss_suggestion(s.id, o.by_admin(2)).await.unwrap();
    let decided = db.suggestion(s.id).await.unwrap().unwrap();
    assert_eq!(decided.state, SuggestionState::Dismissed);
    assert_eq!(decided.decided_by.as_deref(), Some("Ada Admin"));
    assert_eq!(decided.decided_at, Some(o.by_admin(2).at));
    let twice = db.dismiss_suggestion(s.id, o.by_admin(3)).await;
    assert!(matches!(twice, Err(StoreError::NotFound(_))), "{twice:?}");
    assert_eq!(db.suggestion(s.id).await.unwrap().unwrap().decided_at, Some(o.by_admin(2).at));
    let missing = db.dismiss_suggestion(9_999, o.by_admin(4)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    assert_eq!(db.current_core(&sales()).await.unwrap(), None);
}

async fn racing_accepts_on_one_version_make_exactly_one(db: Db) {
    let o = org(&db).await;
    let mut ids = Vec::new();
    for i in 0..8 {
        ids.push(db.add_suggestion(&suggest(&sales(), &format!("line {i}"), 0, 1)).await.unwrap().id);
    }
    let accepts: Vec<_> = ids
        .iter()
        .map(|&id| {
            let db = db.clone();
            let new = save(&o, &sales(), 0, &format!("accepted {id}"), 2);
            tokio::spawn(async move { (id, db.accept_suggestion(id, &new).await) })
        })
        .collect();
    let mut winners = Vec::new();
    for a in accepts {
        match a.await.unwrap() {
            (id, Ok(v)) => winners.push((id, v)),
            (_, Err(e)) => assert_eq!(e, StoreError::Changed { current: 1 }),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let (won, version) = &winners[0];
    assert_eq!(db.current_core(&sales()).await.unwrap().as_ref(), Some(version));
    for s in db.suggestions(&sales()).await.unwrap() {
        let want = if s.id == *won { SuggestionState::Accepted } else { SuggestionState::Open };
        assert_eq!(s.state, want, "suggestion {}", s.id);
    }
}
