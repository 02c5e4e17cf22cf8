//! PersonaStore: the bots' backlog, wakeups, episodes, memory rows, the model-call cap and bot
//! tokens.

use crate::backends::{at, on_both, org, Db};
use engine::persona::audn::AudnOp;
use engine::persona::backlog::{Improvement, NewEpisode, NewTask, Outcome, StatusEntry, TaskKind};
use engine::persona::render::MemoryKind;
use engine::store::StoreError;

on_both! {
    a_new_task_is_open_with_its_first_log_entry: sqlite_a_new_task_is_open_with_its_first_log_entry,
        postgres_a_new_task_is_open_with_its_first_log_entry;
    improve_tasks_are_listed_newest_first_per_agent: sqlite_improve_tasks_are_listed_newest_first_per_agent,
        postgres_improve_tasks_are_listed_newest_first_per_agent;
    a_posted_status_moves_the_task_and_is_logged: sqlite_a_posted_status_moves_the_task_and_is_logged,
        postgres_a_posted_status_moves_the_task_and_is_logged;
    wakeups_open_and_are_read_back_by_id: sqlite_wakeups_open_and_are_read_back_by_id,
        postgres_wakeups_open_and_are_read_back_by_id;
    finishing_a_silent_wake_posts_the_fallback_once: sqlite_finishing_a_silent_wake_posts_the_fallback_once,
        postgres_finishing_a_silent_wake_posts_the_fallback_once;
    finishing_keeps_the_status_the_run_posted: sqlite_finishing_keeps_the_status_the_run_posted,
        postgres_finishing_keeps_the_status_the_run_posted;
    finishing_refuses_a_missing_wakeup_and_closes_none: sqlite_finishing_refuses_a_missing_wakeup_and_closes_none,
        postgres_finishing_refuses_a_missing_wakeup_and_closes_none;
    an_episode_is_recorded_once_per_run: sqlite_an_episode_is_recorded_once_per_run,
        postgres_an_episode_is_recorded_once_per_run;
    episodes_are_newest_first_since_a_time: sqlite_episodes_are_newest_first_since_a_time,
        postgres_episodes_are_newest_first_since_a_time;
    mark_corrected_marks_the_latest_episode_on_the_task: sqlite_mark_corrected_marks_the_latest_episode_on_the_task,
        postgres_mark_corrected_marks_the_latest_episode_on_the_task;
    apply_ops_adds_repeats_rewords_and_deletes: sqlite_apply_ops_adds_repeats_rewords_and_deletes,
        postgres_apply_ops_adds_repeats_rewords_and_deletes;
    apply_ops_refuses_a_closed_row_and_changes_nothing: sqlite_apply_ops_refuses_a_closed_row_and_changes_nothing,
        postgres_apply_ops_refuses_a_closed_row_and_changes_nothing;
    edit_memory_supersedes_an_active_row_only: sqlite_edit_memory_supersedes_an_active_row_only,
        postgres_edit_memory_supersedes_an_active_row_only;
    retire_memory_closes_an_active_row_only: sqlite_retire_memory_closes_an_active_row_only,
        postgres_retire_memory_closes_an_active_row_only;
    model_calls_stop_at_the_daily_cap: sqlite_model_calls_stop_at_the_daily_cap,
        postgres_model_calls_stop_at_the_daily_cap;
    racing_model_calls_never_exceed_the_cap: sqlite_racing_model_calls_never_exceed_the_cap,
        postgres_racing_model_calls_never_exceed_the_cap;
    a_proposal_promotes_its_memory_row: sqlite_a_proposal_promotes_its_memory_row,
        postgres_a_proposal_promotes_its_memory_row;
    a_proposal_refuses_a_closed_or_missing_row: sqlite_a_proposal_refuses_a_closed_or_missing_row,
        postgres_a_proposal_refuses_a_closed_or_missing_row;
    settle_task_settles_an_open_task_once: sqlite_settle_task_settles_an_open_task_once,
        postgres_settle_task_settles_an_open_task_once;
    a_bot_token_finds_its_bot: sqlite_a_bot_token_finds_its_bot, postgres_a_bot_token_finds_its_bot;
}

fn work(title: &str, minutes: i64) -> NewTask {
    NewTask {
        kind: TaskKind::Work,
        title: title.into(),
        body: format!("body of {title}"),
        author: "person:alice@acme.test".into(),
        assignee: Some("dealbot".into()),
        owner: None,
        improve: None,
        at: at(minutes),
    }
}

