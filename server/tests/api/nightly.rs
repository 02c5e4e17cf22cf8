//! The nightly job against the running server, on either backend, with a stand-in model and an
//! injected clock: from 02:00 in the company's zone, once a day across servers; personal lessons
//! written at once from a person's asks, quoted as data; team and company lessons only from
//! shared work, waiting for review with a digest by id; confirm and supersede; core lines only
//! from clean work; a failed call read again next night, and only that kind of work; the budget stopping the job, the admins
//! told, and the people it left out read first the next night.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::person;
use crate::helpers::*;
use crate::runs::{ask, messages};
use engine::cards::access::DataLabel;
use engine::cores::CoreScope;
use engine::learning::nightly::prompt::NIGHTLY_SYSTEM;
use engine::learning::nightly::{NightlyOutcome, NightlyReport, MEMORY_SETTINGS};
use engine::lessons::{LessonScope, LessonState};
use engine::org::RoleSlug;
use engine::runs::{Author, NewRun, NewStep, RunEnd, RunId, RunKind, RunState, StepKind};
use engine::store::Actor;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A server whose agents and whose memory model are both the stand-in.
async fn app_with(model: &AgentModelServer, price: u32) -> TestApp {
    let mut models = model.openai_settings();
    models.reflect_model = Some("cheap".into());
    models.openai_price = price;
    spawn_app_with_models(models).await
}

/// 02:01 in Kolkata (UTC+5:30) on the day after the clock's day: the job is due.
fn next_night(app: &TestApp, minute: u32) -> chrono::DateTime<chrono::Utc> {
    let day = engine::Clock::now(&*app.clock).date_naive() + chrono::Duration::days(1);
    day.and_hms_opt(20, 30 + minute, 0).unwrap().and_utc()
}

async fn ran(app: &TestApp) -> NightlyReport {
    match app.nightly.due().await.unwrap() {
        NightlyOutcome::Ran(r) => r,
        other => panic!("the job did not run: {other:?}"),
    }
}

fn reply(v: Value) -> AgentReply {
    AgentReply::answer(&v.to_string())
}

/// The chat requests the nightly job sent, as (system, user).
fn nightly_requests(model: &AgentModelServer) -> Vec<(String, String)> {
    model
        .requests()
        .iter()
        .filter(|r| r["tools"].is_null())
        .map(messages)
        .filter(|(s, _)| s == NIGHTLY_SYSTEM)
        .collect()
}

/// An agent's scheduled work for its team, acting for nobody: shared work.
async fn scheduled_run(app: &TestApp, agent: &str, question: &str, answer: &str) -> RunId {
    scheduled_run_at(app, agent, question, answer, DataLabel::Internal).await
}

/// As `scheduled_run`, carrying data labelled `label`.
async fn scheduled_run_at(app: &TestApp, agent: &str, question: &str, answer: &str, label: DataLabel) -> RunId {
    let dir = app.store.directory().await.unwrap();
    let agent = dir.agents.iter().find(|a| a.name == agent).unwrap().id;
    let at = engine::Clock::now(&*app.clock);
    let (thread, message) =
        app.store.create_thread(agent, None, question, &Author::Agent(agent), question, at).await.unwrap();
    let run = NewRun {
        thread: thread.id,
        message: message.id,
        agent,
        for_person: None,
        kind: RunKind::Schedule,
        unwatched: true,
        retry_of: None,
    };
    let run = app.store.create_run(&run, at).await.unwrap();
    let step = NewStep { kind: StepKind::Answer, line: "Answered".into(), words: vec![], refs: vec![], detail: None };
    app.store.add_step(run.id, &step, at).await.unwrap();
    let end = RunEnd {
        state: RunState::Answered,
        answer: Some(answer.into()),
        failure: None,
        model: Some("openai/stand-in".into()),
        data_label: label,
        sources: vec![],
        review_mode: false,
        check: None,
        checked_only: false,
    };
    app.store.end_run(run.id, &end, at).await.unwrap();
    run.id
}

