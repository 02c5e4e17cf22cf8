//! NightlyStore: whose runs wait for the nightly job (answered asks, and scheduled work as its
//! agent's owner's) after the last one it read, the people a budget left out read first, the
//! spend ledger by day, memory's budget (audited), and confirming a lesson with more evidence.

use crate::backends::{at, on_both, org, Db, Org};
use crate::runs::{answered, memory_step};
use engine::cards::access::DataLabel;
use engine::learning::nightly::{BudgetStop, Queued, Spend, WorkKind};
use engine::lessons::{Evidence, LessonScope, LessonState, NewLesson, WrittenBy};
use engine::org::PersonId;
use engine::runs::{Author, NewRun, Run, RunEnd, RunId, RunKind, RunState};
use engine::store::{Actor, NewAgent, StoreError};

on_both! {
    the_queue_is_whoever_has_answered_runs_after_the_mark_left_out_first:
        sqlite_the_queue_is_whoever_has_answered_runs_after_the_mark_left_out_first,
        postgres_the_queue_is_whoever_has_answered_runs_after_the_mark_left_out_first;
    spend_is_summed_by_day_the_budget_is_audited_and_a_confirm_adds_evidence:
        sqlite_spend_is_summed_by_day_the_budget_is_audited_and_a_confirm_adds_evidence,
        postgres_spend_is_summed_by_day_the_budget_is_audited_and_a_confirm_adds_evidence;
}

async fn run(db: &Db, o: &Org, person: Option<PersonId>, kind: RunKind, end: Option<RunEnd>, minutes: i64) -> Run {
    let author = person.map(Author::Person).unwrap_or(Author::Agent(o.agent.id));
    let (thread, first) = db.create_thread(o.agent.id, person, "q", &author, "q", at(minutes)).await.unwrap();
    let new = NewRun {
        thread: thread.id,
        message: first.id,
        agent: o.agent.id,
        for_person: person,
        kind,
        unwatched: false,
        retry_of: None,
    };
    let r = db.create_run(&new, at(minutes)).await.unwrap();
    db.add_step(r.id, &memory_step(), at(minutes)).await.unwrap();
    match end {
        Some(end) => db.end_run(r.id, &end, at(minutes)).await.unwrap(),
        None => r,
    }
}

fn queued(person: PersonId, (personal, shared, private): (RunId, RunId, RunId), left_out: bool) -> Queued {
    Queued { person, personal_through: personal, shared_through: shared, private_through: private, left_out }
}

const NONE: (RunId, RunId, RunId) = (RunId(0), RunId(0), RunId(0));
const ALL: [WorkKind; 3] = [WorkKind::Personal, WorkKind::Shared, WorkKind::Private];

