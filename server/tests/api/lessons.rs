//! A person's lessons against the running server, on either backend: keeping one in their own
//! words, What I've learned, Correct and Forget (only their own, only in a session), what a run
//! loads (their own, their team's and the company's accepted lessons; never a waiting proposal,
//! another person's, a superseded or an expired one), 90-day expiry on an injected clock, and the
//! counts an admin sees.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::person;
use crate::helpers::*;
use crate::runs::ask;
use engine::cards::access::DataLabel;
use engine::lessons::service::CORRECTED;
use engine::lessons::{Evidence, LessonScope, LessonState, NewLesson, WrittenBy};
use engine::org::PersonId;
use engine::store::Actor;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

const KAVERI: &str = "Kaveri Foods' CFO prefers calls before 10";

async fn keep(app: &TestApp, c: &Client, text: &str) -> i64 {
    let r = c.post(app.url("/api/knowledge")).json(&json!({"scope": "private", "text": text})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await["id"].as_i64().unwrap()
}

/// A lesson the nightly job would write, straight into the store.
async fn written_by_job(app: &TestApp, person: PersonId, scope: LessonScope, text: &str, state: LessonState) -> i64 {
    let at = engine::Clock::now(&*app.clock);
    let l = NewLesson {
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
        at,
    };
    app.store.add_lesson(&l, Actor { person: None, at }).await.unwrap().id
}

pub(crate) fn loaded(run: &Value) -> Vec<String> {
    run["memory_used"].as_array().unwrap().iter().filter_map(|r| r["lesson"].as_str().map(str::to_string)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lesson_is_kept_corrected_and_forgotten_by_its_owner_alone() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let id = keep(&app, &alice, KAVERI).await;
    let (s, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(mine["in_use"][0]["id"], id);
    assert_eq!(mine["in_use"][0]["text"], KAVERI);
    assert_eq!(mine["in_use"][0]["evidence"], json!([{"words": "written by you", "thread": null}]));
    assert_eq!(mine["in_use"][0]["yours_to_change"], true);
    assert_eq!(mine["no_longer_current"], json!([]));

    // Bob can neither correct nor forget it: to him it does not exist.
    let bob = app.sign_in("bob").await;
    for path in [format!("/api/memory/lessons/{id}/correct"), format!("/api/memory/lessons/{id}/forget")] {
        let r = bob.post(app.url(&path)).json(&json!({"text": "mine now"})).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{path}");
        assert_eq!(body(r).await["message"], "There is no such lesson");
    }

    // A correction with no words is refused and changes nothing.
    let r = alice.post(app.url(&format!("/api/memory/lessons/{id}/correct"))).json(&json!({"text": " "})).send();
    let r = r.await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "Write the lesson first");

    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{id}/correct")))
        .json(&json!({"text": "Kaveri Foods' CFO prefers calls before 11"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let corrected = body(r).await;
    assert_eq!(corrected["message"], CORRECTED);
    let new_id = corrected["lesson"]["id"].as_i64().unwrap();
    assert_eq!(corrected["lesson"]["supersedes"], id);
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine["in_use"].as_array().unwrap().len(), 1);
    assert_eq!(mine["in_use"][0]["id"], new_id);
    assert_eq!(mine["no_longer_current"][0]["id"], id);
    assert_eq!(mine["no_longer_current"][0]["state"], "superseded");
    assert_eq!(mine["no_longer_current"][0]["line"], "superseded just now (corrected)");
    // The earlier one can no longer be corrected.
    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{id}/correct")))
        .json(&json!({"text": "again"}))
        .send()
        .await
        .unwrap();
    assert_eq!(body(r).await["message"], "This lesson is no longer current");

    let r = alice.post(app.url(&format!("/api/memory/lessons/{new_id}/forget"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await, json!({"forgotten": new_id, "versions": 2}));
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine, json!({"in_use": [], "no_longer_current": []}));
    let audit = app.store.audit_log(5).await.unwrap();
    assert!(audit.iter().any(|e| e.action == "lesson.forget" && e.subject == format!("lesson:{new_id}")));
    assert!(audit.iter().all(|e| !e.detail.contains("Kaveri")), "the audit names ids, never text");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_gets_session_required_for_lessons() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let id = keep(&app, &alice, KAVERI).await;
    let r = alice.post(app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = client().get(app.url("/api/memory/lessons")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");
    for path in [format!("/api/memory/lessons/{id}/correct"), format!("/api/memory/lessons/{id}/forget")] {
        let r = client().post(app.url(&path)).bearer_auth(&token).json(&json!({"text": "x"})).send().await.unwrap();
        assert_eq!(body(r).await["error"], "session_required", "{path}");
    }
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine["in_use"][0]["text"], KAVERI, "nothing changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_loads_the_persons_their_teams_and_the_companys_lessons_in_use() {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let app = spawn_app_with_agent_model(&model).await;
    let (alice_p, bob_p) = (person(&app, "alice").await, person(&app, "bob").await);
    let alice = app.sign_in("alice").await;
    let own = keep(&app, &alice, KAVERI).await;
    let team = alice_p.main_team.expect("Alice has a team");
    let teams = written_by_job(
        &app,
        bob_p.id,
        LessonScope::Team(team),
        "Kaveri renewals go through procurement",
        LessonState::Accepted,
    )
    .await;
    let company = written_by_job(
        &app,
        bob_p.id,
        LessonScope::Company,
        "Kaveri invoices are paid in 45 days",
        LessonState::Accepted,
    )
    .await;
    let waiting =
        written_by_job(&app, bob_p.id, LessonScope::Company, "Kaveri waits for review", LessonState::Waiting).await;
    let bobs =
        written_by_job(&app, bob_p.id, LessonScope::Personal, "Kaveri is Bob's own", LessonState::Accepted).await;

    let run = ask(&app, &alice, "Sales Assistant", "when should I call Kaveri").await;
    let used = loaded(&run["run"]);
    let (alice_run, alice_thread) = (run["run"]["id"].as_i64().unwrap(), run["run"]["thread"].as_i64().unwrap());
    for id in [own, teams, company] {
        assert!(used.contains(&format!("lesson:{id}")), "lesson {id} loads: {used:?}");
    }
    for id in [waiting, bobs] {
        assert!(!used.contains(&format!("lesson:{id}")), "lesson {id} does not load: {used:?}");
    }
    let user = model.requests().last().map(crate::runs::messages).unwrap().1;
    assert!(user.contains(&format!(r#"<data id="lesson:{own}" source="your own words""#)), "{user}");
    assert!(user.contains(&format!(r#"<data id="lesson:{teams}" source="your team's lessons""#)), "{user}");
    let system = model.requests().last().map(crate::runs::messages).unwrap().0;
    assert!(!system.contains("Kaveri"), "a lesson never reaches the system prompt");

    // A question that shares no word with them loads none.
    let run = ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    assert_eq!(loaded(&run["run"]), Vec::<String>::new());

    // Corrected, the new words load and the old ones do not.
    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{own}/correct")))
        .json(&json!({"text": "Kaveri Foods' CFO prefers calls after lunch"}))
        .send()
        .await
        .unwrap();
    let new_id = body(r).await["lesson"]["id"].as_i64().unwrap();
    let used = loaded(&ask(&app, &alice, "Sales Assistant", "when should I call Kaveri").await["run"]);
    assert!(used.contains(&format!("lesson:{new_id}")) && !used.contains(&format!("lesson:{own}")), "{used:?}");

    // Evidence she may open names its run; a run of Bob's is a restricted source to her.
    let bob = app.sign_in("bob").await;
    let bob_run = ask(&app, &bob, "Sales Assistant", "what are our sales stages").await["run"]["id"].as_i64().unwrap();
    let at = engine::Clock::now(&*app.clock);
    let mut l = NewLesson {
        person: alice_p.id,
        scope: LessonScope::Personal,
        text: "Kaveri asks for quotes in INR".into(),
        evidence: vec![Evidence { run: engine::runs::RunId(alice_run), step: 2 }],
        label: DataLabel::Internal,
        checked_at: None,
        source_version: None,
        claim: None,
        state: LessonState::Accepted,
        confirmed: false,
        written_by: WrittenBy::Job,
        at,
    };
    l.evidence.push(Evidence { run: engine::runs::RunId(bob_run), step: 1 });
    app.store.add_lesson(&l, Actor { person: None, at }).await.unwrap();
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(
        mine["in_use"][0]["evidence"],
        json!([
            {"words": format!("Run {alice_run}, step 2"), "thread": alice_thread},
            {"words": "restricted source", "thread": null}
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lesson_nobody_confirmed_expires_after_ninety_days_and_the_counts_follow() {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let app = spawn_app_with_agent_model(&model).await;
    let alice_p = person(&app, "alice").await;
    let alice = app.sign_in("alice").await;
    let job =
        written_by_job(&app, alice_p.id, LessonScope::Personal, "Kaveri prefers email", LessonState::Accepted).await;
    let own = keep(&app, &alice, KAVERI).await;
    let ada = app.sign_in("ada").await;
    let panel =
        |html: &str| html.contains("0 records kept (0 pinned), 2 lessons in use. What they say is theirs alone.");
    let (_, html) = app.page(&ada, &format!("/company/people?person={}", alice_p.id.0)).await;
    assert!(panel(&html), "the admin sees counts");
    assert!(!html.contains("Kaveri"), "never what they say");

    app.clock.advance(chrono::Duration::days(89));
    let alice = app.sign_in("alice").await;
    let used = loaded(&ask(&app, &alice, "Sales Assistant", "how do I reach Kaveri").await["run"]);
    assert!(used.contains(&format!("lesson:{job}")), "{used:?}");

    app.clock.advance(chrono::Duration::days(1));
    let alice = app.sign_in("alice").await;
    let used = loaded(&ask(&app, &alice, "Sales Assistant", "how do I reach Kaveri").await["run"]);
    assert_eq!(used, [format!("lesson:{own}")], "her own words do not expire; the job's unconfirmed one did");
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine["no_longer_current"][0]["id"], job);
    assert_eq!(mine["no_longer_current"][0]["state"], "expired");
    assert_eq!(mine["no_longer_current"][0]["line"], "expired just now (nobody confirmed it in 90 days)");
    let ada = app.sign_in("ada").await;
    let (_, html) = app.page(&ada, &format!("/company/people?person={}", alice_p.id.0)).await;
    assert!(html.contains("1 lesson in use."), "counts follow expiry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_lists_your_own_lessons_and_gives_an_admin_counts_only() {
    use server::cli::Memory;
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let first = keep(&app, &alice, KAVERI).await;
    let r = alice
        .post(app.url(&format!("/api/memory/lessons/{first}/correct")))
        .json(&json!({"text": "Kaveri Foods' CFO prefers calls after lunch"}))
        .send()
        .await
        .unwrap();
    let second = body(r).await["lesson"]["id"].as_i64().unwrap();
    let cli = |cmd: Memory| {
        let url = app.database_url.clone();
        async move {
            let mut out = Vec::new();
            server::cli::run_memory(&cmd, Some(url), &mut out).await.unwrap();
            String::from_utf8(out).unwrap()
        }
    };
    let mine = cli(Memory::Lessons { who: "alice".into(), person: None }).await;
    assert_eq!(
        mine,
        format!(
            "#{second} personal · in use · Kaveri Foods' CFO prefers calls after lunch\n\
             #{first} personal · superseded · {KAVERI}\n"
        )
    );
    let counts = cli(Memory::Lessons { who: "ada".into(), person: Some("alice".into()) }).await;
    assert_eq!(counts, "Alice Chen has 1 lesson in use (2 kept, with history). What they say is theirs alone.\n");
    assert!(!counts.contains("Kaveri"));
    let bob = cli(Memory::Lessons { who: "bob".into(), person: None }).await;
    assert_eq!(bob, "Bob Diaz has no lessons kept\n");
}

pub(crate) async fn propose(app: &TestApp, c: &Client, scope: &str, text: &str) -> Value {
    let r = c.post(app.url("/api/knowledge")).json(&json!({"scope": scope, "text": text})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    body(r).await
}

pub(crate) async fn decide(app: &TestApp, c: &Client, id: i64, decision: &str) -> (StatusCode, Value) {
    let r = c.post(app.url(&format!("/api/memory/review/{id}/{decision}"))).send().await.unwrap();
    (r.status(), body(r).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_and_company_lessons_wait_for_their_reviewers_and_load_once_accepted() {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let team = propose(&app, &alice, "team", "Kaveri quotes go to procurement first").await;
    assert_eq!((&team["state"], &team["scope"]["team"].is_i64()), (&json!("waiting"), &true));
    let company = propose(&app, &alice, "company", "Kaveri invoices are paid in 45 days").await;
    let (team_id, company_id) = (team["id"].as_i64().unwrap(), company["id"].as_i64().unwrap());

    // Alice sees her proposals waiting; they load into nobody's runs yet.
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    let waiting: Vec<_> = mine["no_longer_current"].as_array().unwrap().iter().map(|l| l["state"].clone()).collect();
    assert_eq!(waiting, [json!("waiting for review"), json!("waiting for review")]);
    let sam = app.sign_in("sam").await;
    let used = loaded(&ask(&app, &sam, "Sales Assistant", "how do I quote Kaveri").await["run"]);
    assert_eq!(used, Vec::<String>::new(), "a proposal loads nowhere");

    // Only reviewers see them: Sam leads Sales Bengaluru, Ada is an admin; Bob is neither.
    let (_, queue) = app.get_json(&sam, "/api/memory/review").await;
    assert_eq!(queue.as_array().unwrap().len(), 1, "the lead sees the team's, not the company's: {queue}");
    assert_eq!(queue[0]["lesson"]["id"], team_id);
    assert_eq!((&queue[0]["from"], &queue[0]["to"]), (&json!("Alice Chen"), &json!("Sales Bengaluru")));
    let bob = app.sign_in("bob").await;
    let (_, queue) = app.get_json(&bob, "/api/memory/review").await;
    assert_eq!(queue, json!([]));
    let (s, refused) = decide(&app, &bob, team_id, "accept").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["message"], "Only the team's lead or an admin reviews a team lesson");
    let (_, refused) = decide(&app, &sam, company_id, "accept").await;
    assert_eq!(refused["message"], "Only an admin reviews a company lesson");
    let ada = app.sign_in("ada").await;
    let (_, queue) = app.get_json(&ada, "/api/memory/review").await;
    assert_eq!(queue.as_array().unwrap().len(), 2);

    // Sam accepts the team's; it loads into his runs and Alice's. Ada declines the company's.
    let (s, accepted) = decide(&app, &sam, team_id, "accept").await;
    assert_eq!((s, &accepted["state"], &accepted["confirmed"]), (StatusCode::OK, &json!("accepted"), &json!(true)));
    let (_, again) = decide(&app, &ada, team_id, "decline").await;
    assert_eq!(again["message"], "This proposal was already decided");
    let (_, declined) = decide(&app, &ada, company_id, "decline").await;
    assert_eq!(declined["state"], "declined");
    let used = loaded(&ask(&app, &sam, "Sales Assistant", "how do I quote Kaveri").await["run"]);
    assert_eq!(used, [format!("lesson:{team_id}")]);
    let used = loaded(&ask(&app, &alice, "Sales Assistant", "how do I quote Kaveri").await["run"]);
    assert_eq!(used, [format!("lesson:{team_id}")], "the declined company lesson never loads");
    let used = loaded(&ask(&app, &bob, "Sales Assistant", "how do I quote Kaveri").await["run"]);
    assert_eq!(used, Vec::<String>::new(), "another team's lesson is not Bob's");
    let (_, mine) = app.get_json(&alice, "/api/memory/lessons").await;
    assert_eq!(mine["in_use"][0]["id"], team_id);
    assert_eq!(mine["in_use"][0]["yours_to_change"], false);
    assert_eq!(mine["no_longer_current"][0]["state"], "declined");

    // Once the team holds it, Alice neither corrects nor forgets it alone.
    for path in [format!("/api/memory/lessons/{team_id}/correct"), format!("/api/memory/lessons/{team_id}/forget")] {
        let r = alice.post(app.url(&path)).json(&json!({"text": "Kaveri quotes go anywhere"})).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{path}");
        assert_eq!(body(r).await["message"], "This lesson is your team's now; its lead or an admin looks after it");
    }
    let used = loaded(&ask(&app, &sam, "Sales Assistant", "how do I quote Kaveri").await["run"]);
    assert_eq!(used, [format!("lesson:{team_id}")], "nothing changed");

    // A proposal's reviewers never include a token.
    let r = ada.post(app.url("/api/tokens")).json(&json!({"name": "script"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = client().get(app.url("/api/memory/review")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(body(r).await["error"], "session_required");

    // A proposal nobody reviewed in 90 days has expired: it is not accepted late.
    let late = propose(&app, &alice, "team", "Kaveri quotes need a second signature").await["id"].as_i64().unwrap();
    app.clock.advance(chrono::Duration::days(90));
    let sam = app.sign_in("sam").await;
    let (s, refused) = decide(&app, &sam, late, "accept").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["message"], "This proposal expired: nobody reviewed it in 90 days");
    assert_eq!(app.store.lesson(late).await.unwrap().unwrap().state, LessonState::Waiting, "nothing changed");
}
