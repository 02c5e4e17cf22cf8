//! RunStore: threads and their messages, runs with their numbered steps, how a run ends or is
//! retried, and the events clients follow.

use crate::backends::{at, on_both, org, Db, Org};
use engine::cards::access::DataLabel;
use engine::org::PersonId;
use engine::runs::{
    Author, CoreRef, CoreRefScope, MemoryRef, NewEvent, NewRun, NewStep, Run, RunEnd, RunKind, RunState, StepKind,
    Thread, ThreadId,
};
use engine::store::StoreError;

on_both! {
    a_thread_keeps_its_messages_in_order: sqlite_a_thread_keeps_its_messages_in_order,
        postgres_a_thread_keeps_its_messages_in_order;
    a_persons_threads_are_newest_first_and_limited: sqlite_a_persons_threads_are_newest_first_and_limited,
        postgres_a_persons_threads_are_newest_first_and_limited;
    a_run_reads_back_with_its_steps_in_order: sqlite_a_run_reads_back_with_its_steps_in_order,
        postgres_a_run_reads_back_with_its_steps_in_order;
    a_run_is_refused_a_message_of_another_thread: sqlite_a_run_is_refused_a_message_of_another_thread,
        postgres_a_run_is_refused_a_message_of_another_thread;
    concurrent_steps_are_numbered_once_each: sqlite_concurrent_steps_are_numbered_once_each,
        postgres_concurrent_steps_are_numbered_once_each;
    an_answered_run_ends_once_and_adds_the_agents_message:
        sqlite_an_answered_run_ends_once_and_adds_the_agents_message,
        postgres_an_answered_run_ends_once_and_adds_the_agents_message;
    a_failed_run_adds_no_message: sqlite_a_failed_run_adds_no_message, postgres_a_failed_run_adds_no_message;
    concurrent_ends_let_one_through: sqlite_concurrent_ends_let_one_through, postgres_concurrent_ends_let_one_through;
    only_a_finished_run_is_closed_as_retried: sqlite_only_a_finished_run_is_closed_as_retried,
        postgres_only_a_finished_run_is_closed_as_retried;
    stale_runs_are_the_running_ones_started_before: sqlite_stale_runs_are_the_running_ones_started_before,
        postgres_stale_runs_are_the_running_ones_started_before;
    events_follow_in_order_from_a_cursor_with_a_limit: sqlite_events_follow_in_order_from_a_cursor_with_a_limit,
        postgres_events_follow_in_order_from_a_cursor_with_a_limit;
}

/// Alice's thread with the agent, her first question in it.
pub async fn thread(db: &Db, o: &Org, question: &str, minutes: i64) -> Thread {
    let (thread, _) = db
        .create_thread(o.agent.id, Some(o.alice.id), question, &Author::Person(o.alice.id), question, at(minutes))
        .await
        .unwrap();
    thread
}

/// A run of the agent for Alice on the thread's first message.
pub async fn run(db: &Db, o: &Org, thread: ThreadId, minutes: i64) -> Run {
    let first = db.messages(thread).await.unwrap().remove(0);
    let new = NewRun {
        thread,
        message: first.id,
        agent: o.agent.id,
        for_person: Some(o.alice.id),
        kind: RunKind::Ask,
        unwatched: false,
        retry_of: None,
    };
    db.create_run(&new, at(minutes)).await.unwrap()
}

pub fn memory_step() -> NewStep {
    NewStep {
        kind: StepKind::MemoryUsed,
        line: "Read from memory: 1 core and who's who".into(),
        words: vec!["Sales company core, version 1".into(), engine::runs::whoswho::SLICE_WORDS.into()],
        refs: vec![
            MemoryRef::Core(CoreRef { scope: CoreRefScope::Company("role:sales".into()), version: 1 }),
            MemoryRef::Slice,
            MemoryRef::Card("card:7".into()),
        ],
        detail: None,
    }
}

fn tool_step(n: u32) -> NewStep {
    NewStep {
        kind: StepKind::ToolCall,
        line: format!("Read lead L-{n} from Acme ATS"),
        words: vec![],
        refs: vec![],
        detail: Some(serde_json::json!({"tool": "get_lead", "arguments": {"id": format!("L-{n}")}})),
    }
}

