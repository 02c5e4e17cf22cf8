//! What a run is given, against the running server, the demo's Acme ATS over HTTP and a stand-in
//! model that records every request: which cores load, byte-identical system prompts, budgets at
//! 10,000 people, labels, review mode, empty memory, acting for nobody, evals and own-key cards.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::cards::{person, spawn_cards_with, Cards};
use crate::helpers::*;
use crate::runs::{ask, messages, write_sales_core, SALES_CORE_HEADER, STAGES};
use engine::cards::source::KeyMode;
use engine::org::{AgentId, TeamId};
use engine::runs::block::{AGENT_SYSTEM, MEMORY_HEADING};
use engine::runs::service::RunRequest;
use engine::runs::RunKind;
use engine::store::{Actor, NewAgent, NewPerson};
use serde_json::{json, Value};

const NIMBUS: &str = "What stage is Nimbus Logistics at?";

async fn spawn_runs(model: &AgentModelServer) -> Cards {
    spawn_cards_with(model.openai_settings()).await
}

async fn team_id(app: &TestApp, name: &str) -> TeamId {
    app.store.directory().await.unwrap().teams.iter().find(|t| t.name == name).unwrap().id
}

async fn agent_id(app: &TestApp, name: &str) -> AgentId {
    app.store.directory().await.unwrap().agents.iter().find(|a| a.name == name).unwrap().id
}

fn last_request(model: &AgentModelServer) -> (String, String) {
    messages(model.requests().last().expect("a request"))
}

fn step_line(run: &Value) -> Option<String> {
    run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == "memory_used")
        .map(|s| s["line"].as_str().unwrap().into())
}

/// Adds an agent with a role, as an admin would.
async fn add_agent(app: &TestApp, name: &str, role: &str, team_copy: Option<TeamId>) -> AgentId {
    let dir = app.store.directory().await.unwrap();
    let role = dir.roles.iter().find(|r| r.name == role).unwrap().id;
    let owner = dir.people.iter().find(|p| p.is_admin).unwrap().id;
    let actor = Actor { person: Some(owner), at: chrono::Utc::now() };
    let new = NewAgent { name: name.into(), template: "hand-made".into(), role: Some(role), owner, team_copy };
    app.store.create_agent(&new, actor).await.unwrap().id
}

