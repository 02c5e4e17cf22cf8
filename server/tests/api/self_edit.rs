//! Seed 003 against the running server: a bot edits its own memory with its own token through
//! `memory_self_edit`, within its SelfEditPolicy; its owner approves, declines and undoes.

use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post, token_for as person_token};
use crate::model_server::ModelServer;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn edit(app: &TestApp, token: &str, b: Value) -> (StatusCode, Value) {
    post(app, token, "/api/org/self/edit", b).await
}

/// A finished run of `agent`, reported by its owner, whose reflect adds `texts` as lessons.
async fn learn(app: &TestApp, model: &ModelServer, owner: &str, agent: &str, wake: &str, texts: &[&str]) {
    let ops: Vec<Value> = texts.iter().map(|t| json!({"op": "add", "kind": "lesson", "text": t})).collect();
    model.reply(&json!({ "operations": ops }).to_string());
    let out = app
        .org_cli(&["--as", owner, "reflect", agent, "--run", wake, "--turns", "4", "--reason", "task"])
        .await
        .unwrap();
    assert!(out.contains("added"), "{out}");
}

async fn row(app: &TestApp, token: &str, agent: &str, text: &str) -> Value {
    let (_, rows) = get(app, token, &format!("/api/org/agents/{agent}/memory?all=true")).await;
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"] == text)
        .cloned()
        .unwrap_or_else(|| panic!("no {text:?}: {rows}"))
}