fn improve(agent: &str, title: &str, memory_id: Option<i64>, minutes: i64) -> NewTask {
    NewTask {
        kind: TaskKind::Improve,
        author: format!("agent:{agent}"),
        assignee: None,
        improve: Some(Improvement {
            agent: agent.into(),
            target_path: "SOUL.md".into(),
            diff: "+ Ask before quoting".into(),
            rationale: "seen three times".into(),
            evidence: vec![1, 2],
            base_text: "# Soul\n".into(),
            memory_id,
        }),
        ..work(title, minutes)
    }
}

fn episode(agent: &str, wake: &str, task: Option<i64>, minutes: i64) -> NewEpisode {
    NewEpisode {
        agent: agent.into(),
        wake: wake.into(),
        trigger: "wakeup".into(),
        task,
        outcome: Outcome::Done,
        turns: Some(7),
        cost_usd: Some(0.25),
        duration_s: Some(12.5),
        summary: format!("I finished {wake}"),
        log_path: Some(format!("logs/{wake}.log")),
        transcript_path: None,
        at: at(minutes),
    }
}

fn add(text: &str) -> AudnOp {
    AudnOp::Add { kind: MemoryKind::Lesson, text: text.into() }
}

fn entry(status: &str, note: &str, by: &str, minutes: i64) -> StatusEntry {
    StatusEntry { status: status.into(), note: note.into(), by: by.into(), at: at(minutes) }
}

async fn a_new_task_is_open_with_its_first_log_entry(db: Db) {
    let o = org(&db).await;
    let t = db.create_task(&NewTask { owner: Some(o.alice.id), ..work("Call Globex", 1) }).await.unwrap();
    assert_eq!(t.kind, TaskKind::Work);
    assert_eq!((t.title.as_str(), t.body.as_str()), ("Call Globex", "body of Call Globex"));
    assert_eq!(t.status, "open");
    assert_eq!(t.author, "person:alice@acme.test");
    assert_eq!(t.assignee.as_deref(), Some("dealbot"));
    assert_eq!(t.owner, Some(o.alice.id));
    assert_eq!((t.improve.clone(), t.closed_reason.clone()), (None, None));
    assert_eq!((t.created_at, t.updated_at), (at(1), at(1)));
    assert_eq!(db.task(t.id).await.unwrap(), Some(t.clone()));
    assert_eq!(db.task_log(t.id).await.unwrap(), [entry("open", "", "person:alice@acme.test", 1)]);
    assert_eq!(db.task(9_999).await.unwrap(), None);
    assert_eq!(db.task_log(9_999).await.unwrap(), []);
}

async fn improve_tasks_are_listed_newest_first_per_agent(db: Db) {
    org(&db).await;
    let first = db.create_task(&improve("dealbot", "Ask first", Some(4), 1)).await.unwrap();
    db.create_task(&work("Not an improvement", 2)).await.unwrap();
    let other = db.create_task(&improve("scout", "Scout's", None, 3)).await.unwrap();
    let second = db.create_task(&improve("dealbot", "Quote later", None, 4)).await.unwrap();

    let imp = first.improve.clone().expect("an improve task keeps its proposal");
    assert_eq!(imp.agent, "dealbot");
    assert_eq!(imp.target_path, "SOUL.md");
    assert_eq!(imp.diff, "+ Ask before quoting");
    assert_eq!(imp.rationale, "seen three times");
    assert_eq!(imp.evidence, [1, 2]);
    assert_eq!(imp.base_text, "# Soul\n");
    assert_eq!(imp.memory_id, Some(4));
    assert_eq!(db.improve_tasks(Some("dealbot")).await.unwrap(), [second.clone(), first.clone()]);
    assert_eq!(db.improve_tasks(None).await.unwrap(), [second, other, first]);
    assert_eq!(db.improve_tasks(Some("nobody")).await.unwrap(), []);
}

