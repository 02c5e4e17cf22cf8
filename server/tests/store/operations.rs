//! OperationsStore and RunCostStore: memory's tables measured per layer with what was written
//! since a time, a day's runs, checks, costs (with the block's percentiles by nearest rank) and
//! check reads counted between its edges, the spend ledger by day and purpose, a connector's
//! oldest card and how many are older than a time, the people who have not left, and a run's cost
//! kept once; and the daily measure of memory kept and read back, the newest first.

use crate::backends::{at, on_both, org, Db};
use crate::connectors::{card, connector};
use chrono::{DateTime, Utc};
use engine::cards::access::KeyKind;
use engine::cards::source::KeyMode;
use engine::cores::{CoreScope, NewCoreVersion};
use engine::kernel::model::Spend;
use engine::lessons::{LessonScope, NewLesson};
use engine::operations::{DaySpend, Layer, OldestCard, TableFigures};
use engine::persona::backlog::{NewEpisode, NewTask, Outcome, TaskKind};
use engine::runs::check::CheckState;
use engine::runs::cost::RunCost;
use engine::runs::{Run, RunEnd};

on_both! {
    memory_is_measured_per_layer_with_what_was_written_since:
        sqlite_memory_is_measured_per_layer_with_what_was_written_since,
        postgres_memory_is_measured_per_layer_with_what_was_written_since;
    a_days_runs_checks_costs_and_reads_are_counted_between_its_edges:
        sqlite_a_days_runs_checks_costs_and_reads_are_counted_between_its_edges,
        postgres_a_days_runs_checks_costs_and_reads_are_counted_between_its_edges;
    spend_is_summed_by_day_and_purpose_within_the_dates:
        sqlite_spend_is_summed_by_day_and_purpose_within_the_dates,
        postgres_spend_is_summed_by_day_and_purpose_within_the_dates;
    a_connectors_oldest_card_and_those_read_before_a_time:
        sqlite_a_connectors_oldest_card_and_those_read_before_a_time,
        postgres_a_connectors_oldest_card_and_those_read_before_a_time;
    people_who_left_are_not_counted_and_a_runs_cost_is_kept_once:
        sqlite_people_who_left_are_not_counted_and_a_runs_cost_is_kept_once,
        postgres_people_who_left_are_not_counted_and_a_runs_cost_is_kept_once;
    the_newest_kept_measure_is_read_back_whole:
        sqlite_the_newest_kept_measure_is_read_back_whole,
        postgres_the_newest_kept_measure_is_read_back_whole;
}

fn table<'a>(tables: &'a [TableFigures], name: &str) -> &'a TableFigures {
    tables.iter().find(|t| t.table == name).unwrap_or_else(|| panic!("{name} is measured"))
}

fn figures(t: &TableFigures) -> (Layer, u64, Option<u64>) {
    (t.layer, t.rows, t.added)
}

