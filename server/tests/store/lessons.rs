//! LessonStore: lessons kept with their evidence and claim, read back per person and per run,
//! superseded in one transaction (a stale supersede refused), forgotten with the versions they
//! replaced, and expired when nobody confirmed them.

use crate::backends::{at, on_both, org, Db};
use engine::cards::access::DataLabel;
use engine::lessons::states::NOBODY_CONFIRMED;
use engine::lessons::{Claim, Evidence, LessonScope, LessonState, NewLesson, WrittenBy};
use engine::org::PersonId;
use engine::runs::RunId;
use engine::store::{Actor, StoreError};

pub(crate) fn new(person: PersonId, scope: LessonScope, text: &str, state: LessonState, minutes: i64) -> NewLesson {
    NewLesson {
        person,
        scope,
        text: text.into(),
        evidence: vec![],
        label: DataLabel::Internal,
        checked_at: None,
        source_version: None,
        claim: None,
        state,
        confirmed: false,
        written_by: WrittenBy::Job,
        at: at(minutes),
    }
}

fn by(person: PersonId, minutes: i64) -> Actor {
    Actor { person: Some(person), at: at(minutes) }
}

on_both! {
    a_lesson_reads_back_as_kept: sqlite_a_lesson_reads_back_as_kept, postgres_a_lesson_reads_back_as_kept;
    partner_knowledge_reads_back_as_itself_and_is_no_core_drafts_company_knowledge:
        sqlite_partner_knowledge_reads_back_as_itself_and_is_no_core_drafts_company_knowledge,
        postgres_partner_knowledge_reads_back_as_itself_and_is_no_core_drafts_company_knowledge;
    a_run_reads_the_persons_own_their_teams_and_the_companys_accepted_lessons:
        sqlite_a_run_reads_the_persons_own_their_teams_and_the_companys_accepted_lessons,
        postgres_a_run_reads_the_persons_own_their_teams_and_the_companys_accepted_lessons;
    superseding_closes_the_old_lesson_and_refuses_a_stale_one:
        sqlite_superseding_closes_the_old_lesson_and_refuses_a_stale_one,
        postgres_superseding_closes_the_old_lesson_and_refuses_a_stale_one;
    forgetting_removes_the_versions_it_replaced: sqlite_forgetting_removes_the_versions_it_replaced,
        postgres_forgetting_removes_the_versions_it_replaced;
    only_unconfirmed_lessons_past_the_cutoff_expire: sqlite_only_unconfirmed_lessons_past_the_cutoff_expire,
        postgres_only_unconfirmed_lessons_past_the_cutoff_expire;
    a_proposal_is_decided_once: sqlite_a_proposal_is_decided_once, postgres_a_proposal_is_decided_once;
    lessons_claiming_a_record_are_found_by_its_id_and_marked_once:
        sqlite_lessons_claiming_a_record_are_found_by_its_id_and_marked_once,
        postgres_lessons_claiming_a_record_are_found_by_its_id_and_marked_once;
    a_person_who_leaves_has_their_private_lessons_retired_and_their_shared_ones_stay:
        sqlite_a_person_who_leaves_has_their_private_lessons_retired_and_their_shared_ones_stay,
        postgres_a_person_who_leaves_has_their_private_lessons_retired_and_their_shared_ones_stay;
}