async fn a_posted_status_moves_the_task_and_is_logged(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    db.post_task_status(t.id, "in_progress", "dialling", "agent:dealbot", at(2)).await.unwrap();
    db.post_task_status(t.id, "done", "booked", "agent:dealbot", at(3)).await.unwrap();
    let now = db.task(t.id).await.unwrap().unwrap();
    assert_eq!((now.status.as_str(), now.updated_at, now.created_at), ("done", at(3), at(1)));
    assert_eq!(
        db.task_log(t.id).await.unwrap(),
        [
            entry("open", "", "person:alice@acme.test", 1),
            entry("in_progress", "dialling", "agent:dealbot", 2),
            entry("done", "booked", "agent:dealbot", 3),
        ]
    );
}

async fn wakeups_open_and_are_read_back_by_id(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let a = db.open_wakeup("dealbot", Some(t.id), "assigned", at(2)).await.unwrap();
    assert_eq!((a.agent.as_str(), a.task, a.reason.as_str()), ("dealbot", Some(t.id), "assigned"));
    assert!(a.open);
    assert_eq!((a.wake.clone(), a.opened_at, a.closed_at), (None, at(2), None));
    let b = db.open_wakeup("scout", None, "timer", at(3)).await.unwrap();
    assert_eq!(db.wakeups(&[b.id, 9_999, a.id]).await.unwrap(), [b, a], "in the order asked, missing ones left out");
    assert_eq!(db.wakeups(&[]).await.unwrap(), []);
}

async fn finishing_a_silent_wake_posts_the_fallback_once(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let a = db.open_wakeup("dealbot", Some(t.id), "assigned", at(2)).await.unwrap();
    let b = db.open_wakeup("dealbot", Some(t.id), "comment", at(3)).await.unwrap();
    let done = db.finish_wakeups(&[a.id, b.id], "run-1", ("blocked", "no report"), at(4)).await.unwrap();
    assert_eq!((done.posted, done.fallback_posted), (None, true));
    let closed: Vec<_> = done.wakeups.iter().map(|w| (w.id, w.open, w.wake.clone(), w.closed_at)).collect();
    let wake = Some("run-1".to_string());
    assert_eq!(closed, [(a.id, false, wake.clone(), Some(at(4))), (b.id, false, wake, Some(at(4)))]);
    assert_eq!(db.wakeups(&[a.id, b.id]).await.unwrap(), done.wakeups);
    assert_eq!(db.task(t.id).await.unwrap().unwrap().status, "blocked");
    assert_eq!(db.task_log(t.id).await.unwrap().last(), Some(&entry("blocked", "no report", "engram", 4)));

    let again = db.finish_wakeups(&[a.id, b.id], "run-2", ("blocked", "no report"), at(5)).await.unwrap();
    assert_eq!(again.wakeups, [], "closed wakeups are not closed again");
    assert!(!again.fallback_posted);
    assert_eq!(db.task_log(t.id).await.unwrap().len(), 2);
    assert_eq!(db.wakeups(&[a.id]).await.unwrap()[0].wake.as_deref(), Some("run-1"));
}

async fn finishing_keeps_the_status_the_run_posted(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    db.post_task_status(t.id, "done", "before this wake", "agent:dealbot", at(2)).await.unwrap();
    let w = db.open_wakeup("dealbot", Some(t.id), "assigned", at(3)).await.unwrap();
    db.post_task_status(t.id, "request_changes", "need a price", "agent:dealbot", at(4)).await.unwrap();
    db.post_task_status(t.id, "note", "not a run status", "person:alice@acme.test", at(5)).await.unwrap();
    let done = db.finish_wakeups(&[w.id], "run-1", ("blocked", "no report"), at(6)).await.unwrap();
    assert_eq!((done.posted.as_deref(), done.fallback_posted), (Some("request_changes"), false));
    assert_eq!(db.task_log(t.id).await.unwrap().len(), 4, "no fallback was posted");

    let t2 = db.create_task(&work("Email Initech", 7)).await.unwrap();
    let w2 = db.open_wakeup("dealbot", Some(t2.id), "assigned", at(8)).await.unwrap();
    db.post_task_status(t2.id, "in_progress", "working", "agent:dealbot", at(9)).await.unwrap();
    let done = db.finish_wakeups(&[w2.id], "run-2", ("blocked", "no report"), at(10)).await.unwrap();
    assert_eq!((done.posted.as_deref(), done.fallback_posted), (Some("in_progress"), true), "in progress is not final");
    assert_eq!(db.task(t2.id).await.unwrap().unwrap().status, "blocked");
}