pub fn answered(answer: &str) -> RunEnd {
    RunEnd {
        state: RunState::Answered,
        answer: Some(answer.into()),
        failure: None,
        model: Some("demo/scripted".into()),
        data_label: DataLabel::Internal,
        sources: vec!["directory".into(), "Acme ATS".into()],
        review_mode: true,
        check: Some(engine::runs::check::CheckState::NotNeeded),
        checked_only: false,
    }
}

pub fn failed() -> RunEnd {
    RunEnd {
        state: RunState::Failed,
        answer: None,
        failure: Some("The model did not answer: it timed out".into()),
        model: None,
        data_label: DataLabel::Public,
        sources: vec![],
        review_mode: false,
        check: None,
        checked_only: false,
    }
}

async fn a_thread_keeps_its_messages_in_order(db: Db) {
    let o = org(&db).await;
    let (t, first) = db
        .create_thread(
            o.agent.id,
            Some(o.alice.id),
            "what are our",
            &Author::Person(o.alice.id),
            "what are our sales stages",
            at(1),
        )
        .await
        .unwrap();
    assert_eq!(
        (t.agent, t.person, t.title.as_str(), t.created_at),
        (o.agent.id, Some(o.alice.id), "what are our", at(1))
    );
    assert_eq!(
        (first.thread, first.author, first.text.as_str()),
        (t.id, Author::Person(o.alice.id), "what are our sales stages")
    );
    let reply = db.add_message(t.id, &Author::Agent(o.agent.id), "New, Won", at(2)).await.unwrap();
    let again = db.add_message(t.id, &Author::Person(o.alice.id), "and after Won?", at(3)).await.unwrap();
    assert_eq!(db.messages(t.id).await.unwrap(), [first.clone(), reply.clone(), again]);
    assert_eq!(db.thread(t.id).await.unwrap(), Some(t.clone()));
    assert_eq!(db.message(reply.id).await.unwrap(), Some(reply));
    assert_eq!(db.thread(ThreadId(t.id.0 + 100)).await.unwrap(), None);
    let missing = db.add_message(ThreadId(t.id.0 + 100), &Author::Person(o.alice.id), "hello?", at(4)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    // A thread for nobody (a schedule) has no person.
    let (nobody, _) =
        db.create_thread(o.agent.id, None, "daily", &Author::Agent(o.agent.id), "daily", at(5)).await.unwrap();
    assert_eq!(db.thread(nobody.id).await.unwrap().unwrap().person, None);
}

async fn a_persons_threads_are_newest_first_and_limited(db: Db) {
    let o = org(&db).await;
    let mut made = Vec::new();
    for i in 0..4 {
        made.push(thread(&db, &o, &format!("question {i}"), i).await);
    }
    db.create_thread(o.agent.id, Some(o.bob.id), "bob's", &Author::Person(o.bob.id), "bob's", at(9)).await.unwrap();
    let mine = db.threads_for(o.alice.id, 3).await.unwrap();
    let titles: Vec<_> = mine.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["question 3", "question 2", "question 1"]);
    assert_eq!(mine[0], made[3]);
    assert!(db.threads_for(PersonId(o.alice.id.0 + 100), 10).await.unwrap().is_empty());
}

