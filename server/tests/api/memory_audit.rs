//! Seed 004 against the running server: the memory audit of a Hermes memories folder from the
//! command line, and of a bot's MEMORY.md and USER.md over the API, with a stand-in model, a
//! closed local port for an unreachable URL, the provider's model list, undo, and the triggers.

use crate::helpers::*;
use crate::model_server::{dead_url, ModelServer};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

async fn audit_cli(app: &TestApp, args: &[&str]) -> Result<String, server::bots_cli::CliError> {
    use clap::Parser;
    let parsed = server::cli::Cli::try_parse_from(["engram", "memory", "audit"].iter().chain(args))
        .map_err(|e| server::bots_cli::CliError { code: e.exit_code() as u8, message: e.to_string() })?;
    let Some(server::cli::Command::Memory(server::cli::Memory::Audit(a))) = parsed.command else {
        panic!("not an audit: {args:?}")
    };
    let mut out = Vec::new();
    server::memory_audit_cli::run(&a, &app.settings, &mut out).await?;
    Ok(String::from_utf8(out).expect("utf-8"))
}

async fn call(app: &TestApp, token: &str, path: &str, b: Option<Value>) -> (StatusCode, Value) {
    let req = match b {
        Some(b) => Client::new().post(app.url(path)).json(&b),
        None => Client::new().get(app.url(path)),
    };
    let r = req.bearer_auth(token).send().await.unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// The model's categories for entries 1..=n, in order; `Unclear` takes a why.
fn categories(cats: &[(&str, Option<&str>)]) -> String {
    let entries: Vec<Value> = cats
        .iter()
        .enumerate()
        .map(|(i, (c, shorter))| {
            if *c == "Unclear" {
                json!({"n": i + 1, "category": c, "why": "a name alone says nothing about where it belongs"})
            } else {
                json!({"n": i + 1, "category": c, "shorter": shorter})
            }
        })
        .collect();
    json!({ "entries": entries }).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hermes_folder_is_audited_with_every_category_and_action_and_undone() {
    let model = ModelServer::start().await;
    let dead = dead_url();
    // Both URLs are on this machine, which an audit never calls unless a test allows its stand-ins.
    let app = spawn_bots_app(with_stand_ins(model.openai_settings(), &[&model.base, &dead]), 200).await;
    let dir = tempfile::tempdir().unwrap();
    let memory = format!(
        "In this session we compared three CRMs.\n§\nVerbal offer from Zeta Foods, deal pending.\n§\n\
         As of March the pipeline held 40 leads.\n§\nCRM endpoint is {dead}/api\n§\n\
         Drafts use model: gpt-old for speed.\n§\nSam prefers bullet points.\n§\n\
         Never send a quote without approval.\n§\nZeta Foods."
    );
    let user = format!(
        "Sam's time zone is Asia/Kolkata, as Sam said.\n§\nBuild server config at {}/v1/models\n§\nSam prefers bullet points.",
        model.base
    );
    std::fs::write(dir.path().join("MEMORY.md"), &memory).unwrap();
    std::fs::write(dir.path().join("USER.md"), &user).unwrap();
    let reply = categories(&[
        ("Session Note", None),
        ("Temporary State", None),
        ("Historical Snapshot", None),
        ("Technical Config", None),
        ("Technical Config", None),
        ("Preference", None),
        ("Operating Rule", None),
        ("Unclear", None),
        ("Identity", Some("Sam: Asia/Kolkata time.")),
        ("Technical Config", None),
        ("Preference", None),
    ]);
    model.reply(&reply);
    model.reply(&reply);
    let path = dir.path().to_str().unwrap();

    let dry = audit_cli(&app, &["--dir", path, "--dry-run"]).await.unwrap();
    assert!(dry.starts_with("DRY_RUN dir:"), "{dry}");
    assert_eq!(std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(), memory, "a dry run writes nothing");
    assert_eq!(std::fs::read_to_string(dir.path().join("USER.md")).unwrap(), user);
    assert!(dry.contains("would apply"), "{dry}");

    let out = audit_cli(&app, &["--dir", path]).await.unwrap();
    assert!(out.starts_with("COMPLETE dir:"), "{out}");
    for line in [
        "DELETE from MEMORY.md: \"In this session we compared three CRMs.\" (Session Note): applied",
        "DELETE from MEMORY.md: \"As of March the pipeline held 40 leads.\" (Stale): applied",
        "MOVE USER.md to MEMORY.md: ",
        "MOVE MEMORY.md to USER.md: \"Sam prefers bullet points.\": applied",
        "DELETE from USER.md: \"Sam prefers bullet points.\" (Duplicate of Sam prefers bullet points.): applied",
        "CORRECT \"Drafts use model: gpt-old for speed.\" to \"Drafts use model: gpt-4o-mini for speed.\": applied",
        "MOVE MEMORY.md to a skill file: \"Never send a quote without approval.\": left in place",
        "COMPRESS in USER.md: \"Sam's time zone is Asia/Kolkata, as Sam said.\" to \"Sam: Asia/Kolkata time.\": applied",
        "unresolved in MEMORY.md: \"Zeta Foods.\": the model could not place it: a name alone says nothing",
        "unresolved in MEMORY.md: \"Never send a quote without approval.\": an Operating Rule belongs in a skill file",
    ] {
        assert!(out.contains(line), "no {line:?} in\n{out}");
    }
    assert!(out.contains(&format!("MARK_UNVERIFIED {dead}/api")), "{out}");
    assert_eq!(out.matches("MARK_UNVERIFIED").count(), 1, "the reachable URL is not marked: {out}");
    let after_memory = std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    let after_user = std::fs::read_to_string(dir.path().join("USER.md")).unwrap();
    let entries = |t: &str| t.split("\n§\n").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        entries(&after_memory)[..5],
        [
            "Verbal offer from Zeta Foods, deal pending.".to_string(),
            format!("CRM endpoint is {dead}/api [UNVERIFIED]"),
            "Drafts use model: gpt-4o-mini for speed.".into(),
            "Never send a quote without approval.".into(),
            "Zeta Foods.".into(),
        ],
        "a temporary state first seen now stays; the reachable config moved in unmarked: {after_memory}"
    );
    assert_eq!(entries(&after_memory)[5], format!("Build server config at {}/v1/models", model.base));
    assert!(entries(&after_memory)[6].starts_with("MEMORY.md rewritten. Utilization: "), "{after_memory}");
    assert_eq!(
        entries(&after_user),
        vec![
            "Sam: Asia/Kolkata time.".to_string(),
            "Sam prefers bullet points.".into(),
            entries(&after_user)[2].clone(),
        ]
    );
    assert!(entries(&after_user)[2].starts_with("USER.md rewritten. Utilization: "));
    let asked = model.asked();
    let prompt = asked.last().unwrap()["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains("<data n=\"8\" source=\"MEMORY.md\">Zeta Foods.</data>"), "{prompt}");

    let id = out.lines().last().unwrap().split('#').nth(1).unwrap().split(';').next().unwrap().to_string();
    let elsewhere = tempfile::tempdir().unwrap();
    let wrong = audit_cli(&app, &["--undo", &id, "--dir", elsewhere.path().to_str().unwrap()]).await.unwrap_err();
    assert!(wrong.message.contains("undoes it with --dir naming that folder"), "{}", wrong.message);
    let wrong = audit_cli(&app, &["--undo", &id]).await.unwrap_err();
    assert!(wrong.message.contains("undoes it with --dir naming that folder"), "{}", wrong.message);
    let undone = audit_cli(&app, &["--undo", &id, "--dir", path]).await.unwrap();
    assert!(undone.starts_with(&format!("undid memory audit #{id}")), "{undone}");
    assert_eq!(std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(), memory);
    assert_eq!(std::fs::read_to_string(dir.path().join("USER.md")).unwrap(), user);
    let again = audit_cli(&app, &["--undo", &id, "--dir", path]).await.unwrap_err();
    assert!(again.message.contains("was undone already"), "{}", again.message);
    // Only the operator audits a folder.
    let refused = audit_cli(&app, &["--dir", path, "--as", "sam"]).await.unwrap_err();
    assert!(refused.message.contains("Only the host's operator audits a folder"), "{}", refused.message);
}

