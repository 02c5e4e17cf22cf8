//! Setting how a company agent runs unasked, against the running server: its owner (Sue, for the
//! Support Agent) or an admin sets, reads and clears a schedule, pauses and resumes the agent,
//! and makes, rotates and clears its trigger, with a session or a token. Anyone else reads the
//! state and is refused a change with the sentence, changing nothing; bad `when` values are
//! refused with theirs; a trigger's secret is answered once and never again; a private agent has
//! none of it.

use crate::helpers::*;
use chrono::TimeZone;
use engine::org::{AgentId, AuditEntry};
use engine::runs::schedules::{hash_trigger_secret, TriggerFire};
use engine::Clock;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

async fn post(c: &Client, app: &TestApp, path: &str, b: Value) -> (StatusCode, Value) {
    let r = c.post(app.url(path)).json(&b).send().await.unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

fn refusal(code: &str, message: &str) -> Value {
    json!({"error": code, "message": message})
}

async fn support_agent(app: &TestApp) -> i64 {
    let dir = app.store.directory().await.unwrap();
    dir.agents.iter().find(|a| a.name == "Support Agent").expect("the demo's Support Agent").id.0
}

/// The audit rows about the agent's schedule, trigger and pause, oldest first.
async fn audited(app: &TestApp, agent: i64) -> Vec<AuditEntry> {
    const ACTIONS: [&str; 6] = [
        "agent.schedule",
        "agent.schedule_cleared",
        "agent.paused",
        "agent.resumed",
        "agent.trigger",
        "agent.trigger_cleared",
    ];
    let subject = agent.to_string();
    let mut rows: Vec<AuditEntry> = app
        .store
        .audit_log(500)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.subject == subject && ACTIONS.contains(&e.action.as_str()))
        .collect();
    rows.reverse();
    rows
}