async fn set_policy(app: &TestApp, policy: Value) {
    let path = app.vault().join(".agents/org/org-agents.json");
    let mut roster: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    roster["agents"]["scout"]["memory"]["self_edit"] = policy;
    std::fs::write(&path, serde_json::to_string_pretty(&roster).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_action_with_the_bots_own_token_is_carried_out_or_waits_and_each_is_recorded() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    learn(&app, &model, "sam", "scout", "r1", &["I check the CRM first.", "I cite the registry."]).await;
    learn(&app, &model, "eli", "builder", "b1", &["I run clippy."]).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let sam = person_token(&app, "sam").await;
    set_policy(&app, json!({"maxEditsPerSession": 10})).await;
    let crm = row(&app, &scout, "scout", "I check the CRM first.").await["id"].as_i64().unwrap();
    let registry = row(&app, &scout, "scout", "I cite the registry.").await["id"].as_i64().unwrap();

    let (s, v) = edit(
        &app,
        &scout,
        json!({"action": "strengthen", "target": format!("strategy:{crm}"), "reason": "It found the owner twice"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!((v["state"].as_str(), v["reason"].as_str()), (Some("applied"), Some("It found the owner twice")));
    assert_eq!(
        (v["before"].as_str(), v["after"].as_str()),
        (Some("I check the CRM first. (worth 0)"), Some("I check the CRM first. (worth 1)"))
    );
    assert_eq!(row(&app, &scout, "scout", "I check the CRM first.").await["worth"], 1);
    // Worth orders core.md after times seen: both lines were seen once, the strengthened one is first.
    let core = std::fs::read_to_string(app.vault().join(".agents/org/memory/scout/core.md")).unwrap();
    let (a, b) = (core.find("I check the CRM first."), core.find("I cite the registry."));
    assert!(a.is_some() && a < b, "{core}");

    let (s, v) = edit(
        &app,
        &scout,
        json!({"action": "append", "target": "fact", "content": "Leads in Pune go to Bob.", "reason": "Told in a run"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(row(&app, &scout, "scout", "Leads in Pune go to Bob.").await["kind"], "lesson");
    let (s, v) = edit(&app, &scout, json!({"action": "replace", "target": registry.to_string(), "content": "I cite the company registry.", "reason": "clearer"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(row(&app, &scout, "scout", "I cite the registry.").await["superseded_by"], v["new_row"]);

    // Forgetting a fact waits for a person (delete_fact); nothing changes meanwhile.
    let (s, waiting) =
        edit(&app, &scout, json!({"action": "forget", "target": crm.to_string(), "reason": "The CRM is stale"})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{waiting}");
    assert_eq!((waiting["state"].as_str(), waiting["approval"].as_str()), (Some("waiting"), Some("delete_fact")));
    assert_eq!(row(&app, &scout, "scout", "I check the CRM first.").await["active"], true);

    // Refusals are answered with their sentence and recorded too.
    let (s, v) = edit(&app, &scout, json!({"action": "weaken", "target": crm.to_string(), "reason": " "})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["error"], "self_edit_refused");
    assert_eq!(v["message"], "Give a reason: every self-edit needs one, and it goes in the audit log (requireReason)");
    assert_eq!(v["self_edit"]["state"], "refused");
    let clippy = row(&app, &person_token(&app, "eli").await, "builder", "I run clippy.").await["id"].as_i64().unwrap();
    let (s, v) =
        edit(&app, &scout, json!({"action": "weaken", "target": clippy.to_string(), "reason": "not useful"})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], format!("scout has no active line #{clippy} of its own"));

    // The tool is the bot's: a person's token is refused and nothing is recorded for it.
    let (s, v) = edit(&app, &sam, json!({"action": "strengthen", "target": crm.to_string(), "reason": "x"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(v["message"], "memory_self_edit is a bot's own tool: call it with the bot's own token");

    let (s, edits) = get(&app, &sam, "/api/org/agents/scout/self-edits").await;
    assert_eq!(s, StatusCode::OK);
    let states: Vec<_> = edits.as_array().unwrap().iter().map(|e| e["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["refused", "refused", "waiting", "applied", "applied", "applied"]);
    let (s, _) = get(&app, &scout, "/api/org/agents/builder/self-edits").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a bot reads only its own");

    // The profile: the bot writes it (edit_entity waits), its owner approves, and it is read back.
    let (s, p) = edit(&app, &scout, json!({"action": "append", "target": "profile", "content": "I research leads for Bengaluru.", "reason": "first profile"})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{p}");
    let (_, profile) = get(&app, &scout, "/api/org/self/profile").await;
    assert_eq!(profile["summary"], Value::Null);
    let (s, v) = post(&app, &sam, &format!("/api/org/self-edits/{}/approve", p["id"]), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, profile) = get(&app, &scout, "/api/org/self/profile").await;
    assert_eq!(profile["summary"], "I research leads for Bengaluru.");
    assert_eq!((profile["facts"].as_u64(), profile["strongest"][0][0].as_i64()), (Some(3), Some(crm)));
    assert_eq!(profile["edits_waiting"], 1);
    let (_, same) = get(&app, &sam, "/api/org/self/profile?agent=scout").await;
    assert_eq!(same, profile);

    let out = app.org_cli(&["--as", "scout", "self", "profile"]).await.unwrap();
    assert!(out.contains("  I research leads for Bengaluru.\n"), "{out}");
    let out = app
        .org_cli(&["--as", "scout", "self", "edit", "weaken", &format!("strategy:{crm}"), "--reason", "It missed once"])
        .await
        .unwrap();
    assert!(out.starts_with("self-edit #") && out.contains("applied weaken"), "{out}");
    let err = app.org_cli(&["--as", "scout", "self", "edit", "strengthen", "fact"]).await.unwrap_err();
    assert_eq!(err.code, 3);
    assert!(err.message.contains("requireReason"), "{}", err.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_approvals_and_undo_follow_the_policy_and_the_clock() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    learn(&app, &model, "sam", "scout", "r1", &["One.", "Two.", "Three.", "Four."]).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let sam = person_token(&app, "sam").await;
    let mut ids = Vec::new();
    for t in ["One.", "Two.", "Three.", "Four."] {
        ids.push(row(&app, &scout, "scout", t).await["id"].as_i64().unwrap());
    }

    // Five edits a session by default; the sixth names the limit.
    for _ in 0..5 {
        let (s, v) =
            edit(&app, &scout, json!({"action": "strengthen", "target": ids[0].to_string(), "reason": "again"})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let (s, v) =
        edit(&app, &scout, json!({"action": "strengthen", "target": ids[0].to_string(), "reason": "again"})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["message"],
        "maxEditsPerSession is 5, and this session has made 5; the next edit waits for the next session"
    );
    // The bot's next finished run is a new session.
    learn(&app, &model, "sam", "scout", "r2", &["Five."]).await;

    // Without approval for deletes, three a day; the fourth names the limit.
    set_policy(&app, json!({"requireApproval": [], "maxEditsPerSession": 20})).await;
    for id in &ids[..3] {
        let (s, v) = edit(&app, &scout, json!({"action": "forget", "target": id.to_string(), "reason": "wrong"})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let (s, v) = edit(&app, &scout, json!({"action": "forget", "target": ids[3].to_string(), "reason": "wrong"})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        v["message"],
        "maxDeletesPerDay is 3, and 3 were made today; the next forget waits until tomorrow (UTC)"
    );
    set_policy(&app, json!({"allowEdit": ["own_facts"]})).await;
    let (_, v) =
        edit(&app, &scout, json!({"action": "weaken", "target": format!("strategy:{}", ids[3]), "reason": "r"})).await;
    assert_eq!(v["message"], "allowEdit does not include own_strategies, so scout cannot change its strategies");

    // Undo within the grace period (an hour by default), by the owner or by the bot; refused after.
    set_policy(&app, json!({"maxEditsPerSession": 20})).await;
    let (_, a) = edit(&app, &scout, json!({"action": "strengthen", "target": ids[3].to_string(), "reason": "r"})).await;
    let (_, b) = edit(&app, &scout, json!({"action": "weaken", "target": ids[3].to_string(), "reason": "r"})).await;
    let (_, c) =
        edit(&app, &scout, json!({"action": "append", "target": "fact", "content": "Six.", "reason": "r"})).await;
    let (s, v) = post(&app, &sam, &format!("/api/org/self-edits/{}/undo", a["id"]), json!({})).await;
    assert_eq!((s, v["state"].as_str()), (StatusCode::OK, Some("undone")), "{v}");
    assert_eq!(v["undone_by"], "person:sam@acme.example");
    let (s, v) = post(&app, &scout, &format!("/api/org/self-edits/{}/undo", b["id"]), json!({})).await;
    assert_eq!((s, v["undone_by"].as_str()), (StatusCode::OK, Some("agent:scout")), "{v}");
    assert_eq!(row(&app, &scout, "scout", "Four.").await["worth"], 0);
    app.clock.advance(chrono::Duration::minutes(61));
    let (s, v) = post(&app, &sam, &format!("/api/org/self-edits/{}/undo", c["id"]), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(v["message"].as_str().unwrap().contains("its grace period ended at"), "{v}");
    assert_eq!(row(&app, &scout, "scout", "Six.").await["active"], true);

    // A waiting edit (tomorrow, as today's deletes are spent): only the owner or lead decides, once.
    app.clock.advance(chrono::Duration::days(1));
    let (_, w) = edit(&app, &scout, json!({"action": "forget", "target": ids[3].to_string(), "reason": "stale"})).await;
    let sue = person_token(&app, "sue").await;
    let (s, _) = post(&app, &sue, &format!("/api/org/self-edits/{}/approve", w["id"]), json!({})).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, v) =
        post(&app, &sam, &format!("/api/org/self-edits/{}/decline", w["id"]), json!({"reason": "Still true"})).await;
    assert_eq!(
        (s, v["state"].as_str(), v["decided_why"].as_str()),
        (StatusCode::OK, Some("declined"), Some("Still true"))
    );
    let (s, v) = post(&app, &sam, &format!("/api/org/self-edits/{}/approve", w["id"]), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(v["message"], format!("Self-edit #{} was already decided: it is declined", w["id"]));
    assert_eq!(row(&app, &scout, "scout", "Four.").await["active"], true);

    // A Decline from the page refused because the edit was decided meanwhile keeps the reason typed.
    let page = app.sign_in("sam").await;
    let id = w["id"].to_string();
    let fields =
        [("id", id.as_str()), ("back", "/org/improve"), ("decision", "decline"), ("reason", "Sam still uses it")];
    let r = app.form_post(&page, "/fn/decide_self_edit", &fields).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    let (_, html) = app.page(&page, "/org/improve").await;
    assert!(
        plain(&html).contains(&format!(
            "Self-edit #{id} was already decided: it is declined. Your reason was: \u{201c}Sam still uses it\u{201d}"
        )),
        "{}",
        plain(&html)
    );
}

/// A finished run of scout that reflect passes over (too few turns): a session and nothing more.
async fn session(app: &TestApp, wake: &str) -> String {
    app.org_cli(&["--as", "sam", "reflect", "scout", "--run", wake, "--turns", "1", "--reason", "task"]).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reflection_cycle_runs_every_ten_sessions_through_the_policy_and_is_an_episode() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    learn(&app, &model, "sam", "scout", "r1", &["I check the CRM first.", "I retry a blocked site."]).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let crm = row(&app, &scout, "scout", "I check the CRM first.").await["id"].as_i64().unwrap();
    let retry = row(&app, &scout, "scout", "I retry a blocked site.").await["id"].as_i64().unwrap();
    for i in 2..=9 {
        let out = session(&app, &format!("r{i}")).await;
        assert!(!out.contains("reflection for"), "not yet due after {i} sessions: {out}");
    }
    let asked = model.asked().len();

    // The tenth session's model call fails: logged, nothing recorded, and tried again next time.
    model.script([crate::model_server::Script::Status(500)]);
    let out = session(&app, "r10").await;
    assert!(out.contains("reflection for scout did not run: the model call failed"), "{out}");
    assert_eq!(model.asked().len(), asked + 1, "the cycle asked the model once");
    let (_, episodes) = get(&app, &scout, "/api/org/agents/scout/episodes").await;
    assert!(episodes.as_array().unwrap().iter().all(|e| e["trigger"] != "self_reflect"));

    model.reply(
        &json!({
            "strengthen": [{"id": crm, "reason": "It found owners in most sessions"}],
            "weaken": [{"id": retry, "reason": "Retries failed twice", "alternative": "I use the company registry when a site blocks me."}],
            "update": [],
            "missing": ["Which leads Bob owns"],
            "profile": "I research leads for Bengaluru."
        })
        .to_string(),
    );
    let out = session(&app, "r11").await;
    assert!(
        out.contains("reflection for scout on 10 sessions (episode ")
            && out.contains("3 edits applied, 1 waiting for a person, 0 refused"),
        "{out}"
    );
    assert!(out.contains("knowledge to acquire: Which leads Bob owns"), "{out}");
    let prompt = model.asked().last().unwrap().to_string();
    assert!(prompt.contains("episode:11") && !prompt.contains("episode:1\\\""), "the last 10 sessions: {prompt}");

    let (_, edits) = get(&app, &scout, "/api/org/agents/scout/self-edits").await;
    let edits = edits.as_array().unwrap();
    let reasons: Vec<_> = edits.iter().map(|e| (e["action"].as_str().unwrap(), e["state"].as_str().unwrap())).collect();
    assert_eq!(
        reasons,
        [("replace", "waiting"), ("append", "applied"), ("weaken", "applied"), ("strengthen", "applied")]
    );
    assert_eq!(edits[3]["reason"], "reflection: It found owners in most sessions");
    assert_eq!(row(&app, &scout, "scout", "I retry a blocked site.").await["worth"], -1);
    assert_eq!(row(&app, &scout, "scout", "I use the company registry when a site blocks me.").await["active"], true);

    let (_, episodes) = get(&app, &scout, "/api/org/agents/scout/episodes").await;
    let cycle = &episodes[0];
    assert_eq!(cycle["trigger"], "self_reflect");
    assert!(cycle["summary"].as_str().unwrap().contains("Knowledge to acquire: Which leads Bob owns."), "{cycle}");
    let sam = app.sign_in("sam").await;
    let (_, html) = app.page(&sam, "/org/agents/scout").await;
    assert!(html.contains("Knowledge to acquire") && html.contains("Which leads Bob owns"), "shown on the agent page");

    // Asked for again with no session since: it does not run, and no model is asked.
    let asked = model.asked().len();
    let (s, v) = post(&app, &scout, "/api/org/self/reflect", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["not_run"], "no session has finished since the last reflection");
    assert_eq!(model.asked().len(), asked);
    // After one more session, the bot asks through the tool's reflect action, on that one session.
    session(&app, "r12").await;
    model.reply(&json!({"strengthen": [], "weaken": [], "update": [], "missing": [], "profile": null}).to_string());
    let (s, v) = edit(&app, &scout, json!({"action": "reflect", "target": "profile", "reason": "asked"})).await;
    assert_eq!((s, v["reviewed"].as_array().map(Vec::len)), (StatusCode::OK, Some(1)), "{v}");
    let (s, _) = post(&app, &scout, "/api/org/self/reflect", json!({"agent": "builder"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a bot reflects only on its own sessions");
}

/// What bots send is stored, refused requests too, so a body past 8 KiB is refused where it
/// arrives: nothing is recorded, and the bot is told the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_request_past_eight_kib_is_refused_and_records_nothing() {
    let model = ModelServer::start().await;
    let app = spawn_bots_app(model.openai_settings(), 200).await;
    learn(&app, &model, "sam", "scout", "r1", &["I check the CRM first."]).await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    let long = "x".repeat(9 * 1024);
    let (s, v) =
        edit(&app, &scout, json!({"action": "append", "target": "fact", "content": "ok", "reason": long})).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    assert_eq!(v["message"], "A request to the bots' API can be at most 8 KiB");
    let (s, v) =
        edit(&app, &scout, json!({"action": "append", "target": "fact", "content": long, "reason": "r"})).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    let (_, edits) = get(&app, &scout, "/api/org/agents/scout/self-edits").await;
    assert_eq!(edits, json!([]), "nothing was recorded, refused or not");
    // Under the limit, a long content is refused for what it says, and recorded as refused.
    let (s, v) =
        edit(&app, &scout, json!({"action": "append", "target": "fact", "content": "y".repeat(400), "reason": "r"}))
            .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["self_edit"]["state"], "refused", "{v}");
}