async fn a_lesson_reads_back_as_kept(db: Db) {
    let o = org(&db).await;
    let mut l =
        new(o.alice.id, LessonScope::Personal, "Hebbal Biotech's stage is Negotiation", LessonState::Accepted, 1);
    l.evidence = vec![Evidence { run: RunId(4), step: 2 }, Evidence { run: RunId(5), step: 1 }];
    l.claim = Some(Claim { record: "L-1001".into(), field: "stage".into(), value: "Negotiation".into() });
    l.checked_at = Some(at(0));
    l.source_version = Some("v7".into());
    l.label = DataLabel::Confidential;
    let kept = db.add_lesson(&l, by(o.alice.id, 1)).await.unwrap();
    assert_eq!(
        (kept.person, kept.scope, kept.text.as_str(), kept.evidence.clone(), kept.claim.clone(), kept.label),
        (o.alice.id, LessonScope::Personal, l.text.as_str(), l.evidence.clone(), l.claim.clone(), l.label)
    );
    assert_eq!((kept.checked_at, kept.source_version.as_deref()), (Some(at(0)), Some("v7")));
    assert_eq!(
        (kept.valid_from, kept.valid_to, kept.state, kept.confirmed),
        (at(1), None, LessonState::Accepted, false)
    );
    assert_eq!((kept.supersedes, kept.written_by, kept.state_reason.as_deref()), (None, WrittenBy::Job, None));
    // What a question finds it by is kept with it, so a run never stems it again.
    assert_eq!(kept.terms, Some(engine::lessons::select::LessonTerms::of(&l.text)));
    assert_eq!(db.lesson(kept.id).await.unwrap(), Some(kept.clone()));
    assert_eq!(db.lesson(kept.id + 100).await.unwrap(), None);
    let team = db
        .add_lesson(&new(o.alice.id, LessonScope::Team(o.team.id), "t", LessonState::Waiting, 2), by(o.alice.id, 2))
        .await
        .unwrap();
    assert_eq!(db.lessons_of(o.alice.id).await.unwrap(), [team, kept.clone()], "newest first");
    assert!(db.lessons_of(o.bob.id).await.unwrap().is_empty());
    let entry = &db.audit_log(2).await.unwrap()[1];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("lesson.keep", kept.ref_id()));
    assert!(!entry.detail.contains("Hebbal"), "the audit names ids, never text");
}

async fn a_run_reads_the_persons_own_their_teams_and_the_companys_accepted_lessons(db: Db) {
    let o = org(&db).await;
    let add = |person, scope, text: &'static str, state| {
        let db = db.clone();
        async move { db.add_lesson(&new(person, scope, text, state, 1), by(person, 1)).await.unwrap() }
    };
    let own = add(o.alice.id, LessonScope::Personal, "alice's", LessonState::Accepted).await;
    add(o.bob.id, LessonScope::Personal, "bob's", LessonState::Accepted).await;
    let team = add(o.bob.id, LessonScope::Team(o.team.id), "the team's", LessonState::Accepted).await;
    add(o.bob.id, LessonScope::Team(o.team.id), "a proposal", LessonState::Waiting).await;
    let company = add(o.bob.id, LessonScope::Company, "the company's", LessonState::Accepted).await;
    // Her private agents' lessons come too; which agents load them is the engine's `within`.
    let private = add(o.alice.id, LessonScope::Agent(o.agent.id), "a private agent's", LessonState::Accepted).await;
    add(o.bob.id, LessonScope::Agent(o.agent.id), "bob's private agent's", LessonState::Accepted).await;
    add(o.alice.id, LessonScope::Personal, "contested", LessonState::Contested).await;
    let texts = |ls: Vec<engine::lessons::Lesson>| ls.into_iter().map(|l| l.text).collect::<Vec<_>>();
    assert_eq!(
        texts(db.lessons_for_run(o.alice.id, &[o.team.id]).await.unwrap()),
        [private.text.clone(), company.text.clone(), team.text.clone(), own.text.clone()]
    );
    assert_eq!(texts(db.lessons_for_run(o.alice.id, &[]).await.unwrap()), [private.text, company.text, own.text]);
}