async fn memory_is_measured_per_layer_with_what_was_written_since(db: Db) {
    let o = org(&db).await;
    let empty = db.memory_sizes(at(5)).await.unwrap();
    assert_eq!(figures(table(&empty.tables, "cards")), (Layer::Cards, 0, Some(0)));
    assert_eq!(figures(table(&empty.tables, "card_terms")), (Layer::Cards, 0, None), "no time of its own");
    let bare = table(&empty.tables, "cards").bytes;
    for t in &empty.tables {
        assert_eq!(t.fixed_bytes, t.bytes, "{}: an empty table takes only its first pages", t.table);
    }

    // Two core versions, one before the window and one in it.
    for (version, minutes) in [(0, 1), (1, 10)] {
        let text = format!("Stages: New, Won. Version {}.", version + 1);
        let v = NewCoreVersion {
            scope: CoreScope::Company(o.sales.slug.clone()),
            based_on: version,
            tokens: engine::tokens::count_tokens(&text),
            text,
            author: o.admin.id,
            note: String::new(),
            restored_from: None,
            at: at(minutes),
        };
        db.append_core_version(&v).await.unwrap();
    }
    // Three cards, one read in the window; each with its match terms.
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    for (record, minutes) in [("D-1", 2), ("D-2", 3), ("D-3", 6)] {
        db.upsert_card(&engine::cards::store::NewCard {
            read_at: at(minutes),
            ..card(crm.id, record, KeyKind::Company, None)
        })
        .await
        .unwrap();
    }
    for minutes in [1, 7] {
        let lesson =
            NewLesson::in_own_words(o.alice.id, LessonScope::Personal, format!("lesson {minutes}"), at(minutes));
        db.add_lesson(&lesson, o.by_admin(minutes)).await.unwrap();
    }
    let episode = |wake: &str, minutes| NewEpisode {
        agent: "dealbot".into(),
        wake: wake.into(),
        trigger: "wakeup".into(),
        task: None,
        outcome: Outcome::Done,
        turns: Some(3),
        cost_usd: None,
        duration_s: None,
        summary: "I finished".into(),
        log_path: None,
        transcript_path: None,
        at: at(minutes),
    };
    db.insert_episode(&episode("run-1", 4)).await.unwrap();
    db.insert_episode(&episode("run-2", 8)).await.unwrap();
    // A work task and an improve card: only the improve card is memory.
    let task = |kind, title: &str, minutes| NewTask {
        kind,
        title: title.into(),
        body: String::new(),
        author: "agent:dealbot".into(),
        assignee: None,
        owner: None,
        improve: (kind == TaskKind::Improve).then(|| engine::persona::backlog::Improvement {
            agent: "dealbot".into(),
            target_path: "SOUL.md".into(),
            diff: "+ Ask first".into(),
            rationale: "seen twice".into(),
            evidence: vec![1],
            base_text: String::new(),
            memory_id: None,
        }),
        at: at(minutes),
    };
    db.create_task(&task(TaskKind::Work, "Call Globex", 1)).await.unwrap();
    db.create_task(&task(TaskKind::Work, "Call Initech", 2)).await.unwrap();
    db.create_task(&task(TaskKind::Improve, "Ask first", 9)).await.unwrap();

    let sizes = db.memory_sizes(at(5)).await.unwrap();
    let t = &sizes.tables;
    assert_eq!(figures(table(t, "core_versions")), (Layer::Cores, 2, Some(1)));
    assert_eq!(figures(table(t, "cards")), (Layer::Cards, 3, Some(1)));
    assert!(table(t, "card_terms").rows >= 3, "each card's terms");
    assert_eq!(figures(table(t, "lessons")), (Layer::Lessons, 2, Some(1)));
    assert_eq!(figures(table(t, "list_snapshots")), (Layer::Lists, 0, Some(0)));
    assert_eq!(figures(table(t, "org_agent_episodes")), (Layer::Bots, 2, Some(1)));
    assert_eq!(figures(table(t, "tasks (improve cards)")), (Layer::Bots, 1, Some(1)), "work tasks are not memory");
    for name in ["core_versions", "cards", "lessons", "org_agent_episodes", "tasks (improve cards)"] {
        assert!(table(t, name).bytes > 0, "{name} takes room on disk");
    }
    assert!(table(t, "cards").bytes >= bare, "a table grows, never shrinks, as rows come");
    assert!(t.iter().all(|t| t.fixed_bytes <= t.bytes), "{t:?}");
    let memory: u64 = t.iter().map(|t| t.bytes).sum();
    assert!(sizes.database_bytes >= memory, "{} of {memory}", sizes.database_bytes);
    assert!(!sizes.measure.is_empty());
    for layer in Layer::ALL {
        assert!(t.iter().any(|x| x.layer == layer), "{layer:?}");
    }
}

async fn run_at(db: &Db, o: &crate::backends::Org, minutes: i64) -> Run {
    let t = crate::runs::thread(db, o, "what are our stages", minutes).await;
    crate::runs::run(db, o, t.id, minutes).await
}

fn checked(state: CheckState) -> RunEnd {
    RunEnd { check: Some(state), ..crate::runs::answered("New, Won.") }
}

fn cost(block_tokens: u32, model_millicents: u64) -> RunCost {
    RunCost { block_tokens, model_calls: 2, model_tokens: 1_000, model_millicents }
}