/// Keeps a card for the person of `like`'s use, from the same connector and tool as `like`, with
/// these fields: a card the test shapes itself.
async fn keep_like(
    app: &TestApp,
    like: &engine::cards::store::Card,
    like_use: &engine::cards::store::CardUse,
    record_id: String,
    fields: Vec<engine::cards::source::CardField>,
) -> i64 {
    let new = engine::cards::store::NewCard {
        connector: like.connector,
        tool: like.tool.clone(),
        kind: like.kind.clone(),
        record_id,
        version: None,
        fields,
        missing: vec![],
        read_with: like.read_with,
        read_as: like.read_as,
        label_when_read: like.label_when_read,
        open_when: None,
        read_at: like.read_at,
    };
    let card = app.store.upsert_card(&new).await.unwrap();
    let usage = engine::cards::store::CardUse { card: card.id, pinned: false, ..like_use.clone() };
    app.store.save_use(&usage).await.unwrap();
    card.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_loads_its_roles_company_core_and_a_team_core_only_of_the_same_role() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    write_sales_core(&app).await;
    let ada = app.sign_in("ada").await;
    let sales_team = team_id(&app, "Sales Bengaluru").await;
    let platform = team_id(&app, "Platform").await;
    for (scope, text) in [
        (format!("team:{}", sales_team.0), "Quote prices in INR first."),
        (format!("team:{}", platform.0), "Deploys freeze on Fridays."),
        ("company:role:marketing".to_string(), "Our tone is plain."),
    ] {
        assert!(app.save_core(&ada, &scope, 0, text).await.status().is_success());
    }
    add_agent(&app, "Campaign Writer", "Marketing", None).await;
    add_agent(&app, "Platform Campaign Writer", "Marketing", Some(platform)).await;
    let alice = app.sign_in("alice").await;

    // The Sales Assistant for Alice, of Sales Bengaluru: the Sales core and her team's.
    let run = ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    let team_header = "What the Sales Bengaluru team always knows (team core, version 1):";
    assert_eq!(
        last_request(&model).0,
        format!("{AGENT_SYSTEM}\n\n{SALES_CORE_HEADER}\n{STAGES}\n\n{team_header}\nQuote prices in INR first.")
    );
    assert_eq!(step_line(&run["run"]).unwrap(), "Read from memory: 2 cores and who's who");
    assert_eq!(
        run["run"]["memory_used"],
        json!([
            {"core": {"scope": {"company": "role:sales"}, "version": 1}},
            {"core": {"scope": {"team": sales_team.0}, "version": 1}},
            "slice"
        ])
    );
    assert_eq!(run["run"]["steps"][0]["words"][1], "Sales Bengaluru team core, version 1");

    // A marketing agent working for a Bengaluru sales rep does not load the Bengaluru sales core.
    ask(&app, &alice, "Campaign Writer", "draft a note").await;
    let header = "What the Marketing role always knows (company core, version 1):";
    assert_eq!(last_request(&model).0, format!("{AGENT_SYSTEM}\n\n{header}\nOur tone is plain."));

    // A team copy loads its own team's core, whoever it works for.
    ask(&app, &alice, "Platform Campaign Writer", "draft a note").await;
    let platform_header = "What the Platform team always knows (team core, version 1):";
    assert_eq!(
        last_request(&model).0,
        format!("{AGENT_SYSTEM}\n\n{header}\nOur tone is plain.\n\n{platform_header}\nDeploys freeze on Fridays.")
    );

    // A raised company core loads whole.
    let long = "Always name the stage. ".repeat(200);
    let r = ada.post(app.url("/api/memory/cores/company:role:sales/limit")).json(&json!({"limit": 6000})).send();
    assert!(r.await.unwrap().status().is_success());
    assert!(app.save_core(&ada, "company:role:sales", 1, long.trim()).await.status().is_success());
    ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    assert!(last_request(&model).0.contains(long.trim()), "the whole raised core");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_prompts_are_byte_identical_and_stored_text_never_reaches_them() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    write_sales_core(&c.app).await;
    let alice = c.app.sign_in("alice").await;
    let first = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    ask(&c.app, &alice, "Sales Assistant", "what are our sales stages").await;
    ask(&c.app, &alice, "Sales Assistant", "What do my notes on Nimbus Logistics say?").await;
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let systems: Vec<String> = requests.iter().map(|r| messages(r).0).collect();
    assert!(systems.iter().all(|s| s == &systems[0]), "byte-identical system prompts");
    assert_eq!(systems[0], format!("{AGENT_SYSTEM}\n\n{SALES_CORE_HEADER}\n{STAGES}"));
    // Every system message of every request, searched for what memory holds.
    for r in &requests {
        for m in r["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "system") {
            let text = m["content"].as_str().unwrap();
            for stored in ["Nimbus", "L-1001", "Alice Chen", "alice@acme.example", "Sam Rao", "Acme ATS"] {
                assert!(!text.contains(stored), "{stored} reached a system prompt");
            }
        }
    }
    // The card is quoted data in the person's turn, with its id, source and age.
    let (_, user) = messages(&requests[0]);
    assert!(user.starts_with(MEMORY_HEADING));
    let card_ref = first["run"]["memory_used"].as_array().unwrap().iter().find_map(|r| r["card"].as_str()).unwrap();
    assert!(user.contains(&format!("<data id=\"{card_ref}\" source=\"Acme ATS\" age=\"read ")), "{user}");
    let words = first["run"]["steps"][0]["words"].as_array().unwrap();
    assert!(words.iter().any(|w| w.as_str().unwrap().starts_with("lead L-1001 · Acme ATS · read ")), "{words:?}");
    assert!(step_line(&first["run"]).unwrap().starts_with("Read from memory: 1 core, who's who and "));
    assert_eq!(first["run"]["data_label"], "internal");
    assert_eq!(first["run"]["sources"], json!(["directory", "Acme ATS"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn free_text_loads_only_when_named_and_puts_the_run_in_review_mode() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let alice = c.app.sign_in("alice").await;
    let plain = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    assert_eq!(plain["run"]["review_mode"], false);
    assert!(!last_request(&model).1.contains("notes:"));
    let notes = ask(&c.app, &alice, "Sales Assistant", "What do my notes on Nimbus Logistics say?").await;
    assert_eq!(notes["run"]["review_mode"], true);
    assert!(last_request(&model).1.contains("notes:"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_not_cleared_for_a_section_goes_on_without_it() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let alice = c.app.sign_in("alice").await;
    // The Support Agent's model is cleared for public data only: no internal cards, no who's who.
    let support = ask(&c.app, &alice, "Support Agent", NIMBUS).await;
    assert_eq!(support["run"]["state"], "answered", "the run goes on");
    assert!(step_line(&support["run"]).is_none());
    assert_eq!(support["run"]["data_label"], "public");
    assert_eq!(last_request(&model), (AGENT_SYSTEM.to_string(), NIMBUS.to_string()));
    // The Sales Assistant, cleared for internal data, gets them, and its label rises.
    let sales = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    assert_eq!(sales["run"]["data_label"], "internal");
    assert!(step_line(&sales["run"]).unwrap().starts_with("Read from memory: who's who and "));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_memory_changes_nothing() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    // No cores, cards or list entries: who's who from the directory alone never loads.
    let run = ask(&app, &alice, "Sales Assistant", "what are our sales stages").await;
    assert_eq!(last_request(&model), (AGENT_SYSTEM.to_string(), "what are our sales stages".to_string()));
    assert!(step_line(&run["run"]).is_none(), "no Memory used step");
    assert_eq!(run["run"]["memory_used"], json!([]));
    let ada = app.sign_in("ada").await;
    assert_eq!(app.get_json(&ada, "/api/events").await.1, json!([]), "no event");
    assert_eq!(run["run"]["data_label"], "public");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_for_nobody_loads_only_its_roles_company_core_and_an_eval_carries_no_block() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    write_sales_core(&c.app).await;
    let ada = c.app.sign_in("ada").await;
    let sales_team = team_id(&c.app, "Sales Bengaluru").await;
    assert!(c.app.save_core(&ada, &format!("team:{}", sales_team.0), 0, "INR first.").await.status().is_success());
    let alice = person(&c.app, "alice").await;
    let sales = agent_id(&c.app, "Sales Assistant").await;

    let uses_before = c.app.store.all_uses().await.unwrap().len();
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::answer("Nimbus Logistics is at Proposal."),
    ]);
    let started = c
        .app
        .runs
        .start(RunRequest { kind: RunKind::Schedule, agent: sales, for_person: None, question: NIMBUS.into() })
        .await
        .unwrap();
    let run = c.app.runs.answering.execute(started.run).await.unwrap();
    assert_eq!(run.state, "answered");
    assert_eq!(
        serde_json::to_value(&run.memory_used).unwrap(),
        json!([{"core": {"scope": {"company": "role:sales"}, "version": 1}}])
    );
    assert_eq!(run.steps[0].line, "Read from memory: 1 core");
    assert_eq!(run.steps[1].line, "Read with get_lead from Acme ATS");
    let first = &model.requests()[0];
    assert_eq!(messages(first), (format!("{AGENT_SYSTEM}\n\n{SALES_CORE_HEADER}\n{STAGES}"), NIMBUS.to_string()));
    assert_eq!(c.app.store.all_uses().await.unwrap().len(), uses_before, "a run for nobody keeps no cards");

    // On people's own keys, a run acting for nobody does not read at all.
    let ada_p = person(&c.app, "ada").await;
    let own: Vec<String> = vec!["get_lead".into()];
    c.app.memory.connectors.set_key_mode(&ada_p, c.connector, KeyMode::Company, &own).await.unwrap();
    model.script([
        AgentReply::call("acme_ats__get_lead", json!({"id": "L-1001"})),
        AgentReply::answer("I could not read it."),
    ]);
    let started = c
        .app
        .runs
        .start(RunRequest { kind: RunKind::Schedule, agent: sales, for_person: None, question: NIMBUS.into() })
        .await
        .unwrap();
    let run = c.app.runs.answering.execute(started.run).await.unwrap();
    assert_eq!(
        run.steps[1].line,
        "Not read with get_lead from Acme ATS: Acme ATS reads with people's keys, and this run acts for nobody"
    );

    // An eval carries no block, whoever it is for.
    let started = c
        .app
        .runs
        .start(RunRequest {
            kind: RunKind::Eval,
            agent: sales,
            for_person: Some(alice.clone()),
            question: NIMBUS.into(),
        })
        .await
        .unwrap();
    let run = c.app.runs.answering.execute(started.run).await.unwrap();
    assert!(run.memory_used.is_empty() && run.steps.iter().all(|s| s.kind != "memory_used"));
    assert_eq!(last_request(&model), (AGENT_SYSTEM.to_string(), NIMBUS.to_string()));

    // A consult keeps no memory of its own: cores and who's who, never the person's cards.
    let started = c
        .app
        .runs
        .start(RunRequest { kind: RunKind::Consult, agent: sales, for_person: Some(alice), question: NIMBUS.into() })
        .await
        .unwrap();
    let run = c.app.runs.answering.execute(started.run).await.unwrap();
    assert_eq!(run.steps[0].line, "Read from memory: 2 cores and who's who");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_is_never_given_another_persons_own_key_cards() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let ada = person(&c.app, "ada").await;
    let lead_tools: Vec<String> = ["list_leads", "get_lead", "search_leads"].iter().map(|s| s.to_string()).collect();
    c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::Company, &lead_tools).await.unwrap();
    let alice = person(&c.app, "alice").await;
    c.app.memory.reads.read_as(&alice, c.connector, "get_lead", &json!({"id": "L-1001"}), "test").await.unwrap();

    let alice_c = c.app.sign_in("alice").await;
    let hers = ask(&c.app, &alice_c, "Sales Assistant", NIMBUS).await;
    let words = hers["run"]["steps"][0]["words"].to_string();
    assert!(words.contains("lead L-1001 · Acme ATS"), "her own-key card reaches her own run: {words}");
    let sam = c.app.sign_in("sam").await;
    let his = ask(&c.app, &sam, "Sales Assistant", NIMBUS).await;
    assert!(!his["run"]["memory_used"].to_string().contains("card"), "{}", his["run"]);
    assert!(!last_request(&model).1.contains("L-1001"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_block_stays_within_its_budgets_among_ten_thousand_people() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    write_sales_core(&c.app).await;
    let team = team_id(&c.app, "Sales Bengaluru").await;
    let actor = Actor { person: None, at: chrono::Utc::now() };
    for i in 0..10_000 {
        let p = NewPerson {
            name: format!("Rep Number{i:05}"),
            email: format!("rep{i:05}@acme.example"),
            password_hash: "!".into(),
            is_admin: false,
            main_team: Some(team),
        };
        c.app.store.create_person(&p, actor).await.unwrap();
    }
    let alice = c.app.sign_in("alice").await;
    let run = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let (system, user) = last_request(&model);
    let slice: String = user.split("<data id=\"card:").next().unwrap().to_string();
    assert!(
        engine::tokens::count_tokens(&slice) <= 1_000 + 40,
        "who's who within 1,000 tokens: {}",
        engine::tokens::count_tokens(&slice)
    );
    let total = engine::tokens::count_tokens(&system) + engine::tokens::count_tokens(&user);
    assert!(total <= 10_000, "the block stays about 10,000 tokens: {total}");
    assert!(user.contains("Rep Number00000"), "teammates load, up to the budget");
    assert!(!user.contains("Rep Number09999"), "not all of them");
    assert!(step_line(&run["run"]).unwrap().starts_with("Read from memory: 1 core, who's who and "));
}

/// A pinned card the question does not name pads the block, with its fields.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_card_the_question_does_not_name_pads_the_block_with_its_fields() {
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let alice_person = person(&c.app, "alice").await;
    let cards = c.app.memory.mine.my_cards(&alice_person).await.unwrap();
    let pinned = cards
        .iter()
        .find(|v| v.record_id != "L-1001" && !v.open_work && !v.fields.iter().any(|f| f.value.contains("Nimbus")))
        .expect("a card of Alice's that the question does not name");
    c.app.memory.reads.pin(&alice_person, pinned.card, true).await.unwrap();
    let alice = c.app.sign_in("alice").await;
    let run = ask(&c.app, &alice, "Sales Assistant", NIMBUS).await;
    let refs = run["run"]["memory_used"].as_array().unwrap();
    assert!(refs.contains(&json!({"card": format!("card:{}", pinned.card)})), "{refs:?}");
    let (_, user) = last_request(&model);
    assert!(user.contains(&format!("<data id=\"card:{}\" source=\"Acme ATS\"", pinned.card)), "{user}");
    for f in pinned.fields.iter().filter(|f| !f.free_text) {
        assert!(user.contains(&format!("{}: {}", f.name, f.value)), "{} of the pinned card in {user}", f.name);
    }
}

/// A question that names ten of the person's cards or more, of which fewer than ten match it
/// whole, still pads the block with a pinned card: the store reads the cards that pad with the
/// named ones only when fewer than ten are named, and the run reads again for them here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_naming_many_cards_that_few_match_still_pads_the_block() {
    use engine::cards::source::CardField;
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let alice_person = person(&c.app, "alice").await;
    let kept = c.app.store.kept(alice_person.id).await.unwrap();
    let (nimbus, nimbus_use) = kept
        .iter()
        .find(|(card, _)| card.fields.iter().any(|f| f.value == "Nimbus Logistics"))
        .expect("Alice keeps Nimbus Logistics");
    let pinned = kept
        .iter()
        .map(|(card, _)| card)
        .find(|card| card.id != nimbus.id && !card.open_work)
        .expect("another card of Alice's");
    c.app.memory.reads.pin(&alice_person, pinned.id, true).await.unwrap();
    // More cards than a run reads its pads beside, with "Glow" in a company name of several
    // words, not first: "glow" names each of them, and none matches "glow" alone, as a value of
    // several words matches whole or by its first word. So the pads are read again once the
    // selection wants them.
    let mut glow = Vec::new();
    for i in 0..engine::cards::select::READ_PADS_BELOW + 2 {
        let fields = vec![CardField { name: "company".into(), value: format!("Bright Glow {i}"), free_text: false }];
        let card = keep_like(&c.app, nimbus, nimbus_use, format!("L-9{i:03}"), fields).await;
        glow.push(card);
    }

    let alice = c.app.sign_in("alice").await;
    let run = ask(&c.app, &alice, "Sales Assistant", "What stage is Nimbus Logistics at, and the glow ones?").await;
    let refs = run["run"]["memory_used"].as_array().unwrap();
    let card_ref = |id: i64| json!({"card": format!("card:{id}")});
    assert!(refs.contains(&card_ref(nimbus.id)), "the card the question matches: {refs:?}");
    assert!(refs.contains(&card_ref(pinned.id)), "the pinned card pads: {refs:?}");
    assert!(glow.iter().all(|id| !refs.contains(&card_ref(*id))), "named, not matched, not loaded: {refs:?}");
}

/// The owners named on the cards a run loads join who's who, whether they are already around
/// the person (a teammate, read with the team) or not (someone in another team, read by email).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_named_on_the_loaded_cards_join_whos_who_around_the_person_or_not() {
    use engine::cards::source::CardField;
    let model = AgentModelServer::start().await;
    let c = spawn_runs(&model).await;
    let alice_person = person(&c.app, "alice").await;
    let dir = c.app.store.directory().await.unwrap();
    let teammate = dir
        .people
        .iter()
        .find(|p| p.id != alice_person.id && p.main_team.is_some() && p.main_team == alice_person.main_team)
        .expect("a teammate of Alice's");
    let lead_of = |t| dir.teams.iter().find(|team| Some(team.id) == t).and_then(|team| team.lead);
    let outside = dir
        .people
        .iter()
        .find(|p| {
            p.main_team != alice_person.main_team
                && Some(p.id) != alice_person.manager
                && Some(p.id) != lead_of(alice_person.main_team)
        })
        .expect("someone outside Alice's team");
    let (nimbus, nimbus_use) = c.app.store.kept(alice_person.id).await.unwrap().remove(0);
    let field = |name: &str, value: &str| CardField { name: name.into(), value: value.into(), free_text: false };
    let fields = vec![
        field("company", "Orbit Freight"),
        field("owner", &teammate.email),
        field("co_owner", &outside.email.to_uppercase()),
    ];
    let card = keep_like(&c.app, &nimbus, &nimbus_use, "L-7001".into(), fields).await;

    let alice = c.app.sign_in("alice").await;
    let run = ask(&c.app, &alice, "Sales Assistant", "What stage is Orbit Freight at?").await;
    assert!(run["run"]["memory_used"].as_array().unwrap().contains(&json!({"card": format!("card:{card}")})));
    let (_, user) = last_request(&model);
    let why = |p: &engine::org::Person| {
        let line = user
            .lines()
            .find(|l| l.contains(&format!(">{}, {}: ", p.name, p.email)))
            .unwrap_or_else(|| panic!("{user}"));
        line.split(": ").nth(1).unwrap().trim_end_matches("</data>").to_string()
    };
    assert!(why(teammate).ends_with("a teammate and named as owner on a card below"), "{user}");
    assert_eq!(why(outside), "named as owner on a card below", "{user}");
}