async fn the_queue_is_whoever_has_answered_runs_after_the_mark_left_out_first(db: Db) {
    let o = org(&db).await;
    let mut failed = answered("");
    failed.state = RunState::Failed;
    failed.answer = None;
    failed.failure = Some("timed out".into());
    let asked = run(&db, &o, Some(o.alice.id), RunKind::Ask, Some(answered("a")), 1).await;
    run(&db, &o, Some(o.alice.id), RunKind::Ask, Some(failed), 2).await;
    run(&db, &o, Some(o.bob.id), RunKind::Ask, None, 3).await;
    run(&db, &o, Some(o.bob.id), RunKind::Eval, Some(answered("e")), 4).await;
    run(&db, &o, Some(o.bob.id), RunKind::Consult, Some(answered("c")), 5).await;
    // Scheduled work acts for nobody: it is its agent's owner's, alice's here.
    let scheduled = run(&db, &o, None, RunKind::Schedule, Some(answered("s")), 6).await;
    assert_eq!(db.nightly_queue().await.unwrap(), [queued(o.alice.id, NONE, false)]);
    let read = db.runs_to_read(o.alice.id, RunId(0), 10).await.unwrap();
    assert_eq!(read.iter().map(|r| r.id).collect::<Vec<_>>(), [asked.id, scheduled.id]);
    assert_eq!(read[0].steps.len(), 1, "with their steps");
    assert_eq!(db.runs_to_read(o.alice.id, RunId(0), 1).await.unwrap().len(), 1, "at most the limit");
    assert_eq!(db.runs_to_read(o.alice.id, asked.id, 10).await.unwrap()[0].id, scheduled.id);

    // The personal call was read and the shared one failed: the shared work still waits.
    db.mark_read(o.alice.id, &[WorkKind::Personal], scheduled.id).await.unwrap();
    assert_eq!(db.nightly_queue().await.unwrap(), [queued(o.alice.id, (scheduled.id, RunId(0), RunId(0)), false)]);
    db.mark_read(o.alice.id, &[WorkKind::Shared], scheduled.id).await.unwrap();
    db.mark_read(o.alice.id, &ALL, asked.id).await.unwrap();
    assert!(db.nightly_queue().await.unwrap().is_empty(), "a mark never moves back");
    let bobs = run(&db, &o, Some(o.bob.id), RunKind::Ask, Some(answered("b")), 7).await;
    let alices = run(&db, &o, Some(o.alice.id), RunKind::Ask, Some(answered("a2")), 8).await;
    let alice_read = (scheduled.id, scheduled.id, asked.id);
    assert_eq!(
        db.nightly_queue().await.unwrap(),
        [queued(o.alice.id, alice_read, false), queued(o.bob.id, NONE, false)]
    );
    let stop = BudgetStop { local_date: "2026-11-30".into(), budget_cents: 200, left_out: 1, at: at(9) };
    db.record_budget_stop(&stop, &[o.bob.id]).await.unwrap();
    assert_eq!(
        db.nightly_queue().await.unwrap(),
        [queued(o.bob.id, NONE, true), queued(o.alice.id, alice_read, false)],
        "the one left out is read first"
    );
    assert_eq!(db.budget_stops(5).await.unwrap(), [stop]);
    db.mark_read(o.bob.id, &ALL, bobs.id).await.unwrap();
    db.mark_read(o.alice.id, &ALL, alices.id).await.unwrap();
    assert!(db.nightly_queue().await.unwrap().is_empty());

    // An ask of alice's private agent is her private agents' work, marked apart from the rest.
    let new = NewAgent {
        name: "Inbox Assistant (Alice Chen)".into(),
        template: "hand-made".into(),
        role: None,
        owner: o.alice.id,
        team_copy: None,
    };
    let inbox = db.add_private_agent(&new, "", Actor { person: Some(o.alice.id), at: at(10) }).await.unwrap();
    let (thread, first) =
        db.create_thread(inbox.id, Some(o.alice.id), "q", &Author::Person(o.alice.id), "q", at(11)).await.unwrap();
    let ask = NewRun {
        thread: thread.id,
        message: first.id,
        agent: inbox.id,
        for_person: Some(o.alice.id),
        kind: RunKind::Ask,
        unwatched: false,
        retry_of: None,
    };
    let private = db.create_run(&ask, at(11)).await.unwrap();
    db.end_run(private.id, &answered("p"), at(11)).await.unwrap();
    let alice_read = (alices.id, alices.id, alices.id);
    assert_eq!(db.nightly_queue().await.unwrap(), [queued(o.alice.id, alice_read, false)]);
    db.mark_read(o.alice.id, &[WorkKind::Personal, WorkKind::Shared], private.id).await.unwrap();
    assert_eq!(
        db.nightly_queue().await.unwrap(),
        [queued(o.alice.id, (private.id, private.id, alices.id), false)],
        "her private agents' work waits until it is read itself"
    );
    db.mark_read(o.alice.id, &[WorkKind::Private], private.id).await.unwrap();
    assert!(db.nightly_queue().await.unwrap().is_empty());
}

async fn spend_is_summed_by_day_the_budget_is_audited_and_a_confirm_adds_evidence(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.spent_on("2026-11-30").await.unwrap(), 0);
    for (day, millicents) in [("2026-11-30", 1_500), ("2026-11-30", 250), ("2026-12-01", 9_000)] {
        let s = Spend {
            local_date: day.into(),
            purpose: "nightly job".into(),
            model: "openai/gpt-4o-mini".into(),
            millicents,
            at: at(1),
        };
        db.add_spend(&s).await.unwrap();
    }
    assert_eq!(db.spent_on("2026-11-30").await.unwrap(), 1_750);
    assert_eq!(db.spent_on("2026-12-01").await.unwrap(), 9_000);

    assert_eq!(db.memory_budget().await.unwrap(), None);
    db.set_memory_budget(50, Actor { person: Some(o.admin.id), at: at(2) }).await.unwrap();
    db.set_memory_budget(80, Actor { person: Some(o.admin.id), at: at(3) }).await.unwrap();
    assert_eq!(db.memory_budget().await.unwrap(), Some(80));
    let log = db.audit_log(2).await.unwrap();
    assert_eq!((log[0].action.as_str(), log[0].detail.as_str()), ("memory.budget", "50 cents → 80 cents a day"));
    assert_eq!(log[1].detail, "the default → 50 cents a day");

    let e1 = Evidence { run: RunId(3), step: 1 };
    let e2 = Evidence { run: RunId(9), step: 2 };
    let new = |state| NewLesson {
        person: o.alice.id,
        scope: LessonScope::Personal,
        text: "Kaveri Foods wants INR".into(),
        evidence: vec![e1],
        label: DataLabel::Internal,
        checked_at: None,
        source_version: None,
        claim: None,
        state,
        confirmed: false,
        written_by: WrittenBy::Job,
        at: at(4),
    };
    let kept = db.add_lesson(&new(LessonState::Accepted), Actor { person: None, at: at(4) }).await.unwrap();
    db.confirm_lesson(kept.id, &[e1, e2], at(5)).await.unwrap();
    let confirmed = db.lesson(kept.id).await.unwrap().unwrap();
    assert_eq!((confirmed.confirmed, confirmed.evidence), (true, vec![e1, e2]), "each piece once");
    let waiting = db.add_lesson(&new(LessonState::Waiting), Actor { person: None, at: at(4) }).await.unwrap();
    assert!(matches!(db.confirm_lesson(waiting.id, &[e2], at(5)).await, Err(StoreError::Changed { .. })));
}