async fn a_days_runs_checks_costs_and_reads_are_counted_between_its_edges(db: Db) {
    let o = org(&db).await;
    // Three spans side by side: [0, 60), [60, 120), [120, 180) minutes.
    let bounds: Vec<DateTime<Utc>> = [0, 60, 120, 180].into_iter().map(at).collect();
    assert_eq!(db.run_days(&bounds).await.unwrap().len(), 3, "every span, empty ones too");

    // The first span: 20 runs given blocks of 100 to 2,000 tokens, one with none, their answers
    // checked (checked, changed, not checked), not needed, still checking or never ended.
    for k in 1..=21_i64 {
        let r = run_at(&db, &o, k).await;
        let tokens = if k <= 20 { (k * 100) as u32 } else { 0 };
        db.record_run_cost(r.id, r.created_at, &cost(tokens, 10)).await.unwrap();
        let state = match k % 5 {
            0 => Some(CheckState::Checked),
            1 => Some(CheckState::Changed),
            2 => Some(CheckState::NotChecked),
            3 => Some(CheckState::NotNeeded),
            _ => None,
        };
        if let Some(state) = state {
            db.end_run(r.id, &checked(state), at(k)).await.unwrap();
        }
    }
    // The second: one run, one block; its edge belongs to it, not to the first.
    let edge = run_at(&db, &o, 60).await;
    db.record_run_cost(edge.id, edge.created_at, &cost(777, 5)).await.unwrap();
    // After the last edge: not counted.
    let late = run_at(&db, &o, 180).await;
    db.record_run_cost(late.id, late.created_at, &cost(9_999, 900)).await.unwrap();
    // The checks' reads, and a run's own read that is not a check's.
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    for (purpose, minutes) in [("check", 5), ("check", 59), ("check", 60), ("run", 61), ("check", 200)] {
        assert!(db.claim_read(crm.id, purpose, at(minutes - 60), 1_000, at(minutes)).await.unwrap());
    }

    let runs = db.run_days(&bounds).await.unwrap();
    // k % 5 of 0, 1 or 2 among 1..=21: 5, 10, 15, 20 / 1, 6, 11, 16, 21 / 2, 7, 12, 17.
    assert_eq!((runs[0].runs, runs[0].checks), (21, 13));
    assert_eq!((runs[1].runs, runs[1].checks), (1, 0));
    assert_eq!((runs[2].runs, runs[2].checks), (0, 0));

    let costs = db.cost_days(&bounds).await.unwrap();
    let first = costs[0];
    assert_eq!((first.runs, first.with_block, first.block_tokens), (21, 20, 21_000));
    assert_eq!((first.model_calls, first.model_tokens, first.model_millicents), (42, 21_000, 210));
    // Nearest rank over 20 blocks: the 10th and the 19th.
    assert_eq!((first.block_p50, first.block_p95), (Some(1_000), Some(1_900)));
    assert_eq!((costs[1].runs, costs[1].block_p50, costs[1].block_p95), (1, Some(777), Some(777)));
    assert_eq!((costs[2].runs, costs[2].block_p50, costs[2].block_p95), (0, None, None));

    // The whole window at once: 21 blocks, the 11th and the 20th.
    let whole = db.cost_days(&[at(0), at(180)]).await.unwrap();
    assert_eq!(whole.len(), 1);
    assert_eq!((whole[0].with_block, whole[0].block_p50, whole[0].block_p95), (21, Some(1_000), Some(1_900)));
    let odd = db.cost_days(&[at(0), at(20)]).await.unwrap()[0];
    // 19 blocks of 100 to 1,900: the 10th and the 19th.
    assert_eq!((odd.with_block, odd.block_p50, odd.block_p95), (19, Some(1_000), Some(1_900)));

    assert_eq!(db.reads_by_day("check", &bounds).await.unwrap(), [2, 1, 0]);
    assert_eq!(db.reads_by_day("run", &bounds).await.unwrap(), [0, 1, 0]);
}