/// 10:00 in Kolkata (the demo company's zone) on Tuesday 1 December 2026.
fn ten_in_kolkata() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc.with_ymd_and_hms(2026, 12, 1, 4, 30, 0).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_sets_reads_and_clears_a_schedule_and_pauses_the_agent() {
    let app = spawn_app().await;
    app.clock.set(ten_in_kolkata());
    let id = support_agent(&app).await;
    let sue = app.sign_in("sue").await;
    let path = |p: &str| format!("/api/agents/{id}/{p}");

    let (status, state) = app.get_json(&sue, &path("automation")).await;
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(
        state,
        json!({"agent": id, "zone": "Asia/Kolkata", "schedule": null, "trigger": null, "paused": false, "manages": true})
    );

    let body = json!({"instruction": " Summarise the open escalated tickets. ", "kind": "daily", "value": "09:00"});
    let (status, saved) = post(&sue, &app, &path("schedule"), body).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let schedule = &saved["schedule"];
    assert_eq!(schedule["instruction"], "Summarise the open escalated tickets.");
    assert_eq!(
        (&schedule["kind"], &schedule["value"], &schedule["when"]),
        (&json!("daily"), &json!("09:00"), &json!("Daily at 09:00"))
    );
    // 09:00 in Kolkata has passed today: tomorrow's, read in the company's zone.
    assert_eq!(schedule["next_due"], "2026-12-02T03:30:00Z");
    assert_eq!(schedule["next_due_local"], "Wed 2 Dec 2026, 09:00 (Asia/Kolkata)");

    let (_, state) = app.get_json(&sue, &path("automation")).await;
    assert_eq!(&state["schedule"], schedule);

    // A token of Sue's changes it as her session does.
    let token = token_for(&app, "sue").await;
    let body = json!({"instruction": "Summarise.", "kind": "every", "value": "2 hours"});
    let (status, saved) = bearer_post(&app, &token, &path("schedule"), body).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["schedule"]["when"], "Every 2 hours");
    let (status, state) = bearer_get(&app, &token, &path("automation")).await;
    assert_eq!((status, &state["schedule"]["value"]), (StatusCode::OK, &json!("120m")));

    let (status, paused) = post(&sue, &app, &path("pause"), json!({})).await;
    assert_eq!((status, paused), (StatusCode::OK, json!({"agent": id, "paused": true})));
    assert_eq!(app.get_json(&sue, &path("automation")).await.1["paused"], true);
    let (status, resumed) = post(&sue, &app, &path("resume"), json!({})).await;
    assert_eq!((status, resumed), (StatusCode::OK, json!({"agent": id, "paused": false})));

    let (status, cleared) = post(&sue, &app, &path("schedule/clear"), json!({})).await;
    assert_eq!((status, cleared), (StatusCode::OK, json!({"agent": id, "schedule": null})));
    assert_eq!(app.get_json(&sue, &path("automation")).await.1["schedule"], Value::Null);
    let (status, again) = post(&sue, &app, &path("schedule/clear"), json!({})).await;
    assert_eq!((status, again), (StatusCode::NOT_FOUND, refusal("not_found", "This agent has no schedule to clear")));

    // Every change is an audited row, and none quotes the instruction.
    let rows = audited(&app, id).await;
    let actions: Vec<&str> = rows.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["agent.schedule", "agent.schedule", "agent.paused", "agent.resumed", "agent.schedule_cleared"]
    );
    assert!(rows.iter().all(|e| !e.detail.contains("Summarise")), "{rows:?}");

    // An admin may change it too.
    let ada = app.sign_in("ada").await;
    let body = json!({"instruction": "Summarise.", "kind": "weekdays", "value": "08:30"});
    let (status, saved) = post(&ada, &app, &path("schedule"), body).await;
    assert_eq!((status, &saved["schedule"]["when"]), (StatusCode::OK, &json!("On weekdays at 08:30")));
    assert_eq!(app.get_json(&ada, &path("automation")).await.1["manages"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anyone_else_reads_it_and_is_refused_a_change_with_the_sentence_changing_nothing() {
    let app = spawn_app().await;
    app.clock.set(ten_in_kolkata());
    let id = support_agent(&app).await;
    let path = |p: &str| format!("/api/agents/{id}/{p}");
    let sue = app.sign_in("sue").await;
    let body = json!({"instruction": "Summarise the open escalated tickets.", "kind": "daily", "value": "09:00"});
    assert_eq!(post(&sue, &app, &path("schedule"), body).await.0, StatusCode::OK);
    let (_, before) = app.get_json(&sue, &path("automation")).await;
    let rows_before = audited(&app, id).await.len();

    let alice = app.sign_in("alice").await;
    let (status, seen) = app.get_json(&alice, &path("automation")).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert_eq!(seen["manages"], false);
    assert_eq!(seen["schedule"], before["schedule"]);

    let refused =
        refusal("not_allowed", "Only the agent's owner or an admin can change when Support Agent runs unasked");
    let changes = [
        ("schedule", json!({"instruction": "Do something else.", "kind": "every", "value": "1h"})),
        ("schedule/clear", json!({})),
        ("pause", json!({})),
        ("resume", json!({})),
        ("trigger/make", json!({})),
        ("trigger/clear", json!({})),
    ];
    for (p, b) in changes.clone() {
        let (status, answer) = post(&alice, &app, &path(p), b).await;
        assert_eq!((status, answer), (StatusCode::FORBIDDEN, refused.clone()), "{p}");
    }
    // The same with her token.
    let token = token_for(&app, "alice").await;
    for (p, b) in changes {
        let (status, answer) = bearer_post(&app, &token, &path(p), b).await;
        assert_eq!((status, answer), (StatusCode::FORBIDDEN, refused.clone()), "{p}");
    }
    assert_eq!(app.get_json(&sue, &path("automation")).await.1, before);
    assert_eq!(audited(&app, id).await.len(), rows_before);

    // No caller at all is asked to sign in.
    let (status, answer) = post(&client(), &app, &path("schedule/clear"), json!({})).await;
    assert_eq!((status, &answer["error"]), (StatusCode::UNAUTHORIZED, &json!("not_signed_in")));
    assert_eq!(app.get_json(&client(), &path("automation")).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_when_values_and_instructions_are_refused_with_their_sentences() {
    let app = spawn_app().await;
    let id = support_agent(&app).await;
    let sue = app.sign_in("sue").await;
    let path = format!("/api/agents/{id}/schedule");
    let good = "Summarise the open escalated tickets.";
    let cases = [
        (good, "hourly", "1", "A schedule runs daily, on weekdays or every so often: \"hourly\" is none of them"),
        (good, "daily", "9am", "Give the time as HH:MM, for example 09:00 (not \"9am\")"),
        (good, "weekdays", "9:00", "Give the time as HH:MM, for example 09:00 (not \"9:00\")"),
        (good, "daily", "25:00", "Give the time as HH:MM, for example 09:00 (not \"25:00\")"),
        (good, "every", "10m", "A schedule runs at most every 15 minutes: every 10 minutes is too often"),
        (
            good,
            "every",
            "25h",
            "A schedule runs at least once a day: for every 25 hours, make it daily at a time instead",
        ),
        (good, "every", "often", "Give how often as hours or minutes, for example 2h or 30m (not \"often\")"),
        ("   ", "daily", "09:00", "Write the instruction the agent follows each time first"),
    ];
    for (instruction, kind, value, sentence) in cases {
        let body = json!({"instruction": instruction, "kind": kind, "value": value});
        let (status, answer) = post(&sue, &app, &path, body).await;
        assert_eq!(
            (status, answer),
            (StatusCode::UNPROCESSABLE_ENTITY, refusal("invalid", sentence)),
            "{kind} {value}"
        );
    }
    // Too long, and holding a secret.
    let long = "x".repeat(engine::runs::schedules::INSTRUCTION_MAX_CHARS + 1);
    let (status, answer) =
        post(&sue, &app, &path, json!({"instruction": long, "kind": "daily", "value": "09:00"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        answer["message"].as_str().unwrap().starts_with("An instruction can be at most 4000 characters"),
        "{answer}"
    );
    // Joined from pieces, so a scanner reading this file does not take it for a real key.
    let secret =
        format!("Post to the ATS with the key {}{}", "sk-ant-", "api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD");
    let (status, answer) =
        post(&sue, &app, &path, json!({"instruction": secret, "kind": "daily", "value": "09:00"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(message.starts_with("The instruction holds an Anthropic"), "{answer}");
    assert!(!message.contains("abcdefghijklmnopqrstuvwxyz"), "the sentence shows the secret whole: {message}");
    // A body that is not the shape is refused before any rule.
    let (status, _) = post(&sue, &app, &path, json!({"instruction": good, "kind": "daily"})).await;
    assert!(status.is_client_error(), "{status}");

    // Nothing was saved or audited.
    let (_, state) = app.get_json(&sue, &format!("/api/agents/{id}/automation")).await;
    assert_eq!(state["schedule"], Value::Null);
    assert!(audited(&app, id).await.is_empty());
    assert!(app.store.schedule(AgentId(id)).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_triggers_secret_is_answered_once_and_a_rotation_stops_the_old_one() {
    let app = spawn_app().await;
    let id = support_agent(&app).await;
    let sue = app.sign_in("sue").await;
    let path = |p: &str| format!("/api/agents/{id}/{p}");

    let r = sue.post(app.url(&path("trigger/make"))).json(&json!({})).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let made = body(r).await;
    let first = made["secret"].as_str().unwrap().to_string();
    assert!(first.starts_with("trg_") && first.len() == 68, "{made}");
    assert_eq!((&made["url"], &made["rotated"]), (&json!(format!("/api/agents/{id}/trigger")), &json!(false)));
    assert_eq!(made["message"], "Copy the secret now; it is not shown again");

    // The state says there is a trigger and where, never its secret or its hash.
    let (_, state) = app.get_json(&sue, &path("automation")).await;
    assert_eq!(state["trigger"]["url"], format!("/api/agents/{id}/trigger"));
    let text = state.to_string();
    assert!(!text.contains(&first) && !text.contains(&hash_trigger_secret(&first)), "{text}");
    assert!(!text.contains("secret") && !text.contains("hash"), "{text}");

    // Made again, it rotates: a new secret, and the old one's hash no longer fires.
    let (status, rotated) = post(&sue, &app, &path("trigger/make"), json!({})).await;
    assert_eq!((status, &rotated["rotated"]), (StatusCode::OK, &json!(true)));
    let second = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    let now = app.clock.now();
    let fire = |s: &str| {
        let (store, hash) = (app.store.clone(), hash_trigger_secret(s));
        async move { store.fire_trigger(AgentId(id), &hash, now, 60).await }
    };
    assert_eq!(fire(&first).await.unwrap(), TriggerFire::Refused);
    assert_eq!(fire(&second).await.unwrap(), TriggerFire::Fired);

    // An Idempotency-Key keeps no trace of a secret: a retry with the same key rotates again
    // rather than answering the kept secret.
    let once = |key: &'static str| {
        sue.post(app.url(&path("trigger/make"))).header("Idempotency-Key", key).json(&json!({})).send()
    };
    let a = body(once("make-1").await.unwrap()).await["secret"].as_str().unwrap().to_string();
    let retry = once("make-1").await.unwrap();
    assert!(retry.headers().get("idempotent-replayed").is_none());
    let b = body(retry).await["secret"].as_str().unwrap().to_string();
    assert_ne!(a, b);
    assert_eq!(fire(&a).await.unwrap(), TriggerFire::Refused);

    let actions: Vec<String> =
        audited(&app, id).await.into_iter().map(|e| format!("{} {}", e.action, e.detail)).collect();
    assert_eq!(actions[..2], ["agent.trigger made".to_string(), "agent.trigger rotated".to_string()], "{actions:?}");

    let (status, cleared) = post(&sue, &app, &path("trigger/clear"), json!({})).await;
    assert_eq!((status, cleared), (StatusCode::OK, json!({"agent": id, "trigger": null})));
    assert_eq!(fire(&b).await.unwrap(), TriggerFire::Refused);
    assert_eq!(app.get_json(&sue, &path("automation")).await.1["trigger"], Value::Null);
    let (status, again) = post(&sue, &app, &path("trigger/clear"), json!({})).await;
    assert_eq!((status, again), (StatusCode::NOT_FOUND, refusal("not_found", "This agent has no trigger to clear")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_agent_has_no_schedule_or_trigger_and_anothers_is_no_agent() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let (status, mine) = post(&alice, &app, "/api/agents/private", json!({"name": "Inbox"})).await;
    assert_eq!(status, StatusCode::CREATED, "{mine}");
    let id = mine["id"].as_i64().unwrap();
    let path = |p: &str| format!("/api/agents/{id}/{p}");
    let private = refusal("invalid", "A private agent has no schedule or trigger: it works only when you ask it");
    let (status, answer) = app.get_json(&alice, &path("automation")).await;
    assert_eq!((status, answer), (StatusCode::UNPROCESSABLE_ENTITY, private.clone()));
    let body = json!({"instruction": "Sort my mail.", "kind": "daily", "value": "09:00"});
    let (status, answer) = post(&alice, &app, &path("schedule"), body.clone()).await;
    assert_eq!((status, answer), (StatusCode::UNPROCESSABLE_ENTITY, private.clone()));
    let (status, answer) = post(&alice, &app, &path("trigger/make"), json!({})).await;
    assert_eq!((status, answer), (StatusCode::UNPROCESSABLE_ENTITY, private));

    // To anyone else, an admin included, it is no agent at all.
    let none = refusal("not_found", "There is no such agent");
    for login in ["bob", "ada"] {
        let c = app.sign_in(login).await;
        let (status, answer) = app.get_json(&c, &path("automation")).await;
        assert_eq!((status, answer), (StatusCode::NOT_FOUND, none.clone()), "{login}");
        let (status, answer) = post(&c, &app, &path("schedule"), body.clone()).await;
        assert_eq!((status, answer), (StatusCode::NOT_FOUND, none.clone()), "{login}");
    }
    assert!(app.store.schedule(AgentId(id)).await.unwrap().is_none());
    assert!(app.store.trigger(AgentId(id)).await.unwrap().is_none());
    assert!(audited(&app, id).await.is_empty());
}

/// `engram agents …` as its arguments, against the test server's database: what it printed, or
/// its exit code and sentence.
pub(crate) async fn agents_cli(app: &TestApp, args: &str) -> Result<String, (u8, String)> {
    use clap::Parser;
    use server::cli::{Cli, Command};
    // Quoted words stay one argument: `"Support Agent"`.
    let mut words = Vec::new();
    for (i, part) in args.split('"').enumerate() {
        if i % 2 == 1 {
            words.push(part.to_string());
        } else {
            words.extend(part.split_whitespace().map(str::to_string));
        }
    }
    let cli = Cli::try_parse_from(["engram", "agents"].into_iter().map(String::from).chain(words)).unwrap();
    let Some(Command::Agents(agents)) = cli.command else { panic!("not an agents command: {args}") };
    let mut out = Vec::new();
    match server::cli::agents_cli::run(&agents, &app.settings, &mut out).await {
        Ok(()) => Ok(String::from_utf8(out).unwrap()),
        Err(e) => Err((e.code, e.message)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engram_agents_sets_the_schedule_and_prints_a_triggers_secret_once() {
    let app = spawn_app().await;
    let id = support_agent(&app).await;
    let set = agents_cli(
        &app,
        r#"schedule set --as sue "Support Agent" daily 09:00 "Summarise the open escalated tickets.""#,
    );
    let printed = set.await.unwrap();
    assert!(printed.starts_with("Set: Daily at 09:00; next due "), "{printed}");
    assert!(printed.trim_end().ends_with(", 09:00 (Asia/Kolkata)"), "{printed}");
    let shown = agents_cli(&app, &format!("schedule show --as alice {id}")).await.unwrap();
    assert!(shown.starts_with("Schedule: Daily at 09:00; next due "), "{shown}");
    assert!(
        shown.contains("Instruction: Summarise the open escalated tickets.\nTrigger: none\nPaused: no\n"),
        "{shown}"
    );

    // Anyone else is refused with the sentence, exit 3, and nothing changes.
    let refused = agents_cli(&app, r#"schedule clear --as alice "support agent""#).await.unwrap_err();
    assert_eq!(refused, (3, "Only the agent's owner or an admin can change when Support Agent runs unasked".into()));
    let bad = agents_cli(&app, r#"schedule set --as sue "Support Agent" every 10m Summarise"#).await.unwrap_err();
    assert_eq!(bad, (3, "A schedule runs at most every 15 minutes: every 10 minutes is too often".into()));
    assert_eq!(app.store.schedule(AgentId(id)).await.unwrap().unwrap().when.words(), "Daily at 09:00");
    let nobody = agents_cli(&app, r#"schedule show --as sue "Nobody""#).await.unwrap_err();
    assert_eq!(nobody, (3, "There is no agent called \"Nobody\"".into()));

    let rotate = agents_cli(&app, r#"trigger rotate --as sue "Support Agent""#).await.unwrap_err();
    assert_eq!(rotate.0, 3);
    assert!(rotate.1.starts_with("This agent has no trigger to rotate"), "{rotate:?}");
    let made = agents_cli(&app, r#"trigger make --as sue "Support Agent""#).await.unwrap();
    let secret = made.lines().last().unwrap().to_string();
    assert!(
        made.starts_with(&format!(
            "Made the trigger. Another system starts the agent by posting to /api/agents/{id}/trigger\n"
        )),
        "{made}"
    );
    assert!(secret.starts_with("trg_") && secret.len() == 68, "{made}");
    let shown = agents_cli(&app, &format!("schedule show --as sue {id}")).await.unwrap();
    assert!(shown.contains(&format!("Trigger: POST /api/agents/{id}/trigger (made ")), "{shown}");
    assert!(!shown.contains(&secret), "{shown}");
    let rotated = agents_cli(&app, r#"trigger rotate --as ada "Support Agent""#).await.unwrap();
    assert!(rotated.starts_with("Rotated the trigger's secret; the old one no longer works."), "{rotated}");
    let new = rotated.lines().last().unwrap();
    assert_ne!(new, secret);
    let old = app.store.fire_trigger(AgentId(id), &hash_trigger_secret(&secret), app.clock.now(), 60).await;
    assert_eq!(old.unwrap(), TriggerFire::Refused);

    assert_eq!(
        agents_cli(&app, r#"schedule pause --as sue "Support Agent""#).await.unwrap(),
        "Paused: it runs nothing unasked until it is resumed\n"
    );
    assert!(app.store.paused(AgentId(id)).await.unwrap());
    assert_eq!(agents_cli(&app, r#"schedule resume --as sue "Support Agent""#).await.unwrap(), "Resumed\n");
    assert_eq!(agents_cli(&app, r#"trigger clear --as sue "Support Agent""#).await.unwrap(), "Cleared the trigger\n");
    assert_eq!(agents_cli(&app, r#"schedule clear --as sue "Support Agent""#).await.unwrap(), "Cleared the schedule\n");
    assert!(app.store.trigger(AgentId(id)).await.unwrap().is_none());
    assert!(app.store.schedule(AgentId(id)).await.unwrap().is_none());
}

/// The agent's page, "Runs unasked", as a browser without JavaScript uses it: each form posts and
/// redirects back; a refused schedule keeps what was typed; a trigger's secret shows once; anyone
/// else reads the state without forms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_runs_unasked_forms_work_as_plain_posts() {
    let app = spawn_app().await;
    app.clock.set(ten_in_kolkata());
    let id = support_agent(&app).await;
    let (agent, page) = (id.to_string(), format!("/company/agents/{id}"));
    let sue = app.sign_in("sue").await;
    let (_, html) = app.page(&sue, &page).await;
    assert!(html.contains("Runs unasked") && html.contains("No schedule.") && html.contains("No trigger."), "{html}");
    assert!(html.contains("Save schedule") && html.contains("Make trigger") && html.contains(">Pause<"));

    let typed =
        [("agent", agent.as_str()), ("instruction", "Summarise the tickets."), ("kind", "every"), ("value", "5m")];
    let r = app.form_post(&sue, "/fn/set_agent_schedule", &typed).await;
    assert!(r.status().is_redirection());
    assert_eq!(r.headers()["location"].to_str().unwrap(), page);
    let (_, html) = app.page(&sue, &page).await;
    assert!(html.contains("A schedule runs at most every 15 minutes: every 5 minutes is too often"), "{html}");
    assert!(html.contains("Summarise the tickets.</textarea>") && html.contains("value=\"5m\""), "{html}");
    assert!(html.contains("No schedule."));
    assert!(app.store.schedule(AgentId(id)).await.unwrap().is_none());

    let typed =
        [("agent", agent.as_str()), ("instruction", "Summarise the tickets."), ("kind", "daily"), ("value", "09:00")];
    app.form_post(&sue, "/fn/set_agent_schedule", &typed).await;
    let (_, html) = app.page(&sue, &page).await;
    assert!(
        html.contains("Saved the schedule: Daily at 09:00. Next due Wed 2 Dec 2026, 09:00 (Asia/Kolkata)"),
        "{html}"
    );
    assert!(html.contains("Daily at 09:00 · next due Wed 2 Dec 2026, 09:00 (Asia/Kolkata)"), "{html}");

    app.form_post(&sue, "/fn/set_agent_paused", &[("agent", agent.as_str()), ("paused", "true")]).await;
    let (_, html) = app.page(&sue, &page).await;
    assert!(html.contains("Paused by its owner") && html.contains(">Resume<"), "{html}");
    assert!(app.store.paused(AgentId(id)).await.unwrap());

    app.form_post(&sue, "/fn/make_agent_trigger", &[("agent", agent.as_str())]).await;
    let (_, html) = app.page(&sue, &page).await;
    assert!(html.contains("Made the trigger"), "{html}");
    let at = html.find("<code class=\"secret\">").expect("the secret, once") + "<code class=\"secret\">".len();
    let secret = &html[at..at + 68];
    assert!(secret.starts_with("trg_"), "{secret}");
    assert!(html.contains(&format!("/api/agents/{id}/trigger")));
    let (_, again) = app.page(&sue, &page).await;
    assert!(!again.contains(secret) && !again.contains("class=\"secret\""), "the secret shows once");
    assert!(again.contains("Rotate secret") && again.contains("Clear trigger"));
    let fired = app.store.fire_trigger(AgentId(id), &hash_trigger_secret(secret), app.clock.now(), 60).await;
    assert_eq!(fired.unwrap(), TriggerFire::Paused, "the page's secret is the trigger's, and the agent is paused");

    // Alice reads it all, with no form and no secret; her post changes nothing.
    let alice = app.sign_in("alice").await;
    let (_, html) = app.page(&alice, &page).await;
    assert!(html.contains("Daily at 09:00 · next due") && html.contains("Paused by its owner"), "{html}");
    assert!(!html.contains("Save schedule") && !html.contains("Make trigger") && !html.contains("Rotate secret"));
    assert!(html.contains("Only the agent's owner or an admin can change when it runs unasked."));
    app.form_post(&alice, "/fn/clear_agent_schedule", &[("agent", agent.as_str())]).await;
    let (_, html) = app.page(&alice, &page).await;
    assert!(html.contains("Only the agent's owner or an admin can change when Support Agent runs unasked"), "{html}");
    assert!(app.store.schedule(AgentId(id)).await.unwrap().is_some());

    app.form_post(&sue, "/fn/clear_agent_trigger", &[("agent", agent.as_str())]).await;
    app.form_post(&sue, "/fn/clear_agent_schedule", &[("agent", agent.as_str())]).await;
    app.form_post(&sue, "/fn/set_agent_paused", &[("agent", agent.as_str()), ("paused", "false")]).await;
    let (_, html) = app.page(&sue, &page).await;
    assert!(
        html.contains("No schedule.") && html.contains("No trigger.") && !html.contains("Paused by its owner"),
        "{html}"
    );
}
