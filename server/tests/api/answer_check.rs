//! The check after an answer, against the running server, the demo's Acme ATS over HTTP and a
//! stand-in model: a change shown as its line, no change, a record gone at the source, a source
//! that is down, the kill switch and the hourly limit, a field left out, an unwatched ask checked
//! before it returns, and `message_checked` carrying ids only. An unwatched or checked-only answer
//! shows on no path while its check is under way (a stand-in in front of Acme ATS holds the check's
//! read), and a card past its hard limit is read from its source before the model is asked.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{admin, audited, card_of, lead, person, spawn_cards_with, spawn_partial, Cards};
use crate::helpers::*;
use crate::runs::ask;
use chrono::Duration;
use demo::acme_ats::AtsConfig;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const WHERE: &str = "Where is L-1001?";

async fn spawn_checking(model: &AgentModelServer) -> Cards {
    let c = spawn_cards_with(model.openai_settings()).await;
    model.set_default(AgentReply::answer("L-1001 is at Proposal."));
    c
}

/// Sets L-1001's stage at the source, as someone working in Acme ATS would.
async fn set_stage(ats: &str, stage: &str) {
    let mut rec = lead(ats, "L-1001").await;
    rec["stage"] = json!(stage);
    assert!(admin(ats, Method::PUT, "/admin/leads/L-1001", Some(rec)).await.is_success());
}

fn check(run: &Value) -> (String, Vec<String>) {
    let c = &run["check"];
    let lines = c["lines"].as_array().map(|l| l.iter().map(|s| s.as_str().unwrap().to_string()).collect());
    (c["state"].as_str().unwrap_or_default().to_string(), lines.unwrap_or_default())
}

