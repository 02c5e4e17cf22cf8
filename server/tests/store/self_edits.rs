//! SelfEditStore: a bot's memory_self_edit requests decided, carried out and recorded in one
//! transaction; counted against its limits; approved, declined and undone.

use crate::backends::{actor, at, on_both, org, Db, Org};
use engine::persona::audn::AudnOp;
use engine::persona::backlog::{NewEpisode, Outcome};
use engine::persona::config::SelfEditPolicy;
use engine::persona::render::MemoryKind;
use engine::persona::self_edit::{Change, EditRequest};
use engine::persona::self_edit_store::{EditState, SelfEdit, Settled};

on_both! {
    applied_edits_change_the_rows_and_record_before_and_after:
        sqlite_applied_edits_change_the_rows_and_record_before_and_after,
        postgres_applied_edits_change_the_rows_and_record_before_and_after;
    limits_count_this_session_and_today_and_refusals_count_for_nothing:
        sqlite_limits_count_this_session_and_today_and_refusals_count_for_nothing,
        postgres_limits_count_this_session_and_today_and_refusals_count_for_nothing;
    a_waiting_edit_is_approved_or_declined_once:
        sqlite_a_waiting_edit_is_approved_or_declined_once,
        postgres_a_waiting_edit_is_approved_or_declined_once;
    undo_takes_each_change_back_within_the_grace_period_only:
        sqlite_undo_takes_each_change_back_within_the_grace_period_only,
        postgres_undo_takes_each_change_back_within_the_grace_period_only;
    knowledge_gaps_are_kept_per_bot_newest_first:
        sqlite_knowledge_gaps_are_kept_per_bot_newest_first,
        postgres_knowledge_gaps_are_kept_per_bot_newest_first;
}

fn req(action: &str, target: &str, content: Option<&str>, reason: &str) -> EditRequest {
    EditRequest {
        action: action.into(),
        target: target.into(),
        content: content.map(Into::into),
        reason: reason.into(),
    }
}

fn episode(wake: &str, minutes: i64) -> NewEpisode {
    NewEpisode {
        agent: "dealbot".into(),
        wake: wake.into(),
        trigger: "wakeup".into(),
        task: None,
        outcome: Outcome::Done,
        turns: Some(3),
        cost_usd: None,
        duration_s: None,
        summary: format!("I finished {wake}"),
        log_path: None,
        transcript_path: None,
        at: at(minutes),
    }
}

/// Two lessons and an anti-pattern of dealbot's, and a lesson of another bot's.
async fn rows(db: &Db) -> (i64, i64, i64, i64, Org) {
    let o = org(db).await;
    let e = db.insert_episode(&episode("run-0", 0)).await.unwrap().id;
    let ops = [
        AudnOp::Add { kind: MemoryKind::Lesson, text: "Ask first".into() },
        AudnOp::Add { kind: MemoryKind::Lesson, text: "Quote in euros".into() },
        AudnOp::Add { kind: MemoryKind::AntiPattern, text: "Never guess a price".into() },
    ];
    let a = db.apply_ops("dealbot", e, &ops, at(0)).await.unwrap().added;
    let other = NewEpisode { agent: "scout".into(), ..episode("run-s", 0) };
    let s = db.insert_episode(&other).await.unwrap().id;
    let theirs = db
        .apply_ops("scout", s, &[AudnOp::Add { kind: MemoryKind::Lesson, text: "Theirs".into() }], at(0))
        .await
        .unwrap()
        .added[0];
    (a[0], a[1], a[2], theirs, o)
}

fn no_approval() -> SelfEditPolicy {
    SelfEditPolicy { require_approval: vec![], max_edits_per_session: 20, ..SelfEditPolicy::default() }
}

async fn edit(db: &Db, p: &SelfEditPolicy, r: EditRequest, minutes: i64) -> SelfEdit {
    db.self_edit("dealbot", p, &r, at(minutes)).await.unwrap()
}