/// The settings with these stand-ins (`http://127.0.0.1:<port>`) allowed to the audit's checks.
fn with_stand_ins(models: server::llm::ModelSettings, urls: &[&str]) -> server::llm::ModelSettings {
    let mut models = models;
    models.outbound.stand_ins =
        urls.iter().map(|u| u.trim_start_matches("http://").parse().expect("a stand-in's address")).collect();
    models
}

fn write(app: &TestApp, file: &str, text: &str) {
    std::fs::write(app.vault().join(".agents/org/memory").join(file), text).unwrap();
}

fn read(app: &TestApp, file: &str) -> String {
    std::fs::read_to_string(app.vault().join(".agents/org/memory").join(file)).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_audit_hands_rules_to_a_person_deletes_stale_state_after_14_days_and_runs_on_its_triggers() {
    // No model answers: the plain rules categorise, as they do when the model is off or fails.
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let sam = token_for(&app, "sam").await;
    let eli = token_for(&app, "eli").await;
    let scout = app.org_cli(&["token", "scout", "--as", "sam"]).await.unwrap().trim().to_string();
    write(
        &app,
        "scout.md",
        "# Scout\n\n- Verbal offer from Zeta Foods, deal pending.\n- Never contact a lead directly; hand them over.\n- Bengaluru leads come first.\n",
    );
    let base = "/api/org/agents/scout/memory-audit";

    let (s, v) = call(&app, &eli, base, Some(json!({"dry_run": true}))).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    let (s, v) = call(&app, &scout, "/api/org/agents/helper/memory-audit", Some(json!({"dry_run": true}))).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a bot audits only its own files: {v}");
    let (s, state) = call(&app, &scout, base, None).await;
    assert_eq!(s, StatusCode::OK, "a bot reads its own audit state: {state}");
    assert_eq!(state["last_audit"], Value::Null);

    let (s, r) = call(&app, &sam, base, Some(json!({}))).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["status"], "COMPLETE");
    let card = r["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|a| a["outcome"].as_str().filter(|o| o.starts_with("improve card #")))
        .unwrap_or_else(|| panic!("no improve card: {r}"))
        .to_string();
    assert!(card.ends_with("filed to add it to knowledge/scout/qualifying.md"), "{card}");
    let unresolved: Vec<&str> =
        r["unresolved"].as_array().unwrap().iter().map(|u| u["entry"].as_str().unwrap()).collect();
    assert_eq!(unresolved, vec!["Bengaluru leads come first."], "no rule places it");
    assert!(read(&app, "scout.md").contains("Verbal offer"), "a temporary state first seen now stays");
    assert!(
        read(&app, "scout.md").contains("Never contact a lead directly"),
        "a rule stays until it is in a skill file"
    );

    // Sam applies the card; the next audit finds the rule in the skill file and removes it.
    let card_id = card.trim_start_matches("improve card #").split(' ').next().unwrap();
    let (s, v) = call(&app, &sam, &format!("/api/org/improve/{card_id}/apply"), Some(json!({}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let skill = std::fs::read_to_string(app.vault().join("knowledge/scout/qualifying.md")).unwrap();
    assert!(skill.ends_with("- Never contact a lead directly; hand them over.\n"), "{skill}");
    let (_, r) = call(&app, &sam, base, Some(json!({}))).await;
    assert!(
        r["actions"].to_string().contains("Operating Rule, now in knowledge/scout/qualifying.md"),
        "{}",
        r["actions"]
    );
    assert!(!read(&app, "scout.md").contains("Never contact"));
    assert!(read(&app, "scout.md").contains("Verbal offer"));

    // Fifteen days on, the temporary state is past its shelf life; the wake-done after a run is
    // the fortnightly audit's chance.
    app.clock.advance(chrono::Duration::days(15));
    let (s, w) = call(&app, &sam, "/api/org/wake", Some(json!({"agent": "scout", "reason": "assigned"}))).await;
    assert_eq!(s, StatusCode::CREATED, "{w}");
    let done = json!({"wakeups": [w["id"]], "run": "audit-1", "exit": 0, "result": "done"});
    let (s, d) = call(&app, &sam, "/api/org/wake-done", Some(done)).await;
    assert_eq!(s, StatusCode::OK, "{d}");
    assert!(d["notes"].to_string().contains("14 days since the last audit"), "{d}");
    assert!(!read(&app, "scout.md").contains("Verbal offer"), "{}", read(&app, "scout.md"));
    let (_, state) = call(&app, &sam, base, None).await;
    let last = state["audits"][0].clone();
    assert!(last["actions"].to_string().contains("Temporary State older than 14 days"), "{last}");
    assert_eq!(state["undoable"], last["id"]);

    // Undo puts both files back; a second undo, or one after the files changed, is refused.
    let before = last["memory_before"].as_str().unwrap().to_string();
    let (s, v) = call(&app, &sam, &format!("/api/org/memory-audits/{}/undo", last["id"]), Some(json!({}))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(read(&app, "scout.md"), before);
    let (s, v) = call(&app, &sam, &format!("/api/org/memory-audits/{}/undo", last["id"]), Some(json!({}))).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");

    let audits = |v: &Value| v["audits"].as_array().unwrap().len();
    let (_, state) = call(&app, &sam, base, None).await;
    let (n, last_id) = (audits(&state), state["audits"][0]["id"].clone());
    // The threshold: a file past 85% is audited at once after a run.
    let long: String = (0..40).map(|i| format!("- In this session we looked at lead number {i}.\n")).collect();
    write(&app, "scout.user.md", &long);
    let (_, w) = call(&app, &sam, "/api/org/wake", Some(json!({"agent": "scout", "reason": "assigned"}))).await;
    let (_, d) = call(
        &app,
        &sam,
        "/api/org/wake-done",
        Some(json!({"wakeups": [w["id"]], "run": "audit-2", "exit": 0, "result": "done"})),
    )
    .await;
    assert!(d["notes"].to_string().contains("USER.md at "), "{d}");
    assert_eq!(read(&app, "scout.user.md").matches("In this session").count(), 0, "session notes go");
    let (_, state) = call(&app, &sam, base, None).await;
    assert_eq!(audits(&state), n + 1);
    assert_ne!(state["audits"][0]["id"], last_id);

    // Words that ask for one: a wake whose reason says "memory is full" audits first.
    write(&app, "scout.md", "- Earlier today Sam asked for three leads.\n");
    let (s, _) =
        call(&app, &sam, "/api/org/wake", Some(json!({"agent": "scout", "reason": "Your memory is full, tidy it"})))
            .await;
    assert_eq!(s, StatusCode::CREATED);
    let after = read(&app, "scout.md");
    assert!(!after.contains("Earlier today") && after.starts_with("- MEMORY.md rewritten. Utilization: "), "{after}");
    let (_, state) = call(&app, &sam, base, None).await;
    assert_eq!(state["audits"][0]["trigger"], "requested");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_tick_audits_a_bot_past_the_threshold_once() {
    let app = spawn_bots_app(crate::model_server::no_models(), 200).await;
    let long: String = (0..40).map(|i| format!("- In this session we looked at lead number {i}.\n")).collect();
    write(&app, "scout.user.md", &long);
    let bots = server::bots_cli::open_bots(&app.settings).await.unwrap();
    server::jobs::run_memory_audits(&bots).await;
    let after = read(&app, "scout.user.md");
    assert!(!after.contains("In this session") && after.starts_with("- USER.md rewritten. Utilization: "), "{after}");
    let sam = token_for(&app, "sam").await;
    let (_, state) = call(&app, &sam, "/api/org/agents/scout/memory-audit", None).await;
    assert_eq!(state["audits"].as_array().unwrap().len(), 1, "{state}");
    assert!(state["audits"][0]["trigger"].as_str().unwrap().starts_with("USER.md at "), "{state}");
    assert_eq!(state["user_percent"], 2);
    // The next tick finds the files as the audit left them, and starts none.
    server::jobs::run_memory_audits(&bots).await;
    let (_, state) = call(&app, &sam, "/api/org/agents/scout/memory-audit", None).await;
    assert_eq!(state["audits"].as_array().unwrap().len(), 1);
    for other in ["helper", "builder"] {
        let (_, s) = call(&app, &sam, &format!("/api/org/agents/{other}/memory-audit"), None).await;
        assert_eq!(s["last_audit"], Value::Null, "{other} was under every threshold");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_checks_read_either_providers_list_and_any_answer_is_reachable() {
    use engine::persona::memory_audit_checks::{LiveChecks, Reach};
    use server::live_checks::HttpLiveChecks;
    let model = ModelServer::start().await;
    let ollama = HttpLiveChecks::new(model.ollama_settings()).provider_models().await.unwrap();
    assert_eq!((ollama.provider.as_str(), ollama.configured.as_str()), ("ollama", "llama3.2"));
    assert!(ollama.has("llama3.2") && !ollama.has("mistral"), "{ollama:?}");
    let openai = HttpLiveChecks::new(model.openai_settings()).provider_models().await.unwrap();
    assert_eq!(openai.models, vec!["gpt-4o-mini", "gpt-4.1"]);
    let dead = dead_url();
    let checks = HttpLiveChecks::new(with_stand_ins(model.openai_settings(), &[&model.base, &dead]));
    let page = format!("{}/no-such-page", model.base);
    assert_eq!(checks.reachable(&page).await, Reach::Answered, "a 404 is an answer");
    assert_eq!(checks.reachable(&dead).await, Reach::Silent, "a closed port is not");
    let Reach::NotAsked(why) = checks.reachable("file:///etc/passwd").await else { panic!("a file was asked") };
    assert!(why.starts_with("only http and https"), "{why}");
    let unlisted = HttpLiveChecks::new(model.openai_settings());
    assert!(matches!(unlisted.reachable(&page).await, Reach::NotAsked(_)), "a stand-in not allowed is not asked");
    let down = server::llm::ModelSettings { ollama_host: dead_url(), ..Default::default() };
    let why = HttpLiveChecks::new(down).provider_models().await.unwrap_err().to_string();
    assert!(why.ends_with("could not be reached"), "{why}");
}