async fn finishing_refuses_a_missing_wakeup_and_closes_none(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let w = db.open_wakeup("dealbot", Some(t.id), "assigned", at(2)).await.unwrap();
    let refused = db.finish_wakeups(&[w.id, 9_999], "run-1", ("blocked", "no report"), at(3)).await;
    assert!(matches!(refused, Err(StoreError::NotFound(_))), "{refused:?}");
    assert!(db.wakeups(&[w.id]).await.unwrap()[0].open);
    assert_eq!(db.task_log(t.id).await.unwrap().len(), 1);
}

async fn an_episode_is_recorded_once_per_run(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let e = db.insert_episode(&episode("dealbot", "run-1", Some(t.id), 2)).await.unwrap();
    assert_eq!((e.agent.as_str(), e.wake.as_str(), e.trigger.as_str()), ("dealbot", "run-1", "wakeup"));
    assert_eq!((e.task, e.outcome, e.corrected), (Some(t.id), Outcome::Done, false));
    assert_eq!((e.turns, e.cost_usd, e.duration_s), (Some(7), Some(0.25), Some(12.5)));
    assert_eq!(e.summary, "I finished run-1");
    assert_eq!((e.log_path.as_deref(), e.transcript_path.clone()), (Some("logs/run-1.log"), None));
    assert_eq!(e.created_at, at(2));
    assert_eq!(db.episode_by_wake("dealbot", "run-1").await.unwrap(), Some(e.clone()));

    let again = db.insert_episode(&episode("dealbot", "run-1", None, 3)).await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    let bare = NewEpisode {
        turns: None,
        cost_usd: None,
        duration_s: None,
        log_path: None,
        ..episode("scout", "run-1", None, 4)
    };
    let other = db.insert_episode(&NewEpisode { outcome: Outcome::NoReport, ..bare }).await.unwrap();
    assert_eq!((other.outcome, other.turns, other.cost_usd, other.task), (Outcome::NoReport, None, None, None));
    assert_eq!(db.episode_by_wake("dealbot", "run-1").await.unwrap(), Some(e), "the first one stands");
    assert_eq!(db.episode_by_wake("dealbot", "run-9").await.unwrap(), None);
}

async fn episodes_are_newest_first_since_a_time(db: Db) {
    org(&db).await;
    let a = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap();
    let b = db.insert_episode(&episode("dealbot", "run-2", None, 5)).await.unwrap();
    let c = db.insert_episode(&episode("dealbot", "run-3", None, 3)).await.unwrap();
    db.insert_episode(&episode("scout", "run-4", None, 4)).await.unwrap();
    assert_eq!(db.episodes("dealbot", None).await.unwrap(), [b.clone(), c.clone(), a]);
    assert_eq!(db.episodes("dealbot", Some(at(3))).await.unwrap(), [b, c], "since is inclusive");
    assert_eq!(db.episodes("nobody", None).await.unwrap(), []);
}

async fn mark_corrected_marks_the_latest_episode_on_the_task(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let old = db.insert_episode(&episode("dealbot", "run-1", Some(t.id), 2)).await.unwrap();
    let latest = db.insert_episode(&episode("dealbot", "run-2", Some(t.id), 3)).await.unwrap();
    db.insert_episode(&episode("scout", "run-3", Some(t.id), 4)).await.unwrap();
    let marked = db.mark_corrected(t.id, "dealbot").await.unwrap().expect("an episode to mark");
    assert_eq!((marked.id, marked.corrected), (latest.id, true));
    assert!(!db.episode_by_wake("dealbot", "run-1").await.unwrap().unwrap().corrected, "{old:?} stays");
    assert!(!db.episode_by_wake("scout", "run-3").await.unwrap().unwrap().corrected);
    assert_eq!(db.mark_corrected(t.id, "nobody").await.unwrap(), None);
    assert_eq!(db.mark_corrected(9_999, "dealbot").await.unwrap(), None);
}