async fn applied_edits_change_the_rows_and_record_before_and_after(db: Db) {
    let (ask, quote, never, theirs, _) = rows(&db).await;
    let p = no_approval();
    let e = edit(&db, &p, req("strengthen", "strategy:", None, "x"), 1).await;
    assert_eq!(e.state, EditState::Refused, "no id: {e:?}");

    let s = edit(&db, &p, req("strengthen", &format!("strategy:{ask}"), None, "it worked twice"), 1).await;
    assert_eq!((s.state, s.row, s.reason.as_str()), (EditState::Applied, Some(ask), "it worked twice"));
    assert_eq!(s.before.as_deref(), Some("Ask first (worth 0)"));
    assert_eq!(s.after.as_deref(), Some("Ask first (worth 1)"));
    assert_eq!((s.applied_at, s.undo_until), (Some(at(1)), Some(at(61))));
    assert_eq!(db.memory_row(ask).await.unwrap().unwrap().worth, 1);

    let r = edit(&db, &p, req("replace", &ask.to_string(), Some("Ask first, always"), "sharper"), 2).await;
    let new = r.new_row.expect("the replacement row");
    let replaced = db.memory_row(ask).await.unwrap().unwrap();
    assert_eq!((replaced.active, replaced.superseded_by), (false, Some(new)));
    assert_eq!(replaced.closed_reason.as_deref(), Some("replaced by dealbot: sharper"));
    let now = db.memory_row(new).await.unwrap().unwrap();
    assert_eq!((now.text.as_str(), now.worth, now.times_seen), ("Ask first, always", 1, 1), "worth carries over");

    let a = edit(&db, &p, req("append", "strategy:anti_pattern", Some("Never promise a date"), "burned"), 3).await;
    let added = db.memory_row(a.new_row.unwrap()).await.unwrap().unwrap();
    assert_eq!((added.kind, added.agent.as_str()), (MemoryKind::AntiPattern, "dealbot"));

    let f = edit(&db, &p, req("forget", &quote.to_string(), None, "prices are in dollars now"), 4).await;
    assert_eq!((f.state, f.before.as_deref(), f.after.as_deref()), (EditState::Applied, Some("Quote in euros"), None));
    let gone = db.memory_row(quote).await.unwrap().unwrap();
    assert_eq!(gone.closed_reason.as_deref(), Some("forgotten by dealbot: prices are in dollars now"));
    assert_eq!(db.memory_rows("dealbot", true).await.unwrap().len(), 5, "nothing is deleted");

    assert_eq!(db.self_profile("dealbot").await.unwrap(), None);
    edit(&db, &p, req("append", "profile", Some("I close deals."), "first"), 5).await;
    let e = edit(&db, &p, req("append", "profile", Some("I quote in dollars."), "second"), 6).await;
    assert_eq!(e.before.as_deref(), Some("I close deals."));
    assert_eq!(db.self_profile("dealbot").await.unwrap().as_deref(), Some("I close deals.\nI quote in dollars."));

    let t = edit(&db, &p, req("weaken", &theirs.to_string(), None, "not mine"), 7).await;
    assert_eq!(t.refusal.as_deref(), Some(format!("dealbot has no active line #{theirs} of its own").as_str()));
    assert_eq!(db.memory_row(theirs).await.unwrap().unwrap().worth, 0);
    let w = edit(&db, &p, req("weaken", &never.to_string(), None, "x"), 8).await;
    assert!(w.refusal.unwrap().contains("name it strategy:"));

    let all = db.self_edits("dealbot", 100).await.unwrap();
    assert_eq!(all.len(), 9, "every request is recorded, refused ones too");
    assert_eq!(all[0].id, w.id, "newest first");
    let counts = db.self_edit_counts("dealbot").await.unwrap();
    let by_state = |s: EditState| all.iter().filter(|e| e.state == s).count() as u32;
    assert_eq!(
        counts,
        [EditState::Applied, EditState::Refused]
            .into_iter()
            .map(|s| (s, by_state(s)))
            .filter(|(_, n)| *n > 0)
            .collect::<Vec<_>>(),
        "counted in one query, as listed"
    );
    assert!(db.self_edit_counts("nobody").await.unwrap().is_empty());
    assert_eq!(db.self_edit_by_id(s.id).await.unwrap().unwrap().change, Some(Change::Worth { row: ask, delta: 1 }));
}