async fn a_run_reads_back_with_its_steps_in_order(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "what are our sales stages", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    assert_eq!(
        (r.state, r.kind, r.for_person, r.agent),
        (RunState::Running, RunKind::Ask, Some(o.alice.id), o.agent.id)
    );
    assert_eq!((r.data_label, r.sources.len(), r.review_mode, r.unwatched), (DataLabel::Public, 0, false, false));
    assert_eq!(
        (r.answer.as_deref(), r.failure.as_deref(), r.model.as_deref(), r.finished_at),
        (None, None, None, None)
    );
    assert!(r.steps.is_empty());
    let memory = db.add_step(r.id, &memory_step(), at(3)).await.unwrap();
    let tool = db.add_step(r.id, &tool_step(1001), at(4)).await.unwrap();
    assert_eq!((memory.n, tool.n), (1, 2));
    assert_eq!(memory.refs, memory_step().refs, "the refs read back as written");
    assert_eq!(tool.detail, tool_step(1001).detail);
    let read = db.run(r.id).await.unwrap().unwrap();
    assert_eq!(read.steps, [memory, tool]);
    assert_eq!(Run { steps: vec![], ..read.clone() }, r);

    let unwatched =
        NewRun { unwatched: true, kind: RunKind::Schedule, for_person: None, retry_of: Some(r.id), ..new_run(&r) };
    let second = db.create_run(&unwatched, at(5)).await.unwrap();
    assert_eq!(
        (second.unwatched, second.kind, second.for_person, second.retry_of),
        (true, RunKind::Schedule, None, Some(r.id))
    );
    let all = db.runs_of_thread(t.id).await.unwrap();
    assert_eq!(all, [read, second.clone()], "oldest first, each with its own steps");
    assert!(db.run(engine::runs::RunId(second.id.0 + 100)).await.unwrap().is_none());
    let missing = db.add_step(engine::runs::RunId(second.id.0 + 100), &tool_step(1), at(6)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

pub fn new_run(r: &Run) -> NewRun {
    NewRun {
        thread: r.thread,
        message: r.message,
        agent: r.agent,
        for_person: r.for_person,
        kind: r.kind,
        unwatched: r.unwatched,
        retry_of: r.retry_of,
    }
}

async fn a_run_is_refused_a_message_of_another_thread(db: Db) {
    let o = org(&db).await;
    let one = thread(&db, &o, "one", 1).await;
    let two = thread(&db, &o, "two", 2).await;
    let r = run(&db, &o, one.id, 3).await;
    let crossed = db.create_run(&NewRun { thread: two.id, ..new_run(&r) }, at(4)).await;
    assert!(matches!(crossed, Err(StoreError::NotFound(_))), "{crossed:?}");
    assert_eq!(db.runs_of_thread(two.id).await.unwrap(), []);
}

async fn concurrent_steps_are_numbered_once_each(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    let adds: Vec<_> = (0..12)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move { db.add_step(r.id, &tool_step(i), at(3)).await })
        })
        .collect();
    let mut numbers = Vec::new();
    for add in adds {
        numbers.push(add.await.unwrap().unwrap().n);
    }
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<u32>>());
    let steps = db.run(r.id).await.unwrap().unwrap().steps;
    assert_eq!(steps.iter().map(|s| s.n).collect::<Vec<_>>(), (1..=12).collect::<Vec<u32>>());
}