async fn superseding_closes_the_old_lesson_and_refuses_a_stale_one(db: Db) {
    let o = org(&db).await;
    let old = db
        .add_lesson(&new(o.alice.id, LessonScope::Personal, "old words", LessonState::Accepted, 1), by(o.alice.id, 1))
        .await
        .unwrap();
    let mut words = new(o.alice.id, LessonScope::Personal, "new words", LessonState::Accepted, 5);
    words.written_by = WrittenBy::Person;
    words.confirmed = true;
    let newer = db.supersede_lesson(&old, &words, "corrected", by(o.alice.id, 5)).await.unwrap();
    assert_eq!((newer.supersedes, newer.text.as_str(), newer.confirmed), (Some(old.id), "new words", true));
    let closed = db.lesson(old.id).await.unwrap().unwrap();
    assert_eq!(
        (closed.state, closed.state_at, closed.valid_to, closed.state_reason.as_deref()),
        (LessonState::Superseded, at(5), Some(at(5)), Some("corrected"))
    );
    assert_eq!(closed.text, "old words", "the earlier lesson stays in the history");
    // A second correction made from the same stale read writes nothing.
    assert_eq!(
        db.supersede_lesson(&old, &words, "corrected", by(o.alice.id, 6)).await,
        Err(StoreError::Changed { current: 0 })
    );
    assert_eq!(db.lessons_of(o.alice.id).await.unwrap().len(), 2);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("lesson.supersede", old.ref_id()));
}

async fn forgetting_removes_the_versions_it_replaced(db: Db) {
    let o = org(&db).await;
    let first = db
        .add_lesson(&new(o.alice.id, LessonScope::Personal, "v1", LessonState::Accepted, 1), by(o.alice.id, 1))
        .await
        .unwrap();
    let second = db
        .supersede_lesson(
            &first,
            &new(o.alice.id, LessonScope::Personal, "v2", LessonState::Accepted, 2),
            "corrected",
            by(o.alice.id, 2),
        )
        .await
        .unwrap();
    let third = db
        .supersede_lesson(
            &second,
            &new(o.alice.id, LessonScope::Personal, "v3", LessonState::Accepted, 3),
            "corrected",
            by(o.alice.id, 3),
        )
        .await
        .unwrap();
    let other = db
        .add_lesson(&new(o.alice.id, LessonScope::Personal, "other", LessonState::Accepted, 4), by(o.alice.id, 4))
        .await
        .unwrap();
    // Forgetting the middle version takes it and the one it replaced; the later one stays.
    assert_eq!(db.forget_lesson(second.id, by(o.alice.id, 5)).await.unwrap(), 2);
    let left = db.lessons_of(o.alice.id).await.unwrap();
    assert_eq!(left.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["other", "v3"]);
    assert_eq!(left[1].supersedes, None);
    assert_eq!(db.forget_lesson(third.id, by(o.alice.id, 6)).await.unwrap(), 1);
    assert_eq!(db.lessons_of(o.alice.id).await.unwrap(), [other]);
    assert_eq!(db.forget_lesson(third.id, by(o.alice.id, 7)).await.unwrap(), 0, "already gone");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("lesson.forget", third.ref_id()));
}

async fn only_unconfirmed_lessons_past_the_cutoff_expire(db: Db) {
    let o = org(&db).await;
    let add = |text: &'static str, state, confirmed, minutes| {
        let db = db.clone();
        let person = o.alice.id;
        async move {
            let mut l = new(person, LessonScope::Personal, text, state, minutes);
            l.confirmed = confirmed;
            db.add_lesson(&l, by(person, minutes)).await.unwrap()
        }
    };
    let old = add("old", LessonState::Accepted, false, 1).await;
    let waiting = add("waiting", LessonState::Waiting, false, 1).await;
    let confirmed = add("confirmed", LessonState::Accepted, true, 1).await;
    let young = add("young", LessonState::Accepted, false, 10).await;
    let contested = add("contested", LessonState::Contested, false, 1).await;
    assert_eq!(db.expire_lessons(o.bob.id, at(5), at(20)).await.unwrap(), 0, "another person's are not touched");
    assert_eq!(db.expire_lessons(o.alice.id, at(5), at(20)).await.unwrap(), 2);
    let state = |id| {
        let db = db.clone();
        async move { db.lesson(id).await.unwrap().unwrap() }
    };
    let expired = state(old.id).await;
    assert_eq!(
        (expired.state, expired.state_at, expired.valid_to, expired.state_reason.as_deref()),
        (LessonState::Expired, at(20), Some(at(20)), Some(NOBODY_CONFIRMED))
    );
    assert_eq!(state(waiting.id).await.state, LessonState::Expired);
    assert_eq!(state(confirmed.id).await.state, LessonState::Accepted);
    assert_eq!(state(young.id).await.state, LessonState::Accepted);
    assert_eq!(state(contested.id).await.state, LessonState::Contested);
}