async fn limits_count_this_session_and_today_and_refusals_count_for_nothing(db: Db) {
    let (ask, quote, never, _, _) = rows(&db).await;
    let p = SelfEditPolicy {
        require_approval: vec![],
        max_edits_per_session: 3,
        max_deletes_per_day: 1,
        ..SelfEditPolicy::default()
    };
    edit(&db, &p, req("weaken", "999", None, "refused"), 1).await;
    edit(&db, &p, req("strengthen", &ask.to_string(), None, "one"), 2).await;
    edit(&db, &p, req("forget", &quote.to_string(), None, "two"), 3).await;
    let d = edit(&db, &p, req("forget", &format!("strategy:{never}"), None, "a second delete today"), 4).await;
    assert_eq!(
        d.refusal.as_deref(),
        Some("maxDeletesPerDay is 1, and 1 were made today; the next forget waits until tomorrow (UTC)")
    );
    edit(&db, &p, req("strengthen", &ask.to_string(), None, "three"), 5).await;
    let full = edit(&db, &p, req("strengthen", &ask.to_string(), None, "four"), 6).await;
    assert_eq!(
        full.refusal.as_deref(),
        Some("maxEditsPerSession is 3, and this session has made 3; the next edit waits for the next session")
    );
    // A finished run starts a new session.
    db.insert_episode(&episode("run-1", 7)).await.unwrap();
    let next = edit(&db, &p, req("strengthen", &ask.to_string(), None, "new session"), 8).await;
    assert_eq!(next.state, EditState::Applied);
    // A new day allows another delete.
    let tomorrow = 24 * 60 + 1;
    let d = edit(&db, &p, req("forget", &format!("strategy:{never}"), None, "a day later"), tomorrow).await;
    assert_eq!(d.state, EditState::Applied);
}

async fn a_waiting_edit_is_approved_or_declined_once(db: Db) {
    let (_, quote, never, _, o) = rows(&db).await;
    let p = SelfEditPolicy::default();
    let w = edit(&db, &p, req("forget", &quote.to_string(), None, "wrong currency"), 1).await;
    assert_eq!((w.state, w.approval.as_deref(), w.applied_at), (EditState::Waiting, Some("delete_fact"), None));
    assert!(db.memory_row(quote).await.unwrap().unwrap().active, "nothing changes while it waits");
    let c = edit(&db, &p, req("replace", &format!("strategy:{never}"), Some("Never guess"), "shorter"), 2).await;
    assert_eq!(c.approval.as_deref(), Some("change_decision"));
    let waiting = db.waiting_self_edits(&["dealbot".into(), "nobody".into()]).await.unwrap();
    assert_eq!(waiting.iter().map(|e| e.id).collect::<Vec<_>>(), [w.id, c.id]);
    assert_eq!(db.waiting_self_edits(&["scout".into()]).await.unwrap(), []);

    let Settled::Done(done) = db.decide_self_edit(w.id, true, None, "person:ada", o.by_admin(10)).await.unwrap() else {
        panic!("approved")
    };
    assert_eq!(
        (done.state, done.decided_by.as_deref(), done.applied_at),
        (EditState::Applied, Some("person:ada"), Some(at(10)))
    );
    assert_eq!(done.undo_until, Some(at(70)), "the grace period starts when it is carried out");
    assert!(!db.memory_row(quote).await.unwrap().unwrap().active);
    let again = db.decide_self_edit(w.id, false, None, "person:ada", o.by_admin(11)).await.unwrap();
    assert_eq!(again, Settled::Refused(format!("Self-edit #{} was already decided: it is applied", w.id)));

    // The line changed while the edit waited: approving it would act on what is no longer there.
    db.retire_memory(never, "gone", "person:ada", at(12)).await.unwrap();
    let stale = db.decide_self_edit(c.id, true, None, "person:ada", o.by_admin(13)).await.unwrap();
    assert_eq!(
        stale,
        Settled::Refused(format!(
            "Self-edit #{} cannot be carried out or undone: line #{never} has changed since",
            c.id
        ))
    );
    let Settled::Done(declined) =
        db.decide_self_edit(c.id, false, Some("stale"), "person:ada", o.by_admin(14)).await.unwrap()
    else {
        panic!("declined")
    };
    assert_eq!((declined.state, declined.decided_why.as_deref()), (EditState::Declined, Some("stale")));
    let audit = db.audit_log(3).await.unwrap();
    assert_eq!(audit[0].action, "agent.self_edit.decline");
    assert!(audit[0].detail.contains("shorter"), "{}", audit[0].detail);
    assert_eq!(audit[1].action, "agent.self_edit.approve");
}