async fn apply_ops_adds_repeats_rewords_and_deletes(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let e2 = db.insert_episode(&episode("dealbot", "run-2", None, 2)).await.unwrap().id;
    let ops = [add("Ask first"), add("Quote in euros"), add("Gone soon")];
    let first = db.apply_ops("dealbot", e1, &ops, at(1)).await.unwrap();
    let [ask, quote, gone] = first.added[..] else { panic!("three rows added: {first:?}") };
    let row = db.memory_row(ask).await.unwrap().unwrap();
    assert_eq!((row.agent.as_str(), row.kind, row.text.as_str()), ("dealbot", MemoryKind::Lesson, "Ask first"));
    assert_eq!((row.times_seen, row.first_seen, row.last_seen, row.active), (1, at(1), at(1), true));
    assert_eq!((row.evidence.clone(), row.promoted_to_proposal, row.proposal_task_id), (vec![e1], false, None));

    let ops = [
        AudnOp::Repeat { id: ask },
        AudnOp::Reword { id: quote, text: "Quote in euros, net".into() },
        AudnOp::Delete { id: gone, reason: "no longer true".into() },
    ];
    let second = db.apply_ops("dealbot", e2, &ops, at(2)).await.unwrap();
    assert_eq!(
        (second.added.clone(), second.repeated.clone(), second.deleted.clone()),
        (vec![], vec![ask], vec![gone])
    );
    let [(old, new)] = second.reworded[..] else { panic!("one row reworded: {second:?}") };
    assert_eq!(old, quote);

    let bumped = db.memory_row(ask).await.unwrap().unwrap();
    assert_eq!((bumped.times_seen, bumped.first_seen, bumped.last_seen), (2, at(1), at(2)));
    assert_eq!(bumped.evidence, [e1, e2]);
    let reworded = db.memory_row(new).await.unwrap().unwrap();
    assert_eq!((reworded.text.as_str(), reworded.times_seen, reworded.first_seen), ("Quote in euros, net", 2, at(1)));
    assert_eq!((reworded.evidence.clone(), reworded.active), (vec![e1, e2], true));
    let superseded = db.memory_row(quote).await.unwrap().unwrap();
    assert!(!superseded.active);
    assert_eq!((superseded.superseded_by, superseded.closed_at), (Some(new), Some(at(2))));
    assert_eq!(superseded.closed_by, Some(format!("reflect:episode:{e2}")));
    let deleted = db.memory_row(gone).await.unwrap().unwrap();
    assert_eq!((deleted.active, deleted.closed_reason.as_deref()), (false, Some("retired: no longer true")));

    let active: Vec<_> = db.memory_rows("dealbot", false).await.unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(active, [ask, new]);
    let all: Vec<_> = db.memory_rows("dealbot", true).await.unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(all, [ask, quote, gone, new]);
    assert_eq!(db.memory_rows("scout", true).await.unwrap(), []);
    assert_eq!(db.memory_row(9_999).await.unwrap(), None);
}

async fn apply_ops_refuses_a_closed_row_and_changes_nothing(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let e2 = db.insert_episode(&episode("dealbot", "run-2", None, 2)).await.unwrap().id;
    let added = db.apply_ops("dealbot", e1, &[add("Ask first"), add("Closed soon")], at(1)).await.unwrap().added;
    db.retire_memory(added[1], "wrong", "person:ada@acme.test", at(2)).await.unwrap();
    let scout_episode = db.insert_episode(&episode("scout", "run-3", None, 2)).await.unwrap().id;
    let theirs = db.apply_ops("scout", scout_episode, &[add("Scout's own")], at(2)).await.unwrap().added[0];
    let before = db.memory_rows("dealbot", true).await.unwrap();

    for bad in [AudnOp::Repeat { id: added[1] }, AudnOp::Reword { id: theirs, text: "mine now".into() }] {
        let ops = [add("New claim"), AudnOp::Repeat { id: added[0] }, bad.clone()];
        let refused = db.apply_ops("dealbot", e2, &ops, at(3)).await;
        assert!(matches!(refused, Err(StoreError::Changed { .. })), "{bad:?}: {refused:?}");
    }
    assert_eq!(db.memory_rows("dealbot", true).await.unwrap(), before, "the whole set was refused");
    assert_eq!(db.memory_row(theirs).await.unwrap().unwrap().text, "Scout's own");
}