/// Stops the demo's Acme ATS: from now on it cannot be reached.
async fn stop(c: &Cards) {
    c.ats_task.abort();
    while !c.ats_task.is_finished() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

fn carries_l1001(run: &Value) -> bool {
    run["memory_used"].as_array().unwrap().iter().any(|r| r["card"].is_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_at_the_source_is_a_line_under_the_answer_and_the_card_is_updated() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    set_stage(&c.ats, "Won").await;
    // Past the state fields' soft limit of an hour: the stage is due.
    c.app.clock.advance(Duration::minutes(61));
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let run = &asked["run"];
    assert!(carries_l1001(run), "{run}");
    let (state, lines) = check(run);
    assert_eq!(state, "changed", "{run}");
    assert!(lines.contains(&format!("stage: {before} → Won (Acme ATS, read just now)")), "{lines:?}");
    assert_eq!(run["answer"], "L-1001 is at Proposal.", "a watched answer is shown as the model gave it");
    let step = run["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "checked").expect("a checked step");
    assert_eq!(step["line"], "Checked 1 record against Acme ATS: 1 change");

    // The card holds what was read, and the read counted as no use of it.
    let p = person(&c.app, "alice").await;
    let card = card_of(&c.app, &p, "L-1001").await.unwrap();
    let kept = c.app.memory.mine.my_cards(&p).await.unwrap().into_iter().find(|v| v.card == card).unwrap();
    assert!(kept.fields.iter().any(|f| f.name == "stage" && f.value == "Won"), "{:?}", kept.fields);

    // The thread page shows the state and the line under the answer.
    let thread = asked["thread"].as_i64().unwrap();
    let (_, html) = c.app.page(&alice, &format!("/threads/{thread}")).await;
    assert!(html.contains(r#"data-check="changed""#), "the check is on the page");
    assert!(html.contains(&format!("stage: {before} → Won (Acme ATS, read just now)")));

    // message_checked names the thread, the message and the state: nothing else.
    let ada = c.app.sign_in("ada").await;
    let (_, events) = c.app.get_json(&ada, "/api/events").await;
    let checked: Vec<&Value> = events.as_array().unwrap().iter().filter(|e| e["name"] == "message_checked").collect();
    assert_eq!(checked.len(), 1, "{events}");
    let e = checked[0].as_object().unwrap();
    let mut keys: Vec<&str> = e.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["at", "id", "message", "name", "state", "thread"]);
    assert_eq!((e["thread"].as_i64(), e["state"].as_str()), (Some(thread), Some("changed")));
    let (_, t) = c.app.get_json(&alice, &format!("/api/threads/{thread}")).await;
    let answer = t["messages"].as_array().unwrap().iter().find(|m| m["from_agent"] == true).expect("the answer");
    assert_eq!(e["message"], answer["id"]);
    let (_, html) = c.app.page(&ada, "/company/events").await;
    assert!(html.contains("Answer checked"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fact_within_its_limit_needs_no_check_and_an_unchanged_one_is_checked() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let calls = crate::cards::ats_calls(&c.ats).await;
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert!(carries_l1001(&asked["run"]));
    assert_eq!(check(&asked["run"]), ("not_needed".to_string(), vec![]));
    assert_eq!(crate::cards::ats_calls(&c.ats).await, calls, "nothing was read");

    c.app.clock.advance(Duration::minutes(61));
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(check(&asked["run"]), ("checked".to_string(), vec![]));
    assert_eq!(crate::cards::ats_calls(&c.ats).await, calls + 1, "one read for the one record");
    let steps = asked["run"]["steps"].as_array().unwrap();
    assert!(steps.iter().any(|s| s["line"] == "Checked 1 record against Acme ATS: no change"), "{steps:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_gone_at_the_source_is_removed_at_the_check() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;
    let card = card_of(&c.app, &p, "L-1001").await.unwrap();
    assert_eq!(admin(&c.ats, Method::DELETE, "/admin/leads/L-1001", None).await, StatusCode::NO_CONTENT);
    c.app.clock.advance(Duration::minutes(61));
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let (state, lines) = check(&asked["run"]);
    assert_eq!(state, "changed");
    assert_eq!(lines, ["lead L-1001 is no longer at Acme ATS: removed from memory"]);
    assert!(card_of(&c.app, &p, "L-1001").await.is_none(), "gone at the source, gone here");
    let removed = audited(&c.app, "card.remove").await;
    assert!(removed.iter().any(|e| e.subject == format!("card:{card}") && e.detail == "gone at Acme ATS"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_that_is_down_leaves_the_answer_not_checked_and_removes_nothing() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;
    c.app.clock.advance(Duration::minutes(61));
    stop(&c).await;
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let run = &asked["run"];
    assert_eq!(run["check"]["state"], "not_checked", "{run}");
    let reason = run["check"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("Acme ATS: the source could not be reached"), "{reason}");
    assert_eq!(run["check"]["words"], format!("Not checked: {reason}"));
    assert!(card_of(&c.app, &p, "L-1001").await.is_some(), "a source that is down never removes anything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kill_switch_and_the_hourly_limit_stop_a_check() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let ada = person(&c.app, "ada").await;
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    let mut ats = c.app.store.connector(c.connector).await.unwrap().unwrap();
    ats.killed = true;
    c.app.memory.connectors.save_settings(&ada, &ats).await.unwrap();
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(asked["run"]["check"]["state"], "not_checked");
    assert_eq!(asked["run"]["check"]["reason"], "Acme ATS is switched off");

    ats.killed = false;
    ats.hourly_limit = 1;
    c.app.memory.connectors.save_settings(&ada, &ats).await.unwrap();
    // The hour's one read goes to someone's Refresh; the check finds the limit spent.
    let p = person(&c.app, "alice").await;
    let other = card_of(&c.app, &p, "L-1002").await.unwrap();
    c.app.memory.reads.refresh(&p, other).await.unwrap();
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(asked["run"]["check"]["state"], "not_checked");
    assert_eq!(asked["run"]["check"]["reason"], "Acme ATS's hourly limit of 1 reads is spent");
    let kept = c.app.memory.mine.my_cards(&p).await.unwrap().into_iter().find(|v| v.record_id == "L-1001").unwrap();
    assert!(!kept.fields.iter().any(|f| f.value == "Won"), "nothing was read, so nothing changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_the_source_leaves_out_is_unknown_at_the_check() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    model.set_default(AgentReply::answer("L-1001 is at Proposal."));
    let (ats, _ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    let partial = spawn_partial(&ats).await;
    demo::cards::seed(&*app.store, &app.memory, app.clock.clone() as std::sync::Arc<dyn engine::Clock>, &partial.base)
        .await
        .expect("connect the source");
    set_stage(&ats, "Won").await;
    partial.leave_out(Some("stage"));
    app.clock.advance(Duration::minutes(61));
    let alice = app.sign_in("alice").await;
    let asked = ask(&app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(check(&asked["run"]), ("checked".to_string(), vec![]), "a stage left out is no change");
    let p = person(&app, "alice").await;
    let kept = app.memory.mine.my_cards(&p).await.unwrap().into_iter().find(|v| v.record_id == "L-1001").unwrap();
    assert!(kept.fields.iter().any(|f| f.name == "stage" && f.value != "Won"), "the kept stage stands");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwatched_ask_is_checked_before_it_returns() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let r = alice.post(c.app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    let token_ask = |question: &'static str| {
        let (url, token) = (c.app.url("/api/ask"), token.clone());
        async move {
            let r = client()
                .post(url)
                .bearer_auth(&token)
                .json(&json!({"agent": "Sales Assistant", "question": question}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::CREATED);
            body(r).await
        }
    };
    let asked = token_ask(WHERE).await;
    let run = &asked["run"];
    assert_eq!(run["unwatched"], true);
    let (state, lines) = check(run);
    assert_eq!(state, "changed", "checked before the call returned: {run}");
    assert!(lines.contains(&format!("stage: {before} → Won (Acme ATS, read just now)")));

    // One that could not be checked carries the reason in its answer.
    c.app.clock.advance(Duration::minutes(61));
    stop(&c).await;
    let asked = token_ask(WHERE).await;
    let answer = asked["run"]["answer"].as_str().unwrap();
    let reason = asked["run"]["check"]["reason"].as_str().unwrap();
    assert_eq!(answer, format!("L-1001 is at Proposal.\n\nNot checked: {reason}"));
    assert!(reason.starts_with("Acme ATS: the source could not be reached"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_lead_read_this_morning_shows_what_changed_since() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    assert_eq!(lead(&c.ats, demo::cards::READ_THIS_MORNING).await["stage"], "Won");
    let asked = ask(&c.app, &alice, "Sales Assistant", "Where are we with Hebbal Biotech?").await;
    let (state, lines) = check(&asked["run"]);
    assert_eq!(state, "changed", "{}", asked["run"]);
    assert_eq!(lines, [format!("stage: {} → Won (Acme ATS, read just now)", demo::cards::STAGE_THIS_MORNING)]);
    let again = ask(&c.app, &alice, "Sales Assistant", "Where are we with Hebbal Biotech?").await;
    assert_eq!(check(&again["run"]).0, "not_needed", "the card now holds what was read just now");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checked_only_role_sees_its_answer_only_once_checked() {
    use engine::runs::check::{CheckEnd, CheckState};
    use engine::runs::{RunEnd, RunId};
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let (ada, alice) = (c.app.sign_in("ada").await, c.app.sign_in("alice").await);
    // Off by default; an admin turns it on for the Sales role on its page.
    let (_, html) = c.app.page(&ada, "/company/roles/sales").await;
    assert!(html.contains("Show only checked answers") && !html.contains(r#"name="on" value="on" checked"#));
    let fields = [("scope", "role:sales"), ("on", "on"), ("back", "/company/roles/sales")];
    let r = c.app.form_post(&ada, "/fn/set_checked_only", &fields).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&ada, "/company/roles/sales").await;
    assert!(html.contains("The Sales role now sees answers only once they are checked"), "the notice says so");
    let (_, html) = c.app.page(&alice, "/company/roles/sales").await;
    assert!(!html.contains("Show only checked answers"), "only an admin sees the setting");
    let r = c.app.form_post(&alice, "/fn/set_checked_only", &[("scope", "role:sales"), ("back", "/")]).await;
    assert!(r.status().is_redirection());
    assert_eq!(c.app.store.checked_only().await.unwrap(), ["role:sales"], "nobody else may turn it off");

    // Alice is in Sales: her answer that needs a check waits for it.
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let id = RunId(asked["run"]["id"].as_i64().unwrap());
    let run = c.app.store.run(id).await.unwrap().unwrap();
    assert!(run.checked_only, "recorded on the run");
    assert_eq!(asked["run"]["check"]["state"], "changed");
    assert_eq!(asked["run"]["answer"], "L-1001 is at Proposal.", "once checked, it shows");

    // While a checked-only run is checking, neither the run nor the thread shows its answer.
    let (thread, first) = c
        .app
        .store
        .create_thread(
            run.agent,
            run.for_person,
            "q",
            &engine::runs::Author::Person(run.for_person.unwrap()),
            "q",
            run.created_at,
        )
        .await
        .unwrap();
    let new = engine::runs::NewRun {
        thread: thread.id,
        message: first.id,
        agent: run.agent,
        for_person: run.for_person,
        kind: engine::runs::RunKind::Ask,
        unwatched: false,
        retry_of: None,
    };
    let held = c.app.store.create_run(&new, run.created_at).await.unwrap();
    let end = RunEnd {
        state: engine::runs::RunState::Answered,
        answer: Some("Held until checked.".into()),
        failure: None,
        model: None,
        data_label: engine::cards::access::DataLabel::Internal,
        sources: vec![],
        review_mode: false,
        check: Some(CheckState::Checking),
        checked_only: true,
    };
    c.app.store.end_run(held.id, &end, run.created_at).await.unwrap();
    let (_, t) = c.app.get_json(&alice, &format!("/api/threads/{}", thread.id)).await;
    assert_eq!(t["working"], true, "the page looks again while it is checked");
    let texts: Vec<&str> = t["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["q"], "the answer is not in the thread yet");
    assert_eq!(t["messages"][0]["run"]["answer"], Value::Null);
    assert_eq!(t["messages"][0]["run"]["check"]["state"], "checking");
    let (_, html) = c.app.page(&alice, &format!("/threads/{}", thread.id)).await;
    assert!(html.contains("Checking: the answer shows once it is checked") && !html.contains("Held until checked."));
    let checked = CheckEnd {
        state: CheckState::Checked,
        reason: None,
        line: "Checked 1 record against Acme ATS: no change".into(),
        words: vec![],
        facts: vec![],
        refs: vec![],
    };
    c.app.store.record_check(held.id, &checked, run.created_at).await.unwrap();
    let (_, t) = c.app.get_json(&alice, &format!("/api/threads/{}", thread.id)).await;
    assert_eq!(t["working"], false);
    assert_eq!(t["messages"][0]["run"]["answer"], "Held until checked.");

    // The API says the same, to admins only, and sets it too.
    let (status, scopes) = c.app.get_json(&ada, "/api/checked-only").await;
    assert_eq!((status, scopes), (StatusCode::OK, json!(["role:sales"])));
    let (status, _) = c.app.get_json(&alice, "/api/checked-only").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let r =
        ada.post(c.app.url("/api/checked-only")).json(&json!({"scope": "team:1", "on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(body(r).await["message"].as_str().unwrap().ends_with("team now sees answers only once they are checked"));
    let r =
        ada.post(c.app.url("/api/checked-only")).json(&json!({"scope": "role:nope", "on": true})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(body(r).await["message"], "There is no such role");
    let r =
        ada.post(c.app.url("/api/checked-only")).json(&json!({"scope": "team:1", "on": false})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // Off again, from the page; an unknown team is refused and nothing is set.
    let fields = [("scope", "role:sales"), ("back", "/company/roles/sales")];
    c.app.form_post(&ada, "/fn/set_checked_only", &fields).await;
    assert!(c.app.store.checked_only().await.unwrap().is_empty());
    let r = c.app.form_post(&ada, "/fn/set_checked_only", &[("scope", "team:999"), ("on", "on"), ("back", "/")]).await;
    assert!(r.status().is_redirection());
    assert!(c.app.store.checked_only().await.unwrap().is_empty(), "no such team, nothing set");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_run_read_again_is_compared_with_what_the_block_showed_without_another_read() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    set_stage(&c.ats, "Won").await;
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::answer("L-1001 is Won."),
    ]);
    let calls = crate::cards::ats_calls(&c.ats).await;
    // Within every limit: nothing would be due, but the block showed a stage the run's own read
    // found changed.
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let (state, lines) = check(&asked["run"]);
    assert_eq!(state, "changed", "{}", asked["run"]);
    assert_eq!(lines, [format!("stage: {before} → Won (Acme ATS, read just now)")]);
    assert_eq!(crate::cards::ats_calls(&c.ats).await, calls + 1, "the run's read, and no other");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_and_checks_a_stopped_server_left_end_plainly() {
    use engine::runs::check::CheckState;
    use engine::runs::{Author, NewRun, RunEnd, RunKind, RunState};
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let alice = c.app.sign_in("alice").await;
    let p = person(&c.app, "alice").await;
    let agent = c.app.runs.find_agent(&p, "Sales Assistant").await.unwrap();
    let now = engine::Clock::now(c.app.clock.as_ref());
    let (thread, first) =
        c.app.store.create_thread(agent, Some(p.id), "q", &Author::Person(p.id), "q", now).await.unwrap();
    let new = NewRun {
        thread: thread.id,
        message: first.id,
        agent,
        for_person: Some(p.id),
        kind: RunKind::Ask,
        unwatched: false,
        retry_of: None,
    };
    // A server answered and stopped before its check finished, and another stopped mid-run.
    let answered = c.app.store.create_run(&new, now).await.unwrap();
    let end = RunEnd {
        state: RunState::Answered,
        answer: Some("Stage: Proposal.".into()),
        failure: None,
        model: None,
        data_label: engine::cards::access::DataLabel::Internal,
        sources: vec![],
        review_mode: false,
        check: Some(CheckState::Checking),
        checked_only: false,
    };
    c.app.store.end_run(answered.id, &end, now).await.unwrap();
    let running = c.app.store.create_run(&new, now).await.unwrap();
    assert_eq!(c.app.runs.answering.end_stale().await.unwrap(), 0, "nothing is stale yet");
    c.app.clock.advance(Duration::minutes(16));
    assert_eq!(c.app.runs.answering.end_stale().await.unwrap(), 2);
    let (_, r) = c.app.get_json(&alice, &format!("/api/runs/{}", answered.id)).await;
    assert_eq!(r["check"]["state"], "not_checked");
    assert_eq!(r["check"]["words"], "Not checked: the server stopped before the check finished");
    let (_, r) = c.app.get_json(&alice, &format!("/api/runs/{}", running.id)).await;
    assert_eq!(r["state"], "failed");
    assert_eq!(c.app.runs.answering.end_stale().await.unwrap(), 0, "each is ended once");
}

/// A lesson the nightly job wrote that claims a field of L-1001.
async fn claiming(app: &TestApp, login: &str, scope: engine::lessons::LessonScope, value: &str) -> i64 {
    use engine::lessons::{Claim, LessonState, NewLesson, WrittenBy};
    let p = person(app, login).await;
    let at = engine::Clock::now(&*app.clock);
    let l = NewLesson {
        person: p.id,
        scope,
        text: format!("L-1001 is at {value}."),
        evidence: vec![],
        label: engine::cards::access::DataLabel::Internal,
        checked_at: None,
        source_version: None,
        claim: Some(Claim { record: "lead L-1001".into(), field: "stage".into(), value: value.into() }),
        state: LessonState::Accepted,
        confirmed: false,
        written_by: WrittenBy::Job,
        at,
    };
    app.store.add_lesson(&l, engine::store::Actor { person: None, at }).await.unwrap().id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_supersedes_your_own_lesson_and_contests_everyone_elses_that_it_contradicts() {
    use engine::lessons::{LessonScope, LessonState};
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    let team = person(&c.app, "alice").await.main_team.unwrap();
    let own = claiming(&c.app, "alice", LessonScope::Personal, &before).await;
    let sams = claiming(&c.app, "sam", LessonScope::Personal, &before).await;
    let teams = claiming(&c.app, "sam", LessonScope::Team(team), &before).await;
    let right = claiming(&c.app, "eve", LessonScope::Personal, "Won").await;
    let alice = c.app.sign_in("alice").await;
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(check(&asked["run"]).0, "changed");

    let old = c.app.store.lesson(own).await.unwrap().unwrap();
    assert_eq!(old.state, LessonState::Superseded);
    let (_, mine) = c.app.get_json(&alice, "/api/memory/lessons").await;
    let now = mine["in_use"].as_array().unwrap().iter().find(|l| l["text"].as_str().unwrap().contains("stage is Won"));
    assert_eq!(now.unwrap()["text"], "lead L-1001's stage is Won, as Acme ATS said at a check.", "{mine}");
    for (id, who) in [(sams, "sam's own"), (teams, "the team's")] {
        let l = c.app.store.lesson(id).await.unwrap().unwrap();
        assert_eq!(l.state, LessonState::Contested, "{who}");
        assert!(!l.state_reason.unwrap_or_default().contains("Won"), "contested without the value");
    }
    assert_eq!(c.app.store.lesson(right).await.unwrap().unwrap().state, LessonState::Accepted, "it agrees");
    let events = c.app.store.events_after(0, 100).await.unwrap();
    let told: Vec<_> = events.iter().filter(|e| e.name == "lesson_contested").collect();
    assert_eq!(told.len(), 1, "the reviewers hear of the team's lesson alone");
    assert_eq!(serde_json::to_value(&told[0].refs).unwrap(), json!([{"lesson": format!("lesson:{teams}")}]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_gone_at_the_source_takes_the_lessons_claiming_it_out_of_use() {
    use engine::lessons::{LessonScope, LessonState};
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    let own = claiming(&c.app, "alice", LessonScope::Personal, &before).await;
    let company = claiming(&c.app, "sam", LessonScope::Company, &before).await;
    let alice = c.app.sign_in("alice").await;
    assert_eq!(admin(&c.ats, Method::DELETE, "/admin/leads/L-1001", None).await, StatusCode::NO_CONTENT);
    c.app.clock.advance(Duration::minutes(61));
    ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    for id in [own, company] {
        let l = c.app.store.lesson(id).await.unwrap().unwrap();
        assert_eq!(l.state, LessonState::SourceRemoved);
        assert_eq!(l.state_reason.as_deref(), Some("the record is gone at Acme ATS"));
    }
    let (_, mine) = c.app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine["in_use"], json!([]), "it no longer loads");
}

/// The demo's Acme ATS behind a real HTTP stand-in that passes every call on, except that while
/// it is held each read of one lead (`get_lead`) waits until it is let go: a check's read is
/// then observably under way, with no race against its end.
pub(crate) struct HeldSource {
    pub(crate) base: String,
    held: tokio::sync::watch::Sender<bool>,
    waiting: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HeldSource {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Clone)]
struct Held {
    ats: String,
    held: tokio::sync::watch::Sender<bool>,
    waiting: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

async fn pass_on(
    axum::extract::State(s): axum::extract::State<Held>,
    req: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    use std::sync::atomic::Ordering;
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    if parts.uri.path() == "/tools/get_lead" {
        let mut held = s.held.subscribe();
        s.waiting.fetch_add(1, Ordering::SeqCst);
        let _ = held.wait_for(|held| !held).await;
        s.waiting.fetch_sub(1, Ordering::SeqCst);
    }
    let path = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let method = reqwest::Method::from_bytes(parts.method.as_str().as_bytes()).unwrap();
    let mut out = reqwest::Client::new().request(method, format!("{}{path}", s.ats)).body(body.to_vec());
    for h in ["authorization", "x-acting-for", "content-type"] {
        if let Some(v) = parts.headers.get(h) {
            out = out.header(h, v.as_bytes());
        }
    }
    let resp = out.send().await.unwrap();
    let status = axum::http::StatusCode::from_u16(resp.status().as_u16()).unwrap();
    (status, [("content-type", "application/json")], resp.bytes().await.unwrap_or_default()).into_response()
}

impl HeldSource {
    async fn start(ats: &str) -> Self {
        let (held, _) = tokio::sync::watch::channel(false);
        let waiting = std::sync::Arc::default();
        let state = Held { ats: ats.to_string(), held: held.clone(), waiting: std::sync::Arc::clone(&waiting) };
        let router = axum::Router::new().fallback(pass_on).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { base, held, waiting, task }
    }

    /// From now on each read of a lead waits.
    fn hold(&self) {
        self.held.send_replace(true);
    }

    /// Lets every waiting read, and each one after, through.
    fn release(&self) {
        self.held.send_replace(false);
    }

    /// Waits until a read of a lead is waiting here.
    async fn until_a_read_waits(&self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while self.waiting.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(std::time::Instant::now() < deadline, "no read of a lead reached the source");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

/// As `spawn_checking`, with the connector reading Acme ATS through a `HeldSource`.
async fn spawn_held(model: &AgentModelServer) -> (Cards, HeldSource) {
    let models = model.openai_settings();
    let app = spawn_app_with(move |s| s.models = models).await;
    model.set_default(AgentReply::answer(ANSWER));
    let (ats, ats_task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    let source = HeldSource::start(&ats).await;
    demo::cards::seed(&*app.store, &app.memory, app.clock.clone() as std::sync::Arc<dyn engine::Clock>, &source.base)
        .await
        .expect("connect the source");
    (Cards { app, ats, ats_task, connector: 1 }, source)
}

const ANSWER: &str = "L-1001 is at Proposal.";

/// The run as `GET /api/runs/{id}` shows it to `token`, once its check has ended.
async fn once_checked(app: &TestApp, token: &str, run: i64) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (_, r) = bearer_get(app, token, &format!("/api/runs/{run}")).await;
        if r["state"] == "answered" && r["check"]["state"] != "checking" {
            return r;
        }
        assert!(std::time::Instant::now() < deadline, "the check did not end: {r}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// What a page's server function answers `c`, as the page's own script calls it.
async fn server_fn(app: &TestApp, c: &reqwest::Client, path: &str, fields: &[(&str, &str)]) -> String {
    let r = c
        .post(app.url(path))
        .header("origin", &app.base)
        .header("sec-fetch-site", "same-origin")
        .form(fields)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{path}: {}", r.status());
    r.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwatched_answer_shows_on_no_path_until_its_check_has_ended() {
    use engine::runs::RunId;
    let model = AgentModelServer::start().await;
    let (c, source) = spawn_held(&model).await;
    let (alice, ada) = (c.app.sign_in("alice").await, c.app.sign_in("ada").await);
    let token = token_for(&c.app, "alice").await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    source.hold();
    let question = json!({"agent": "Sales Assistant", "question": WHERE});
    let (status, asked) = bearer_post(&c.app, &token, "/api/ask?wait=false", question).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(asked["run"]["answer"], Value::Null, "{asked}");
    let (run, thread) = (asked["run"]["id"].as_i64().unwrap(), asked["thread"].as_i64().unwrap());

    // The model has answered and the check's read of L-1001 waits at the source.
    source.until_a_read_waits().await;
    let stored = c.app.store.run(RunId(run)).await.unwrap().unwrap();
    assert_eq!(stored.answer.as_deref(), Some(ANSWER), "the answer is recorded");
    assert!(stored.unwatched && stored.checking() && !stored.checked_only, "{stored:?}");

    // No path shows it: the run and thread APIs with the token and in a session, the Ask and
    // thread pages and their server functions, the Inbox, the events, and the engine's own
    // answer to a second `execute` (what `engram ask` prints, and what a wait returns).
    let mut shown: Vec<(String, String)> = Vec::new();
    for path in
        [format!("/api/runs/{run}"), format!("/api/threads/{thread}"), "/api/threads".into(), "/api/inbox".into()]
    {
        // The Inbox is read in a session only.
        if path != "/api/inbox" {
            let (status, v) = bearer_get(&c.app, &token, &path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            shown.push((format!("{path} with the token"), v.to_string()));
        }
        let (status, v) = c.app.get_json(&alice, &path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        shown.push((format!("{path} in a session"), v.to_string()));
    }
    for page in [format!("/threads/{thread}"), "/ask".into()] {
        let (status, html) = c.app.page(&alice, &page).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        shown.push((page, html));
    }
    let id = thread.to_string();
    for (f, fields) in [
        ("/fn/load_thread", vec![("id", id.as_str())]),
        ("/fn/load_thread_page", vec![("id", id.as_str())]),
        ("/fn/load_ask", vec![]),
    ] {
        shown.push((f.to_string(), server_fn(&c.app, &alice, f, &fields).await));
    }
    let (_, events) = c.app.get_json(&ada, "/api/events").await;
    shown.push(("/api/events".into(), events.to_string()));
    let again = c.app.runs.answering.execute(RunId(run)).await.unwrap();
    shown.push(("execute".into(), serde_json::to_string(&again).unwrap()));
    for (path, text) in &shown {
        assert!(!text.contains(ANSWER), "{path} shows the answer before its check ended: {text}");
    }

    // What they show instead is the state.
    let (_, r) = bearer_get(&c.app, &token, &format!("/api/runs/{run}")).await;
    assert_eq!(
        (&r["state"], &r["answer"], &r["check"]["state"]),
        (&json!("answered"), &Value::Null, &json!("checking"))
    );
    let (_, t) = bearer_get(&c.app, &token, &format!("/api/threads/{thread}")).await;
    assert_eq!(t["working"], true, "the page looks again while it is checked");
    let texts: Vec<&str> = t["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, [WHERE], "the answer is not in the thread yet");
    let (_, html) = c.app.page(&alice, &format!("/threads/{thread}")).await;
    assert!(html.contains("Checking: the answer shows once it is checked"));

    // Once the read goes through, the answer shows with what its check found.
    source.release();
    let r = once_checked(&c.app, &token, run).await;
    assert_eq!(r["answer"], ANSWER);
    let (state, lines) = check(&r);
    assert_eq!(state, "changed");
    assert_eq!(lines, [format!("stage: {before} → Won (Acme ATS, read just now)")]);
    let (_, t) = c.app.get_json(&alice, &format!("/api/threads/{thread}")).await;
    assert!(t["messages"].as_array().unwrap().iter().any(|m| m["text"] == ANSWER), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checked_only_answer_is_not_readable_through_the_api_while_it_is_checked() {
    use engine::runs::RunId;
    let model = AgentModelServer::start().await;
    let (c, source) = spawn_held(&model).await;
    let (alice, ada) = (c.app.sign_in("alice").await, c.app.sign_in("ada").await);
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::minutes(61));
    // A session's ask, watched: with no setting its answer shows while it is checked.
    let ask_held = |question: &'static str| {
        let (alice, url) = (alice.clone(), c.app.url("/api/ask?wait=false"));
        let source = &source;
        async move {
            source.hold();
            let r =
                alice.post(url).json(&json!({"agent": "Sales Assistant", "question": question})).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::CREATED);
            let asked = body(r).await;
            source.until_a_read_waits().await;
            (asked["run"]["id"].as_i64().unwrap(), asked["thread"].as_i64().unwrap())
        }
    };
    let (run, _) = ask_held(WHERE).await;
    let (_, r) = c.app.get_json(&alice, &format!("/api/runs/{run}")).await;
    assert_eq!((&r["answer"], &r["check"]["state"]), (&json!(ANSWER), &json!("checking")), "{r}");
    source.release();
    let token = token_for(&c.app, "alice").await;
    once_checked(&c.app, &token, run).await;

    // Alice's Sales role is set to see only checked answers.
    let on = json!({"scope": "role:sales", "on": true});
    let r = ada.post(c.app.url("/api/checked-only")).json(&on).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    c.app.clock.advance(Duration::minutes(61));
    // Another answer, so the first thread's shows nothing of this one.
    const HELD: &str = "L-1001 waits at Proposal.";
    model.set_default(AgentReply::answer(HELD));
    let (run, thread) = ask_held(WHERE).await;
    let stored = c.app.store.run(RunId(run)).await.unwrap().unwrap();
    assert!(stored.checked_only && !stored.unwatched && stored.checking(), "{stored:?}");
    assert_eq!(stored.answer.as_deref(), Some(HELD));
    for path in [format!("/api/runs/{run}"), format!("/api/threads/{thread}"), "/api/threads".into()] {
        let (status, v) = c.app.get_json(&alice, &path).await;
        assert_eq!(status, StatusCode::OK);
        assert!(!v.to_string().contains(HELD), "{path} shows the answer before its check ended: {v}");
    }
    let (_, r) = c.app.get_json(&alice, &format!("/api/runs/{run}")).await;
    assert_eq!((&r["answer"], &r["check"]["state"]), (&Value::Null, &json!("checking")));
    source.release();
    let r = once_checked(&c.app, &token, run).await;
    assert_eq!(r["answer"], HELD, "once checked, it shows");
}

/// The memory part of the person's turn of the model's latest request.
fn last_user_turn(model: &AgentModelServer) -> String {
    crate::runs::messages(model.requests().last().expect("a request")).1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_past_its_hard_limit_is_read_from_its_source_before_the_model_is_asked() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let p = person(&c.app, "alice").await;
    let before = lead(&c.ats, "L-1001").await["stage"].as_str().unwrap().to_string();
    assert_ne!(before, "Won");
    set_stage(&c.ats, "Won").await;
    // Past the demo connector's hard limits of 14 days for amounts, dates and states; a session
    // signed in before would have ended.
    c.app.clock.advance(Duration::days(15));
    let alice = c.app.sign_in("alice").await;
    let calls = crate::cards::ats_calls(&c.ats).await;
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let run = &asked["run"];
    assert_eq!(run["state"], "answered", "{run}");
    let user = last_user_turn(&model);
    assert!(user.contains("lead L-1001\n") && user.contains("stage: Won"), "the value read now: {user}");
    assert!(!user.contains(&format!("stage: {before}")), "not the one remembered: {user}");
    assert!(crate::cards::ats_calls(&c.ats).await > calls, "the source was read");
    let memory = run["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "memory_used").unwrap();
    assert!(
        memory["words"].as_array().unwrap().iter().any(|w| w == "lead L-1001 · Acme ATS · read just now"),
        "{memory}"
    );
    // The read kept what it found, as Refresh does, so the answer's check has nothing due.
    let kept = c.app.memory.mine.my_cards(&p).await.unwrap().into_iter().find(|v| v.record_id == "L-1001").unwrap();
    assert!(kept.fields.iter().any(|f| f.name == "stage" && f.value == "Won"), "{:?}", kept.fields);
    assert_eq!(check(run).0, "not_needed", "{run}");

    // Past its hard limit again with the source down: the card goes to the model with no value,
    // saying it could not be read, and the run still answers.
    c.app.clock.advance(Duration::days(15));
    stop(&c).await;
    let alice = c.app.sign_in("alice").await;
    let asked = ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    assert_eq!(asked["run"]["state"], "answered", "{}", asked["run"]);
    assert_eq!(asked["run"]["answer"], ANSWER);
    let user = last_user_turn(&model);
    assert!(user.contains("lead L-1001\nnot read: Acme ATS: the source could not be reached"), "{user}");
    assert!(!user.contains("stage: Won") && !user.contains(&format!("stage: {before}")), "no stale value: {user}");
    let memory = asked["run"]["steps"].as_array().unwrap().iter().find(|s| s["kind"] == "memory_used").unwrap();
    let not_read = format!("lead L-1001 · Acme ATS · {}", engine::runs::block::NOT_READ);
    assert!(memory["words"].as_array().unwrap().iter().any(|w| *w == not_read), "{memory}");
    assert!(card_of(&c.app, &p, "L-1001").await.is_some(), "a source that is down removes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_past_its_hard_limit_reads_through_the_kill_switch_and_the_hourly_limit() {
    let model = AgentModelServer::start().await;
    let c = spawn_checking(&model).await;
    let ada = person(&c.app, "ada").await;
    set_stage(&c.ats, "Won").await;
    c.app.clock.advance(Duration::days(15));
    let alice = c.app.sign_in("alice").await;
    let mut ats = c.app.store.connector(c.connector).await.unwrap().unwrap();
    ats.killed = true;
    c.app.memory.connectors.save_settings(&ada, &ats).await.unwrap();
    ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let user = last_user_turn(&model);
    assert!(user.contains("lead L-1001\nnot read: Acme ATS is switched off"), "{user}");
    assert!(!user.contains("stage: "), "no card's stale value goes to the model: {user}");

    ats.killed = false;
    ats.hourly_limit = 1;
    c.app.memory.connectors.save_settings(&ada, &ats).await.unwrap();
    let p = person(&c.app, "alice").await;
    let other = card_of(&c.app, &p, "L-1002").await.unwrap();
    c.app.memory.reads.refresh(&p, other).await.unwrap();
    ask(&c.app, &alice, "Sales Assistant", WHERE).await;
    let user = last_user_turn(&model);
    assert!(user.contains("lead L-1001\nnot read: Acme ATS's hourly limit of 1 reads is spent"), "{user}");
    assert!(!user.contains("stage: Won"), "{user}");
}
