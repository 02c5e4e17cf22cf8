//! ThreadListStore: a person's list of threads in one read, each line saying what the thread's
//! own reads would: its agent, its first message's time, and whether a run is still working.

use crate::backends::{at, on_both, org, Db};
use crate::runs::{answered, run, thread};
use engine::org::PersonId;
use engine::runs::check::CheckState;
use engine::runs::{Author, RunEnd, ThreadLine};

on_both! {
    a_persons_thread_lines_are_newest_first_and_say_what_each_thread_says:
        sqlite_a_persons_thread_lines_are_newest_first_and_say_what_each_thread_says,
        postgres_a_persons_thread_lines_are_newest_first_and_say_what_each_thread_says;
}

async fn a_persons_thread_lines_are_newest_first_and_say_what_each_thread_says(db: Db) {
    let o = org(&db).await;
    assert!(db.thread_lines(o.alice.id, 30).await.unwrap().is_empty());

    // Answered and done; answered and being checked; still running; asked with no run yet.
    let done = thread(&db, &o, "what are our sales stages", 1).await;
    let r = run(&db, &o, done.id, 2).await;
    db.end_run(r.id, &answered("Lead, Qualified, Won"), at(3)).await.unwrap();
    db.add_message(done.id, &Author::Person(o.alice.id), "and after Won?", at(4)).await.unwrap();
    let checking = thread(&db, &o, "who owns Globex", 5).await;
    let r = run(&db, &o, checking.id, 6).await;
    let end = RunEnd { check: Some(CheckState::Checking), ..answered("Dana") };
    db.end_run(r.id, &end, at(7)).await.unwrap();
    let running = thread(&db, &o, "what did Initech buy", 8).await;
    run(&db, &o, running.id, 9).await;
    let unanswered = thread(&db, &o, "hello", 10).await;
    db.create_thread(o.agent.id, Some(o.bob.id), "bob's", &Author::Person(o.bob.id), "bob's", at(11)).await.unwrap();

    let line = |t: &engine::runs::Thread, minutes, working| ThreadLine {
        id: t.id,
        agent: o.agent.id,
        agent_name: Some(o.agent.name.clone()),
        title: t.title.clone(),
        asked_at: Some(at(minutes)),
        working,
    };
    let lines = db.thread_lines(o.alice.id, 30).await.unwrap();
    assert_eq!(
        lines,
        [line(&unanswered, 10, false), line(&running, 8, true), line(&checking, 5, true), line(&done, 1, false)]
    );
    assert_eq!(db.thread_lines(o.alice.id, 2).await.unwrap(), lines[..2], "at most the limit, newest first");
    assert_eq!(db.thread_lines(o.bob.id, 30).await.unwrap().len(), 1, "only the person's own");
    assert!(db.thread_lines(PersonId(o.alice.id.0 + 100), 30).await.unwrap().is_empty());
}