async fn undo_takes_each_change_back_within_the_grace_period_only(db: Db) {
    let (ask, quote, never, _, o) = rows(&db).await;
    let p = no_approval();
    let by = |m| actor(Some(o.admin.id), m);
    let s = edit(&db, &p, req("strengthen", &ask.to_string(), None, "r"), 1).await;
    let r = edit(&db, &p, req("replace", &quote.to_string(), Some("Quote in dollars"), "r"), 1).await;
    let f = edit(&db, &p, req("forget", &format!("strategy:{never}"), None, "r"), 1).await;
    let a = edit(&db, &p, req("append", "fact:preference", Some("I like short calls"), "r"), 1).await;
    let pr = edit(&db, &p, req("replace", "profile", Some("I close deals."), "r"), 1).await;
    for e in [&s, &r, &f, &a, &pr] {
        let Settled::Done(u) = db.undo_self_edit(e.id, "person:ada", by(30)).await.unwrap() else {
            panic!("undo {e:?}")
        };
        assert_eq!(
            (u.state, u.undone_by.as_deref(), u.undone_at),
            (EditState::Undone, Some("person:ada"), Some(at(30)))
        );
    }
    assert_eq!(db.memory_row(ask).await.unwrap().unwrap().worth, 0);
    let back = db.memory_row(quote).await.unwrap().unwrap();
    assert_eq!((back.active, back.text.as_str(), back.superseded_by), (true, "Quote in euros", None));
    let replacement = db.memory_row(r.new_row.unwrap()).await.unwrap().unwrap();
    assert!(!replacement.active && replacement.closed_reason.unwrap().starts_with("undone: self-edit #"));
    assert!(db.memory_row(never).await.unwrap().unwrap().active);
    assert!(!db.memory_row(a.new_row.unwrap()).await.unwrap().unwrap().active);
    assert_eq!(db.self_profile("dealbot").await.unwrap(), None);
    let twice = db.undo_self_edit(s.id, "person:ada", by(31)).await.unwrap();
    assert_eq!(
        twice,
        Settled::Refused(format!("Self-edit #{} was not applied (it is undone), so there is nothing to undo", s.id))
    );

    let late = edit(&db, &p, req("strengthen", &ask.to_string(), None, "r"), 40).await;
    let refused = db.undo_self_edit(late.id, "person:ada", by(101)).await.unwrap();
    assert!(matches!(&refused, Settled::Refused(s) if s.contains("grace period ended at")), "{refused:?}");
    assert_eq!(db.memory_row(ask).await.unwrap().unwrap().worth, 1, "a refused undo changes nothing");

    let moved = edit(&db, &p, req("replace", &ask.to_string(), Some("Ask twice"), "r"), 41).await;
    db.retire_memory(moved.new_row.unwrap(), "gone", "person:ada", at(42)).await.unwrap();
    let stale = db.undo_self_edit(moved.id, "person:ada", by(43)).await.unwrap();
    assert!(matches!(&stale, Settled::Refused(s) if s.contains("has changed since")), "{stale:?}");
    assert!(!db.memory_row(ask).await.unwrap().unwrap().active, "the replaced line stays closed");
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "agent.self_edit.undo");
}

async fn knowledge_gaps_are_kept_per_bot_newest_first(db: Db) {
    rows(&db).await;
    let e = db.insert_episode(&episode("self-reflect-after-1", 5)).await.unwrap().id;
    assert_eq!(db.knowledge_gaps("dealbot", 10).await.unwrap(), []);
    db.add_knowledge_gaps("dealbot", e, &["Who owns Pune".into(), "The price list".into()], at(5)).await.unwrap();
    db.add_knowledge_gaps("dealbot", e, &[], at(6)).await.unwrap();
    let gaps = db.knowledge_gaps("dealbot", 10).await.unwrap();
    let got: Vec<_> = gaps.iter().map(|g| (g.text.as_str(), g.episode, g.created_at)).collect();
    assert_eq!(got, [("The price list", e, at(5)), ("Who owns Pune", e, at(5))]);
    assert_eq!(db.knowledge_gaps("dealbot", 1).await.unwrap().len(), 1);
    assert_eq!(db.knowledge_gaps("scout", 10).await.unwrap(), []);
}