async fn a_person_who_leaves_has_their_private_lessons_retired_and_their_shared_ones_stay(db: Db) {
    let o = org(&db).await;
    let add = |scope, text: &'static str, state| {
        let db = db.clone();
        let person = o.alice.id;
        async move { db.add_lesson(&new(person, scope, text, state, 1), by(person, 1)).await.unwrap() }
    };
    let own = add(LessonScope::Personal, "own", LessonState::Accepted).await;
    let agent = add(LessonScope::Agent(o.agent.id), "a private agent's", LessonState::Accepted).await;
    let old = add(LessonScope::Personal, "old", LessonState::Superseded).await;
    let team = add(LessonScope::Team(o.team.id), "for the team", LessonState::Waiting).await;
    let company = add(LessonScope::Company, "for everyone", LessonState::Accepted).await;
    let bobs = db
        .add_lesson(&new(o.bob.id, LessonScope::Personal, "bob's", LessonState::Accepted, 1), by(o.bob.id, 1))
        .await
        .unwrap();
    db.mark_left(o.alice.id, o.by_admin(9)).await.unwrap();
    let now = |id| {
        let db = db.clone();
        async move { db.lesson(id).await.unwrap().expect("never deleted") }
    };
    for id in [own.id, agent.id] {
        let l = now(id).await;
        assert_eq!(
            (l.state, l.state_at, l.valid_to, l.state_reason.as_deref()),
            (LessonState::Retired, at(9), Some(at(9)), Some("left"))
        );
    }
    assert_eq!(now(old.id).await.state, LessonState::Superseded, "a closed lesson keeps its own end");
    assert_eq!(now(team.id).await.state, LessonState::Waiting, "a proposal stays with its reviewers");
    assert_eq!(now(company.id).await.state, LessonState::Accepted);
    assert_eq!(now(bobs.id).await.state, LessonState::Accepted);
    let read: Vec<i64> = db.lessons_for_run(o.bob.id, &[o.team.id]).await.unwrap().iter().map(|l| l.id).collect();
    assert_eq!(read, [bobs.id, company.id]);
}

async fn a_proposal_is_decided_once(db: Db) {
    let o = org(&db).await;
    let add = |scope, text: &'static str, state| {
        let db = db.clone();
        let person = o.alice.id;
        async move { db.add_lesson(&new(person, scope, text, state, 1), by(person, 1)).await.unwrap() }
    };
    let team = add(LessonScope::Team(o.team.id), "for the team", LessonState::Waiting).await;
    add(LessonScope::Personal, "own", LessonState::Accepted).await;
    let company = add(LessonScope::Company, "for everyone", LessonState::Waiting).await;
    add(LessonScope::Company, "accepted", LessonState::Accepted).await;
    let ids = |ls: Vec<engine::lessons::Lesson>| ls.into_iter().map(|l| l.id).collect::<Vec<_>>();
    assert_eq!(ids(db.waiting_lessons().await.unwrap()), [team.id, company.id], "oldest first, proposals only");

    let accepted = db.decide_lesson(team.id, true, o.by_admin(5)).await.unwrap();
    assert_eq!(
        (accepted.state, accepted.state_at, accepted.confirmed, accepted.valid_to, accepted.state_reason.as_deref()),
        (LessonState::Accepted, at(5), true, None, Some("accepted"))
    );
    assert_eq!(db.decide_lesson(team.id, false, o.by_admin(6)).await, Err(StoreError::Changed { current: 0 }));
    let declined = db.decide_lesson(company.id, false, o.by_admin(7)).await.unwrap();
    assert_eq!((declined.state, declined.confirmed, declined.valid_to), (LessonState::Declined, false, Some(at(7))));
    assert!(db.waiting_lessons().await.unwrap().is_empty());
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("lesson.declined", company.ref_id()));
}