async fn edit_memory_supersedes_an_active_row_only(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let id = db.apply_ops("dealbot", e1, &[add("Quote in dollars")], at(1)).await.unwrap().added[0];
    let new = db.edit_memory(id, "Quote in euros", "person:ada@acme.test", at(2)).await.unwrap();
    assert_ne!(new.id, id);
    assert_eq!((new.text.as_str(), new.times_seen, new.first_seen, new.last_seen), ("Quote in euros", 1, at(1), at(1)));
    assert_eq!((new.active, new.evidence.clone()), (true, vec![e1]));
    let old = db.memory_row(id).await.unwrap().unwrap();
    assert_eq!((old.active, old.superseded_by), (false, Some(new.id)));
    assert_eq!(old.closed_reason.as_deref(), Some("corrected by person:ada@acme.test"));
    assert_eq!(old.closed_by.as_deref(), Some("person:ada@acme.test"));

    let stale = db.edit_memory(id, "Quote in yen", "person:ada@acme.test", at(3)).await;
    assert!(matches!(stale, Err(StoreError::Changed { .. })), "{stale:?}");
    let missing = db.edit_memory(9_999, "x", "person:ada@acme.test", at(3)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    assert_eq!(db.memory_rows("dealbot", true).await.unwrap().len(), 2);
}

async fn retire_memory_closes_an_active_row_only(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let id = db.apply_ops("dealbot", e1, &[add("Quote in dollars")], at(1)).await.unwrap().added[0];
    db.retire_memory(id, "policy changed", "person:ada@acme.test", at(2)).await.unwrap();
    let row = db.memory_row(id).await.unwrap().unwrap();
    assert_eq!((row.active, row.closed_at, row.superseded_by), (false, Some(at(2)), None));
    assert_eq!(row.closed_reason.as_deref(), Some("retired: policy changed"));
    let twice = db.retire_memory(id, "again", "person:ada@acme.test", at(3)).await;
    assert!(matches!(twice, Err(StoreError::Changed { .. })), "{twice:?}");
    assert_eq!(db.memory_row(id).await.unwrap().unwrap().closed_at, Some(at(2)));
    let missing = db.retire_memory(9_999, "x", "person:ada@acme.test", at(3)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

async fn model_calls_stop_at_the_daily_cap(db: Db) {
    let (yesterday, today) = (at(-24 * 60), at(0));
    assert!(db.claim_model_call("dealbot", "reflect", yesterday, 3, at(-60)).await.unwrap());
    for (i, agent) in ["dealbot", "scout", "dealbot"].iter().enumerate() {
        assert!(db.claim_model_call(agent, "reflect", today, 3, at(i as i64)).await.unwrap(), "call {i}");
    }
    assert!(!db.claim_model_call("scout", "distil", today, 3, at(5)).await.unwrap(), "the cap is shared by every bot");
    assert_eq!(db.model_calls_since(today).await.unwrap(), 3, "a refused call is not recorded");
    assert_eq!(db.model_calls_since(yesterday).await.unwrap(), 4);
    assert!(db.claim_model_call("scout", "distil", today, 4, at(6)).await.unwrap(), "a higher cap has room");
}

async fn racing_model_calls_never_exceed_the_cap(db: Db) {
    let claims: Vec<_> = (0..24)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(
                async move { db.claim_model_call(&format!("bot-{}", i % 3), "reflect", at(0), 5, at(1)).await },
            )
        })
        .collect();
    let mut granted = 0;
    for c in claims {
        granted += u32::from(c.await.unwrap().unwrap());
    }
    assert_eq!(granted, 5);
    assert_eq!(db.model_calls_since(at(0)).await.unwrap(), 5);
}

async fn a_proposal_promotes_its_memory_row(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let e2 = db.insert_episode(&episode("dealbot", "run-2", None, 2)).await.unwrap().id;
    let id = db.apply_ops("dealbot", e1, &[add("Ask first")], at(1)).await.unwrap().added[0];
    let task = db.file_proposal(&improve("dealbot", "Ask before quoting", Some(id), 2), id).await.unwrap();
    assert_eq!((task.kind, task.status.as_str()), (TaskKind::Improve, "open"));
    assert_eq!(task.improve.as_ref().unwrap().memory_id, Some(id));
    let row = db.memory_row(id).await.unwrap().unwrap();
    assert_eq!((row.promoted_to_proposal, row.proposal_task_id), (true, Some(task.id)));
    assert_eq!(db.improve_tasks(Some("dealbot")).await.unwrap(), std::slice::from_ref(&task));

    let reword = [AudnOp::Reword { id, text: "Ask, then quote".into() }];
    let (_, new) = db.apply_ops("dealbot", e2, &reword, at(3)).await.unwrap().reworded[0];
    let new = db.memory_row(new).await.unwrap().unwrap();
    assert_eq!((new.promoted_to_proposal, new.proposal_task_id), (true, Some(task.id)), "the proposal carries over");
}

async fn a_proposal_refuses_a_closed_or_missing_row(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let id = db.apply_ops("dealbot", e1, &[add("Ask first")], at(1)).await.unwrap().added[0];
    db.retire_memory(id, "wrong", "person:ada@acme.test", at(2)).await.unwrap();
    let closed = db.file_proposal(&improve("dealbot", "Ask", Some(id), 3), id).await;
    assert!(matches!(closed, Err(StoreError::Changed { .. })), "{closed:?}");
    let missing = db.file_proposal(&improve("dealbot", "Ask", Some(9_999), 3), 9_999).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    assert_eq!(db.improve_tasks(None).await.unwrap(), [], "no task was filed");
    assert!(!db.memory_row(id).await.unwrap().unwrap().promoted_to_proposal);
}

async fn settle_task_settles_an_open_task_once(db: Db) {
    let o = org(&db).await;
    let t = db.create_task(&improve("dealbot", "Ask first", None, 1)).await.unwrap();
    db.settle_task(t.id, "applied", Some("looks right"), o.admin.id, at(2)).await.unwrap();
    let settled = db.task(t.id).await.unwrap().unwrap();
    assert_eq!((settled.status.as_str(), settled.updated_at), ("applied", at(2)));
    assert_eq!(settled.closed_reason.as_deref(), Some("looks right"));
    let by = format!("person:{}", o.admin.id);
    assert_eq!(db.task_log(t.id).await.unwrap().last(), Some(&entry("applied", "looks right", &by, 2)));
    let audit = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((audit.action.as_str(), audit.subject.clone()), ("improve.applied", format!("task:{}", t.id)));
    assert_eq!((audit.detail.as_str(), audit.actor, audit.at), ("looks right", Some(o.admin.id), at(2)));

    let twice = db.settle_task(t.id, "closed", None, o.admin.id, at(3)).await;
    assert!(matches!(twice, Err(StoreError::Changed { .. })), "{twice:?}");
    assert_eq!(db.task(t.id).await.unwrap().unwrap().status, "applied");
    assert_eq!(db.task_log(t.id).await.unwrap().len(), 2);

    let other = db.create_task(&improve("dealbot", "Quote later", None, 4)).await.unwrap();
    db.settle_task(other.id, "closed", None, o.admin.id, at(5)).await.unwrap();
    let closed = db.task(other.id).await.unwrap().unwrap();
    assert_eq!((closed.status.as_str(), closed.closed_reason), ("closed", None));
    let missing = db.settle_task(9_999, "closed", None, o.admin.id, at(6)).await;
    assert!(matches!(missing, Err(StoreError::Changed { .. })), "{missing:?}");
}

async fn a_bot_token_finds_its_bot(db: Db) {
    let o = org(&db).await;
    let until = at(1) + chrono::Duration::days(90);
    let id = db.create_agent_token("dealbot", o.alice.id, "runner", "bot-secret", at(1), until).await.unwrap();
    let other = db.create_agent_token("scout", o.alice.id, "runner", "scout-secret", at(2), until).await.unwrap();
    assert_ne!(id, other);
    let found = db.agent_token("bot-secret").await.unwrap().expect("the token");
    assert_eq!((found.id, found.agent.as_str(), found.expires_at), (id, "dealbot", until));
    assert_eq!(db.agent_token("scout-secret").await.unwrap().map(|t| t.agent).as_deref(), Some("scout"));
    assert_eq!(db.agent_token("no-such-secret").await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.subject.as_str(), entry.detail.as_str()),
        ("agent_token.create", "agent:scout", format!("token:{other} runner until {}", until.to_rfc3339()).as_str())
    );
    assert_eq!((entry.actor, entry.at), (Some(o.alice.id), at(2)));
    let clash = db.create_agent_token("dealbot", o.bob.id, "copy", "bot-secret", at(4), until).await;
    assert!(clash.is_err(), "a secret is held by one token only: {clash:?}");
}