fn run_id(asked: &Value) -> i64 {
    asked["run"]["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_two_in_the_morning_the_job_writes_personal_lessons_from_asks_quoted_as_data() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "Which currency does Kaveri Foods want quotes in?").await;
    let run = run_id(&asked);
    model.script([reply(json!({
        "lessons": [
            {"text": "Kaveri Foods wants quotes in INR first.", "scope": "personal", "runs": [run]},
            {"text": "Every Sales quote goes out in INR.", "scope": "company", "runs": [run]},
            {"text": "A lesson from a run of nobody's.", "runs": [999999]}
        ],
        "core_lines": [{"core": "role", "line": "Quote in INR first, then USD.", "why": "Asked on a run.", "runs": [run]}]
    }))]);

    app.clock.set(next_night(&app, 0) - chrono::Duration::minutes(1));
    assert_eq!(app.nightly.due().await.unwrap(), NightlyOutcome::NotDue, "01:59 in Kolkata");
    app.clock.set(next_night(&app, 1) - chrono::Duration::days(1));
    let report = ran(&app).await;
    assert_eq!((report.people, report.runs, report.personal), (1, 1, 1), "{report:?}");
    assert_eq!(report.proposed, 0, "personal work never proposes a company lesson");
    assert_eq!(report.suggested, 1, "an internal answer with no tool result may suggest a core line");
    assert!(matches!(app.nightly.due().await.unwrap(), NightlyOutcome::AlreadyRan(_)), "once a day");

    let sent = nightly_requests(&model);
    assert_eq!(sent.len(), 1);
    let (system, user) = &sent[0];
    assert!(!system.contains("Kaveri"), "nothing a run carried reaches the system prompt");
    assert!(user.starts_with("The personal work of Alice Chen."), "{user}");
    assert!(user.contains(&format!("<data id=\"{run}\" source=\"Sales Assistant\"")), "{user}");
    assert!(user.contains("Question: Which currency does Kaveri Foods want quotes in?"), "{user}");

    let (s, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(s, StatusCode::OK);
    let in_use = mine["in_use"].as_array().unwrap();
    assert_eq!(in_use.len(), 1, "{mine}");
    assert_eq!(in_use[0]["text"], "Kaveri Foods wants quotes in INR first.");
    assert!(in_use[0]["evidence"][0]["words"].as_str().unwrap().starts_with(&format!("Run {run}, step ")));

    let sales = CoreScope::Company(RoleSlug::parse("sales").unwrap());
    let suggested = app.store.suggestions(&sales).await.unwrap();
    let line = suggested.iter().find(|s| s.line == "Quote in INR first, then USD.").expect("the suggestion");
    assert_eq!(line.source, "nightly job");
    assert_eq!(line.rests_on, format!("Runs {run} of Alice Chen."));

    // Read once: the next night has nothing of alice's to read.
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!(report.runs, 0);
    assert_eq!(nightly_requests(&model).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_a_tool_result_suggests_no_core_line() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "What do we quote Kaveri Foods in?").await;
    let run = RunId(run_id(&asked));
    // The run read an outside record: its answer carries outside text.
    let step =
        NewStep { kind: StepKind::ToolCall, line: "Read lead L-104".into(), words: vec![], refs: vec![], detail: None };
    app.store.add_step(run, &step, engine::Clock::now(&*app.clock)).await.unwrap();
    model.script([reply(json!({
        "core_lines": [{"core": "role", "line": "Quote in INR first.", "why": "", "runs": [run.0]}]
    }))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!(report.suggested, 0);
    let sales = CoreScope::Company(RoleSlug::parse("sales").unwrap());
    assert!(app.store.suggestions(&sales).await.unwrap().iter().all(|s| s.line != "Quote in INR first."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_work_proposes_team_and_company_lessons_read_apart_from_personal_work() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let ada = person(&app, "ada").await;
    let shared = scheduled_run(&app, "Sales Assistant", "Weekly pipeline review", "Three deals moved to Won.").await;
    let admin = app.sign_in("ada").await;
    let asked = ask(&app, &admin, "Sales Assistant", "What are my open deals?").await;
    let personal = run_id(&asked);
    // Shared work is read first, then personal work, each in a call of its own.
    model.script([
        reply(json!({"lessons": [
            {"text": "Deals over 10 lakh need a second review.", "scope": "company", "runs": [shared.0]},
            {"text": "The pipeline review runs on Mondays.", "scope": "team", "runs": [shared.0]}
        ]})),
        reply(json!({"lessons": [
            {"text": "A company lesson from personal work.", "scope": "company", "runs": [personal]}
        ]})),
    ]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!(report.proposed, 2, "{report:?}");
    assert_eq!(report.personal, 0, "{report:?}");

    let sent = nightly_requests(&model);
    assert_eq!(sent.len(), 2);
    assert!(sent[0].1.starts_with("The shared work of Ada Lovelace.") && sent[0].1.contains("Weekly pipeline review"));
    assert!(!sent[0].1.contains("open deals"), "never mixed");
    assert!(sent[1].1.starts_with("The personal work of Ada Lovelace.") && !sent[1].1.contains("pipeline"));

    let waiting = app.store.waiting_lessons().await.unwrap();
    assert_eq!(waiting.len(), 2);
    assert!(waiting.iter().all(|l| l.person == ada.id && l.state == LessonState::Waiting));
    assert!(waiting.iter().any(|l| l.scope == LessonScope::Company));
    // The reviewers' digest names ids, never text.
    let events = app.store.events_after(0, 100).await.unwrap();
    let digest = events.iter().find(|e| e.name == "lessons_to_review").expect("the digest");
    let ids: Vec<String> = waiting.iter().map(|l| l.ref_id()).collect();
    let named = serde_json::to_string(&digest.refs).unwrap();
    assert!(ids.iter().all(|id| named.contains(id)), "{named}");
    assert!(!named.contains("lakh"));
    // A proposal loads into nobody's run until a reviewer accepts it.
    let (_, review) = app.get_json(&admin, "/api/memory/review").await;
    assert_eq!(review.as_array().unwrap().len(), 2, "{review}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_day_confirms_a_lesson_it_showed_again_and_supersedes_one_it_showed_wrong() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let alice = app.sign_in("alice").await;
    let keep = |text: &'static str| {
        let c = alice.clone();
        let url = app.url("/api/knowledge");
        async move {
            let r = c.post(url).json(&json!({"scope": "private", "text": text})).send().await.unwrap();
            body(r).await["id"].as_i64().unwrap()
        }
    };
    let holds = keep("Kaveri Foods' CFO prefers calls before 10").await;
    let wrong = keep("Kaveri Foods pays in 30 days").await;
    let asked = ask(&app, &alice, "Sales Assistant", "When does Kaveri Foods pay, and when to call?").await;
    let run = run_id(&asked);
    model.script([reply(json!({
        "confirms": [{"lesson": holds, "runs": [run]}],
        "supersedes": [{"lesson": wrong, "text": "Kaveri Foods pays in 45 days now.", "runs": [run]}]
    }))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.confirmed, report.superseded), (1, 1), "{report:?}");
    let (_, user) = &nightly_requests(&model)[0];
    assert!(user.contains(&format!("<data id=\"{holds}\" source=\"kept lesson\"")), "{user}");

    let confirmed = app.store.lesson(holds).await.unwrap().unwrap();
    assert!(confirmed.confirmed && confirmed.evidence.iter().any(|e| e.run.0 == run));
    let old = app.store.lesson(wrong).await.unwrap().unwrap();
    assert_eq!(old.state, LessonState::Superseded);
    assert!(old.valid_to.is_some(), "it keeps a valid-to date and stays in the history");
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    let texts: Vec<&str> = mine["in_use"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"Kaveri Foods pays in 45 days now.") && !texts.contains(&"Kaveri Foods pays in 30 days"));
    let past = serde_json::to_string(&mine["no_longer_current"]).unwrap();
    assert!(past.contains("Kaveri Foods pays in 30 days"), "{past}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_call_is_logged_and_its_runs_are_read_again_the_next_night() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "Which currency does Kaveri Foods want?").await;
    let run = run_id(&asked);
    model.script([AgentReply::Status(500), AgentReply::answer("not JSON at all")]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.failed_calls, report.personal), (1, 0), "{report:?}");
    app.clock.set(next_night(&app, 1));
    assert_eq!(ran(&app).await.failed_calls, 1, "an answer out of shape is not the end of the job either");
    model.script([reply(json!({"lessons": [{"text": "Kaveri Foods wants INR.", "runs": [run]}]}))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.runs, report.personal), (1, 1), "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_one_kind_of_work_fails_only_that_kind_is_read_again_the_next_night() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let shared = scheduled_run(&app, "Sales Assistant", "Weekly pipeline review", "Three deals moved to Won.").await;
    let admin = app.sign_in("ada").await;
    let asked = ask(&app, &admin, "Sales Assistant", "What are my open deals?").await;
    let personal = run_id(&asked);
    model.script([
        reply(json!({"lessons": [{"text": "Deals over 10 lakh need a second review.", "scope": "company", "runs": [shared.0]}]})),
        AgentReply::Status(500),
    ]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.proposed, report.failed_calls), (1, 1), "{report:?}");

    model.script([reply(json!({"lessons": [{"text": "Ada's open deals are in Sales Desk.", "runs": [personal]}]}))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.runs, report.personal, report.proposed), (1, 1, 0), "{report:?}");
    let sent = nightly_requests(&model);
    assert_eq!(sent.len(), 3, "the shared work, read the first night, is not read again");
    assert!(sent[2].1.starts_with("The personal work of Ada Lovelace."), "{}", sent[2].1);
    assert_eq!(app.store.waiting_lessons().await.unwrap().len(), 1, "its lesson is not written twice");

    app.clock.set(next_night(&app, 1));
    assert_eq!(ran(&app).await.people, 0, "both kinds are read");
}

/// The memory model pinned to the stand-in provider, cleared for data up to `cleared`.
async fn app_cleared_for(model: &AgentModelServer, cleared: DataLabel) -> TestApp {
    let mut models = model.openai_settings();
    models.reflect_model = Some(format!("openai/{}", crate::agent_model_server::STAND_IN_MODEL));
    models.openai_cleared_for = cleared;
    spawn_app_with_models(models).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_only_to_a_model_cleared_for_what_it_carried() {
    let model = AgentModelServer::start().await;
    let app = app_cleared_for(&model, DataLabel::Internal).await;
    scheduled_run(&app, "Sales Assistant", "Weekly pipeline review", "Three deals moved to Won.").await;
    scheduled_run_at(&app, "Sales Assistant", "Salary bands for Q1", "Kept in the HR sheet.", DataLabel::Confidential)
        .await;
    model.script([reply(json!({"lessons": []}))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.runs, report.passed_over), (1, 1), "{report:?}");
    assert!(
        report.summary().contains("1 runs carried data no model of memory's is cleared for"),
        "{}",
        report.summary()
    );
    let sent = nightly_requests(&model);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].1.contains("Weekly pipeline review") && !sent[0].1.contains("Salary"), "{}", sent[0].1);
    app.clock.set(next_night(&app, 1));
    assert_eq!(ran(&app).await.people, 0, "a run passed over is not read again");

    // A provider cleared for confidential data is sent it.
    let model = AgentModelServer::start().await;
    let app = app_cleared_for(&model, DataLabel::Confidential).await;
    scheduled_run_at(&app, "Sales Assistant", "Salary bands for Q1", "Kept in the HR sheet.", DataLabel::Confidential)
        .await;
    model.script([reply(json!({"lessons": []}))]);
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.runs, report.passed_over), (1, 0), "{report:?}");
    assert!(nightly_requests(&model)[0].1.contains("Salary bands"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_stops_the_job_tells_the_admins_and_reads_who_it_left_out_first_next_night() {
    let model = AgentModelServer::start().await;
    // A price so high that one call spends more than a cent.
    let app = app_with(&model, 10_000_000).await;
    let ada = app.sign_in("ada").await;
    let alice = app.sign_in("alice").await;
    let sam = app.sign_in("sam").await;
    app.store.set_memory_budget(1, Actor { person: None, at: engine::Clock::now(&*app.clock) }).await.unwrap();
    ask(&app, &alice, "Sales Assistant", "Which currency does Kaveri Foods want?").await;
    ask(&app, &sam, "Sales Assistant", "Who owns the Litware deal?").await;
    model.set_default(reply(json!({"lessons": []})));

    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.people, report.left_out), (1, 1), "{report:?}");
    let first = nightly_requests(&model)[0].1.clone();
    let (read, left) = if first.contains("Alice Chen") { ("alice", "sam") } else { ("sam", "alice") };
    let stops = app.store.budget_stops(5).await.unwrap();
    assert_eq!(stops.len(), 1);
    assert!(stops[0].notice().contains(MEMORY_SETTINGS), "{}", stops[0].notice());
    let events = app.store.events_after(0, 100).await.unwrap();
    assert!(events.iter().any(|e| e.name == "memory_budget_spent"));
    let _ = ada;

    // The next night, the one left out is read first: with room for one call, it is theirs.
    let left_person = person(&app, left).await;
    let queue = app.store.nightly_queue().await.unwrap();
    assert_eq!(queue[0].person, left_person.id, "left out, so first");
    assert!(queue[0].left_out);
    let read_person = person(&app, read).await;
    // The one read already asks again, so both wait tonight.
    ask(&app, if read == "alice" { &alice } else { &sam }, "Sales Assistant", "Anything new on Kaveri?").await;
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert_eq!((report.people, report.left_out), (1, 1), "{report:?}");
    let second = nightly_requests(&model)[1].1.clone();
    assert!(second.contains(&left_person.name), "{second}");
    let queue = app.store.nightly_queue().await.unwrap();
    assert_eq!(queue[0].person, read_person.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_model_the_job_asks_nothing_and_the_runs_wait() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let _ = alice;
    app.clock.set(next_night(&app, 1));
    let report = ran(&app).await;
    assert!(report.model_off.is_some(), "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_postgresql_run_the_nightly_job_once() {
    let model = AgentModelServer::start().await;
    let mut models = model.openai_settings();
    models.reflect_model = Some("cheap".into());
    let db = PgDatabase::create().await;
    let first = spawn_app_on_with(&db.url, |s| s.models = models.clone()).await;
    let second = spawn_app_on_with(&db.url, |s| s.models = models.clone()).await;
    let alice = first.sign_in("alice").await;
    ask(&first, &alice, "Sales Assistant", "Which currency does Kaveri Foods want?").await;
    model.set_default(reply(json!({"lessons": []})));
    let at = next_night(&first, 1);
    first.clock.set(at);
    second.clock.set(at);
    let (a, b) = tokio::join!(first.nightly.due(), second.nightly.due());
    let ran: Vec<_> = [a.unwrap(), b.unwrap()].into_iter().filter(|o| matches!(o, NightlyOutcome::Ran(_))).collect();
    assert_eq!(ran.len(), 1, "one of the two servers runs the day");
    assert_eq!(nightly_requests(&model).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_settings_set_the_budget_for_admins_alone_and_show_the_nights_it_ran_out() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 10_000_000).await;
    let ada = app.sign_in("ada").await;
    let (s, html) = app.page(&ada, "/company/memory").await;
    assert_eq!(s, StatusCode::OK);
    let page = plain(&html);
    assert!(page.contains("Lessons load into runs by default."), "{page}");
    assert!(page.contains("Cents a day (the default)"), "{page}");
    assert!(page.contains("of 200 cents"), "{page}");

    // A refused budget keeps what was typed and changes nothing.
    app.form_post(&ada, "/fn/set_memory_budget", &[("cents", "2.5")]).await;
    let (_, html) = app.page(&ada, "/company/memory").await;
    assert!(plain(&html).contains("The daily budget is a whole number of cents, from 0 to 100000"));
    assert!(html.contains("value=\"2.5\""), "the person's text stays");
    assert_eq!(app.store.memory_budget().await.unwrap(), None);

    app.form_post(&ada, "/fn/set_memory_budget", &[("cents", "1")]).await;
    let (_, html) = app.page(&ada, "/company/memory").await;
    assert!(plain(&html).contains("Saved. Memory's model calls may spend 1 cent a day."));
    assert_eq!(app.store.memory_budget().await.unwrap(), Some(1));
    assert_eq!(app.store.audit_log(1).await.unwrap()[0].action, "memory.budget");

    let alice = app.sign_in("alice").await;
    app.form_post(&alice, "/fn/set_memory_budget", &[("cents", "100000")]).await;
    assert_eq!(app.store.memory_budget().await.unwrap(), Some(1), "only an admin changes it");
    let (_, html) = app.page(&alice, "/company/memory").await;
    assert!(plain(&html).contains("Only an admin changes memory settings"));

    // Two people's runs and room for one call: the notice names the settings page.
    let sam = app.sign_in("sam").await;
    ask(&app, &alice, "Sales Assistant", "Which currency does Kaveri Foods want?").await;
    ask(&app, &sam, "Sales Assistant", "Who owns the Litware deal?").await;
    model.set_default(reply(json!({"lessons": []})));
    app.clock.set(next_night(&app, 1));
    ran(&app).await;
    let (_, html) = app.page(&ada, "/company/memory").await;
    let page = plain(&html);
    assert!(page.contains("memory's daily budget of 1 cent was spent. 1 person was left out"), "{page}");
    assert!(page.contains(&format!("The budget is under {MEMORY_SETTINGS}.")), "{page}");
    assert!(!page.contains("Kaveri"), "the notice names no text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_jobs_run_nightly_runs_a_day_once_by_hand() {
    let model = AgentModelServer::start().await;
    let app = app_with(&model, 0).await;
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", "Which currency does Kaveri Foods want?").await;
    model.script([reply(json!({"lessons": [{"text": "Kaveri Foods wants INR.", "runs": [run_id(&asked)]}]}))]);
    let jobs = |date: Option<&str>| {
        server::jobs_cli::Jobs::Run(server::jobs_cli::Job::Nightly { date: date.map(str::to_string) })
    };
    let mut out = Vec::new();
    server::jobs_cli::run(&app.settings, &jobs(Some("2026-12-24")), &mut out).await.unwrap();
    let said = String::from_utf8(out).unwrap();
    assert!(
        said.starts_with("The nightly job for 2026-12-24 read 1 runs of 1 people: 1 personal lessons written"),
        "{said}"
    );
    let mut out = Vec::new();
    server::jobs_cli::run(&app.settings, &jobs(Some("2026-12-24")), &mut out).await.unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "The nightly job already ran for 2026-12-24; nothing was done.\n");
    let err = server::jobs_cli::run(&app.settings, &jobs(Some("24/12/2026")), &mut Vec::new()).await.unwrap_err();
    assert_eq!(err, "\"24/12/2026\" is not a date: write it as YYYY-MM-DD");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_lessons_and_suggested_core_lines_come_from_its_runs_through_the_job_and_the_demo_model() {
    let (model, _task) = demo::model::spawn(0).await.expect("the demo model");
    let mut models = crate::model_server::no_models();
    server::agent_model::use_demo_model(&mut models, &model);
    let app = spawn_app_with_models(models).await;
    let summary = demo::history::seed(app.store.as_ref(), &app.runs, &app.nightly).await.unwrap();
    // The two asks, and the Support Agent's scheduled run (shared work), read on the first night.
    assert!(summary.contains(" read 3 runs "), "{summary}");
    assert!(summary.contains("2 personal lessons written"), "{summary}");
    let support = app.store.directory().await.unwrap().agents.into_iter().find(|a| a.name == "Support Agent").unwrap();
    let schedule = app.store.schedule(support.id).await.unwrap().expect("the demo's schedule");
    assert_eq!(
        (schedule.instruction.as_str(), schedule.when.words()),
        ("Summarise the open escalated tickets", "Daily at 09:00".to_string())
    );
    assert!(schedule.next_due > chrono::Utc::now(), "first due at its next 09:00, never at once");
    assert!(summary.contains("2 core lines suggested"), "{summary}");
    // The scheduled run is the team's shared work: a team lesson proposed, waiting for its lead.
    assert!(summary.contains("1 team or company lessons proposed"), "{summary}");
    let desk = app.store.directory().await.unwrap().teams.into_iter().find(|t| t.name == "Support Desk").unwrap();
    let waiting = app.store.waiting_lessons().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0].scope, engine::lessons::LessonScope::Team(desk.id));
    assert!(
        waiting[0].text.starts_with("The Support Agent is asked to summarise the open escalated tickets"),
        "{waiting:?}"
    );
    let ran = app.store.runs_of_thread(app.store.run(waiting[0].evidence[0].run).await.unwrap().unwrap().thread).await;
    assert_eq!(ran.unwrap()[0].kind, engine::runs::RunKind::Schedule, "it rests on the scheduled run");

    let sue = app.sign_in("sue").await;
    let (_, mine) = app.get_json(&sue, "/api/memory/lessons").await;
    let lesson = &mine["in_use"][0];
    assert_eq!(lesson["text"], "Refunds over $500 need the team lead's approval before they are promised.");
    assert!(lesson["evidence"][0]["words"].as_str().unwrap().starts_with("Run "), "{lesson}");

    let support = CoreScope::Company(RoleSlug::parse("support").unwrap());
    let suggested = app.store.suggestions(&support).await.unwrap();
    assert_eq!(suggested.len(), 1, "{suggested:?}");
    assert_eq!(suggested[0].line, "Refunds over $500 need the team lead's approval before they are promised.");
    assert_eq!(suggested[0].source, "nightly job");
    assert!(suggested[0].rests_on.ends_with(" of Sue Park."), "{}", suggested[0].rests_on);
    let sales_team =
        app.store.directory().await.unwrap().teams.into_iter().find(|t| t.name == "Sales Bengaluru").unwrap();
    let team = app.store.suggestions(&CoreScope::Team(sales_team.id)).await.unwrap();
    assert_eq!(team[0].line, "Quote prices in INR first, then USD.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_job_keeps_to_two_in_the_morning_in_the_companys_zone_across_both_dst_changes() {
    use chrono::TimeZone;
    let app = spawn_empty_app().await;
    let company = engine::org::Company {
        name: "Contoso".into(),
        time_zone: engine::org::TimeZoneName::parse("America/New_York").unwrap(),
        locale: Default::default(),
    };
    let utc = |m: u32, d: u32, h: u32, min: u32| chrono::Utc.with_ymd_and_hms(2026, m, d, h, min, 0).unwrap();
    app.store.create_company(&company, Actor { person: None, at: utc(3, 1, 12, 0) }).await.unwrap();
    let due_at = |at| {
        app.clock.set(at);
        app.nightly.due()
    };
    // 8 March: clocks go from 02:00 EST to 03:00 EDT, so 02:00 never comes; 03:00 is past it.
    assert_eq!(due_at(utc(3, 8, 6, 59)).await.unwrap(), NightlyOutcome::NotDue, "01:59 EST");
    assert!(matches!(due_at(utc(3, 8, 7, 0)).await.unwrap(), NightlyOutcome::Ran(r) if r.local_date == "2026-03-08"));
    // The next day, in EDT: 02:00 is 06:00 UTC, an hour earlier than before.
    assert_eq!(due_at(utc(3, 9, 5, 59)).await.unwrap(), NightlyOutcome::NotDue, "01:59 EDT");
    assert!(matches!(due_at(utc(3, 9, 6, 0)).await.unwrap(), NightlyOutcome::Ran(r) if r.local_date == "2026-03-09"));
    // 1 November: 01:00 to 02:00 comes twice; only 02:00 EST (07:00 UTC) is due, once.
    assert_eq!(due_at(utc(11, 1, 5, 30)).await.unwrap(), NightlyOutcome::NotDue, "01:30 EDT");
    assert_eq!(due_at(utc(11, 1, 6, 30)).await.unwrap(), NightlyOutcome::NotDue, "01:30 EST, the second time");
    assert!(matches!(due_at(utc(11, 1, 7, 0)).await.unwrap(), NightlyOutcome::Ran(r) if r.local_date == "2026-11-01"));
    assert!(matches!(due_at(utc(11, 1, 8, 0)).await.unwrap(), NightlyOutcome::AlreadyRan(_)));
}

/// `engram demo` builds the server, makes the demo's first day (whose nightly job it runs itself),
/// then serves. The timed jobs start only when it serves: a job checked in between would claim the
/// day over a half-made company, and the demo's own run of the job would find the day taken, so
/// Sue would have no lesson from her first run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timed_jobs_start_when_the_server_serves_never_while_the_demo_makes_its_first_day() {
    use chrono::Timelike;
    use std::sync::Arc;
    let (model, _task) = demo::model::spawn(0).await.expect("the demo model");
    let mut models = crate::model_server::no_models();
    server::agent_model::use_demo_model(&mut models, &model);
    let first = spawn_app_with_models(models.clone()).await;
    let mut settings = first.settings.clone();
    settings.models = models;
    settings.run_jobs = true;
    // From 03:00 in Kolkata both the nightly job and Operations' measure are due at once.
    let mut now = chrono::Utc::now();
    let zone: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap();
    if now.with_timezone(&zone).hour() < 4 {
        now += chrono::Duration::hours(5);
    }
    let clock = Arc::new(engine::ManualClock::new(now));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let app = server::startup::Application::build_with_clock(settings, listener, clock as Arc<dyn engine::Clock>)
        .await
        .expect("build the server");
    // Time enough for a job loop started by `build` to have made its first check.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(app.store().last_measure().await.unwrap().is_none(), "no job runs before the server serves");
    let summary = demo::history::seed(app.store().as_ref(), app.runs(), app.nightly()).await.unwrap();
    assert!(summary.contains(" read 3 runs ") && summary.contains("2 personal lessons written"), "{summary}");

    let store = app.store().clone();
    let server = tokio::spawn(app.run_until_stopped());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while store.last_measure().await.unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "the timed jobs started when the server served");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    server.abort();
}