async fn an_answered_run_ends_once_and_adds_the_agents_message(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "what are our sales stages", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    db.add_step(r.id, &memory_step(), at(3)).await.unwrap();
    let ended = db.end_run(r.id, &answered("New, Qualified, Won."), at(4)).await.unwrap();
    assert_eq!(
        (ended.state, ended.answer.as_deref(), ended.finished_at),
        (RunState::Answered, Some("New, Qualified, Won."), Some(at(4)))
    );
    assert_eq!(
        (ended.data_label, ended.review_mode, ended.model.as_deref()),
        (DataLabel::Internal, true, Some("demo/scripted"))
    );
    assert_eq!(ended.sources, ["directory", "Acme ATS"]);
    assert_eq!(ended.steps.len(), 1, "the ended run comes back with its steps");
    assert_eq!(db.run(r.id).await.unwrap().unwrap(), ended);
    let messages = db.messages(t.id).await.unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        (messages[1].author, messages[1].text.as_str(), messages[1].at),
        (Author::Agent(o.agent.id), "New, Qualified, Won.", at(4))
    );
    assert_eq!((messages[0].answer_of, messages[1].answer_of), (None, Some(r.id)), "the answer names its run");

    let again = db.end_run(r.id, &answered("something else"), at(5)).await;
    assert_eq!(again, Err(StoreError::Changed { current: 0 }), "a run ends once");
    assert_eq!(db.messages(t.id).await.unwrap().len(), 2, "the refused end adds no message");
    assert_eq!(db.run(r.id).await.unwrap().unwrap(), ended);
    let missing = db.end_run(engine::runs::RunId(r.id.0 + 100), &failed(), at(6)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

async fn a_failed_run_adds_no_message(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    let ended = db.end_run(r.id, &failed(), at(3)).await.unwrap();
    assert_eq!(
        (ended.state, ended.failure.as_deref()),
        (RunState::Failed, Some("The model did not answer: it timed out"))
    );
    assert_eq!(db.messages(t.id).await.unwrap().len(), 1, "only the question");
    assert_eq!(db.end_run(r.id, &answered("late"), at(4)).await, Err(StoreError::Changed { current: 0 }));
}

async fn concurrent_ends_let_one_through(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    let ends: Vec<_> = (0..4)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move { db.end_run(r.id, &answered(&format!("answer {i}")), at(3)).await })
        })
        .collect();
    let mut ok = 0;
    for end in ends {
        match end.await.unwrap() {
            Ok(_) => ok += 1,
            Err(e) => assert_eq!(e, StoreError::Changed { current: 0 }),
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(db.messages(t.id).await.unwrap().len(), 2, "one answer in the thread");
}

async fn only_a_finished_run_is_closed_as_retried(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let first = run(&db, &o, t.id, 2).await;
    let retry = db.create_run(&NewRun { retry_of: Some(first.id), ..new_run(&first) }, at(3)).await.unwrap();
    assert_eq!(
        db.close_retried(first.id, retry.id, at(3)).await,
        Err(StoreError::Changed { current: 0 }),
        "still running"
    );
    db.end_run(first.id, &failed(), at(4)).await.unwrap();
    db.close_retried(first.id, retry.id, at(5)).await.unwrap();
    let closed = db.run(first.id).await.unwrap().unwrap();
    assert_eq!(closed.state, RunState::Retried);
    assert_eq!(closed.failure.as_deref(), Some("The model did not answer: it timed out"), "kept as it ended");
    assert_eq!(db.close_retried(first.id, retry.id, at(6)).await, Err(StoreError::Changed { current: 0 }));
    db.end_run(retry.id, &answered("done"), at(7)).await.unwrap();
    let third = db.create_run(&NewRun { retry_of: Some(retry.id), ..new_run(&first) }, at(8)).await.unwrap();
    db.close_retried(retry.id, third.id, at(9)).await.unwrap();
    let states: Vec<_> = db.runs_of_thread(t.id).await.unwrap().iter().map(|r| r.state).collect();
    assert_eq!(states, [RunState::Retried, RunState::Retried, RunState::Running], "kept, never deleted");
    let missing = db.close_retried(engine::runs::RunId(third.id.0 + 100), third.id, at(10)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
}

async fn stale_runs_are_the_running_ones_started_before(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let old = run(&db, &o, t.id, 2).await;
    let ended = run(&db, &o, t.id, 3).await;
    db.end_run(ended.id, &failed(), at(4)).await.unwrap();
    let recent = run(&db, &o, t.id, 20).await;
    assert_eq!(db.stale_runs(at(10)).await.unwrap(), [old.id]);
    assert_eq!(db.stale_runs(at(30)).await.unwrap(), [old.id, recent.id]);
    assert_eq!(db.stale_runs(at(2)).await.unwrap(), [], "started at the bound is not before it");
}

async fn events_follow_in_order_from_a_cursor_with_a_limit(db: Db) {
    let o = org(&db).await;
    let t = thread(&db, &o, "q", 1).await;
    let r = run(&db, &o, t.id, 2).await;
    assert_eq!(db.events_after(0, 10).await.unwrap(), []);
    let mut recorded = Vec::new();
    for i in 0..3 {
        let refs = if i == 0 { memory_step().refs } else { vec![MemoryRef::Slice] };
        let new =
            NewEvent { name: "memory_used".into(), run: Some(r.id), thread: Some(t.id), refs, ..NewEvent::default() };
        recorded.push(db.record_event(&new, at(3 + i)).await.unwrap());
    }
    assert!(recorded.windows(2).all(|w| w[0].id < w[1].id), "ids only grow");
    assert_eq!((recorded[0].run, recorded[0].thread, recorded[0].at), (Some(r.id), Some(t.id), at(3)));
    assert_eq!(recorded[0].refs, memory_step().refs);
    assert_eq!(db.events_after(0, 2).await.unwrap(), recorded[..2]);
    assert_eq!(db.events_after(recorded[1].id, 10).await.unwrap(), recorded[2..]);
    assert_eq!(db.events_after(recorded[2].id, 10).await.unwrap(), []);
    let concurrent: Vec<_> = (0..6)
        .map(|_| {
            let db = db.clone();
            let new =
                NewEvent { name: "memory_used".into(), run: Some(r.id), thread: Some(t.id), ..NewEvent::default() };
            tokio::spawn(async move { db.record_event(&new, at(9)).await.unwrap().id })
        })
        .collect();
    for c in concurrent {
        c.await.unwrap();
    }
    let all = db.events_after(0, 100).await.unwrap();
    assert_eq!(all.len(), 9);
    assert!(all.windows(2).all(|w| w[0].id < w[1].id), "oldest first");
}