// Races on one bot's memory and one run's wakeups; the cases above are one writer at a time.
on_both! {
    racing_reflections_of_one_claim_keep_one_row: sqlite_racing_reflections_of_one_claim_keep_one_row,
        postgres_racing_reflections_of_one_claim_keep_one_row;
    racing_corrections_of_one_row_let_one_through: sqlite_racing_corrections_of_one_row_let_one_through,
        postgres_racing_corrections_of_one_row_let_one_through;
    racing_finishers_of_one_run_post_one_fallback: sqlite_racing_finishers_of_one_run_post_one_fallback,
        postgres_racing_finishers_of_one_run_post_one_fallback;
}

/// Each reflection must see the rows the others added, so the same claim is one row seen by all.
async fn racing_reflections_of_one_claim_keep_one_row(db: Db) {
    org(&db).await;
    let mut episodes = Vec::new();
    for i in 0..8 {
        episodes.push(db.insert_episode(&episode("dealbot", &format!("run-{i}"), None, i)).await.unwrap().id);
    }
    // A few rounds, each with a claim of its own, so the race is run more than once.
    for round in 0..4 {
        let claim = format!("Ask first ({round})");
        let reflections: Vec<_> = episodes
            .iter()
            .map(|&e| {
                let (db, claim) = (db.clone(), claim.clone());
                tokio::spawn(async move { db.apply_ops("dealbot", e, &[add(&claim)], at(10)).await })
            })
            .collect();
        for r in reflections {
            r.await.unwrap().unwrap();
        }
    }
    let rows = db.memory_rows("dealbot", true).await.unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in rows {
        assert_eq!((row.times_seen, row.evidence), (8, episodes.clone()));
    }
}