async fn lessons_claiming_a_record_are_found_by_its_id_and_marked_once(db: Db) {
    let o = org(&db).await;
    let add = |person: PersonId, record: &'static str, state| {
        let db = db.clone();
        async move {
            let mut l = new(person, LessonScope::Personal, "claims", state, 1);
            l.claim = Some(Claim { record: record.into(), field: "stage".into(), value: "Qualified".into() });
            db.add_lesson(&l, by(person, 1)).await.unwrap().id
        }
    };
    let bare = add(o.alice.id, "L-1004", LessonState::Accepted).await;
    let kinded = add(o.bob.id, "lead l-1004", LessonState::Waiting).await;
    add(o.alice.id, "L-10045", LessonState::Accepted).await;
    add(o.alice.id, "L-1004", LessonState::Superseded).await;
    let found: Vec<i64> = db.lessons_claiming("L-1004").await.unwrap().iter().map(|l| l.id).collect();
    assert_eq!(found, [bare, kinded], "by its id alone or after its kind, in use or waiting");

    db.mark_lesson(bare, LessonState::Accepted, LessonState::Contested, "a check read another value", by(o.bob.id, 2))
        .await
        .unwrap();
    let marked = db.lesson(bare).await.unwrap().unwrap();
    assert_eq!((marked.state, marked.state_at), (LessonState::Contested, at(2)));
    assert_eq!(marked.state_reason.as_deref(), Some("a check read another value"));
    let again = db.mark_lesson(bare, LessonState::Accepted, LessonState::SourceRemoved, "gone", by(o.bob.id, 3)).await;
    assert!(matches!(again, Err(StoreError::Changed { .. })), "only from the state it was read in");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("lesson.contested", format!("lesson:{bare}")));
}

async fn partner_knowledge_reads_back_as_itself_and_is_no_core_drafts_company_knowledge(db: Db) {
    let o = org(&db).await;
    let partner = db
        .add_lesson(&new(o.alice.id, LessonScope::Partner, "via Deccan", LessonState::Waiting, 1), by(o.alice.id, 1))
        .await
        .unwrap();
    assert_eq!(partner.scope, LessonScope::Partner);
    assert_eq!(db.lesson(partner.id).await.unwrap().unwrap(), partner);
    assert_eq!(
        db.waiting_lessons().await.unwrap(),
        std::slice::from_ref(&partner),
        "it waits for review as company lessons do"
    );
    let decided = db.decide_lesson(partner.id, true, by(o.admin.id, 2)).await.unwrap();
    assert_eq!((decided.scope, decided.state), (LessonScope::Partner, LessonState::Accepted));
    let company = db
        .add_lesson(&new(o.bob.id, LessonScope::Company, "the company's", LessonState::Accepted, 3), by(o.bob.id, 3))
        .await
        .unwrap();
    let texts = |ls: Vec<engine::lessons::Lesson>| ls.into_iter().map(|l| l.text).collect::<Vec<_>>();
    // A run may read it (the agent's scopes decide whether it loads); a core draft never does.
    assert_eq!(texts(db.lessons_for_run(o.bob.id, &[]).await.unwrap()), ["the company's", "via Deccan"]);
    assert_eq!(texts(db.accepted_company_lessons().await.unwrap()), [company.text]);
}