async fn spend_is_summed_by_day_and_purpose_within_the_dates(db: Db) {
    org(&db).await;
    for (day, purpose, millicents) in [
        ("2026-11-29", "nightly job", 5),
        ("2026-11-30", "nightly job", 700),
        ("2026-11-30", "nightly job", 300),
        ("2026-11-30", "shape drafting", 40),
        ("2026-12-01", "nightly job", 9),
    ] {
        let spend = Spend { local_date: day.into(), purpose: purpose.into(), model: "m".into(), millicents, at: at(1) };
        db.add_spend(&spend).await.unwrap();
    }
    let spend =
        |d: &str, p: &str, calls, millicents| DaySpend { local_date: d.into(), purpose: p.into(), calls, millicents };
    assert_eq!(
        db.spend_by_day("2026-11-30", "2026-12-01").await.unwrap(),
        [
            spend("2026-11-30", "nightly job", 2, 1_000),
            spend("2026-11-30", "shape drafting", 1, 40),
            spend("2026-12-01", "nightly job", 1, 9)
        ]
    );
    assert!(db.spend_by_day("2026-12-02", "2026-12-31").await.unwrap().is_empty());
}

async fn a_connectors_oldest_card_and_those_read_before_a_time(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    assert_eq!(db.oldest_card(crm.id).await.unwrap(), None);
    let mut ids = vec![];
    for (record, minutes) in [("D-1", 30), ("D-2", 10), ("D-3", 20)] {
        let c = db
            .upsert_card(&engine::cards::store::NewCard {
                read_at: at(minutes),
                ..card(crm.id, record, KeyKind::Company, None)
            })
            .await
            .unwrap();
        ids.push(c.id);
    }
    db.upsert_card(&engine::cards::store::NewCard { read_at: at(1), ..card(ats.id, "T-1", KeyKind::Company, None) })
        .await
        .unwrap();
    assert_eq!(db.oldest_card(crm.id).await.unwrap(), Some(OldestCard { card: ids[1], read_at: at(10) }));
    assert_eq!(db.cards_read_before(crm.id, at(25)).await.unwrap(), 2);
    assert_eq!(db.cards_read_before(crm.id, at(10)).await.unwrap(), 0, "read at the time is not before it");
    assert_eq!(db.cards_read_before(ats.id, at(25)).await.unwrap(), 1);
}

async fn people_who_left_are_not_counted_and_a_runs_cost_is_kept_once(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.people_count().await.unwrap(), 3);
    db.mark_left(o.bob.id, o.by_admin(2)).await.unwrap();
    assert_eq!(db.people_count().await.unwrap(), 2);

    let r = run_at(&db, &o, 1).await;
    db.record_run_cost(r.id, r.created_at, &cost(500, 3)).await.unwrap();
    db.record_run_cost(r.id, r.created_at, &cost(9_000, 9)).await.unwrap();
    let day = db.cost_days(&[at(0), at(60)]).await.unwrap()[0];
    assert_eq!((day.runs, day.block_tokens, day.model_millicents), (1, 500, 3), "the first record stands");
}

async fn the_newest_kept_measure_is_read_back_whole(db: Db) {
    assert_eq!(db.last_measure().await.unwrap(), None, "none before the first");
    let o = org(&db).await;
    let morning = db.memory_sizes(at(0)).await.unwrap();
    db.keep_measure(at(10), &morning).await.unwrap();
    assert_eq!(db.last_measure().await.unwrap(), Some((at(10), morning.clone())));
    let lesson = NewLesson::in_own_words(o.alice.id, LessonScope::Personal, "Acme pays in INR".into(), at(20));
    db.add_lesson(&lesson, o.by_admin(20)).await.unwrap();
    let next = db.memory_sizes(at(0)).await.unwrap();
    assert_ne!(next, morning, "a lesson more");
    db.keep_measure(at(30), &next).await.unwrap();
    let (when, kept) = db.last_measure().await.unwrap().expect("the newest");
    assert_eq!((when, &kept), (at(30), &next));
    assert_eq!(table(&kept.tables, "lessons").rows, table(&morning.tables, "lessons").rows + 1);
}