async fn racing_corrections_of_one_row_let_one_through(db: Db) {
    org(&db).await;
    let e1 = db.insert_episode(&episode("dealbot", "run-1", None, 1)).await.unwrap().id;
    let e2 = db.insert_episode(&episode("dealbot", "run-2", None, 2)).await.unwrap().id;
    let id = db.apply_ops("dealbot", e1, &[add("Ask first")], at(1)).await.unwrap().added[0];
    let mut writers: Vec<_> = (0..6)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                db.edit_memory(id, &format!("Ask first, {i}"), "person:ada@acme.test", at(3)).await.map(|_| ())
            })
        })
        .collect();
    let reword = [AudnOp::Reword { id, text: "Ask, then quote".into() }];
    let db2 = db.clone();
    writers.push(tokio::spawn(async move { db2.apply_ops("dealbot", e2, &reword, at(3)).await.map(|_| ()) }));
    let db3 = db.clone();
    writers.push(tokio::spawn(async move { db3.retire_memory(id, "wrong", "person:ada@acme.test", at(3)).await }));
    let mut through = 0;
    for w in writers {
        match w.await.unwrap() {
            Ok(()) => through += 1,
            Err(StoreError::Changed { .. }) => {}
            Err(other) => panic!("a loser is refused with Changed, not {other:?}"),
        }
    }
    assert_eq!(through, 1);
    let rows = db.memory_rows("dealbot", true).await.unwrap();
    assert!(!rows.iter().find(|r| r.id == id).unwrap().active);
    assert!(rows.len() <= 2, "one successor at most: {rows:?}");
}

async fn racing_finishers_of_one_run_post_one_fallback(db: Db) {
    org(&db).await;
    let t = db.create_task(&work("Call Globex", 1)).await.unwrap();
    let a = db.open_wakeup("dealbot", Some(t.id), "assigned", at(2)).await.unwrap().id;
    let b = db.open_wakeup("dealbot", Some(t.id), "comment", at(2)).await.unwrap().id;
    let finishers: Vec<_> = (0..8)
        .map(|i| {
            let db = db.clone();
            // Half name the wakeups the other way round: no order of asking may deadlock.
            let ids = if i % 2 == 0 { vec![a, b] } else { vec![b, a] };
            tokio::spawn(
                async move { db.finish_wakeups(&ids, &format!("run-{i}"), ("blocked", "no report"), at(3)).await },
            )
        })
        .collect();
    let (mut closers, mut fallbacks) = (0, 0);
    for f in finishers {
        let done = f.await.unwrap().unwrap();
        closers += u32::from(!done.wakeups.is_empty());
        fallbacks += u32::from(done.fallback_posted);
    }
    assert_eq!((closers, fallbacks), (1, 1));
    let log = db.task_log(t.id).await.unwrap();
    assert_eq!(log.iter().filter(|e| e.status == "blocked").count(), 1, "{log:?}");
}
