//! Agents and their access against the running server: New agent, team copies (and a copy's run
//! loading its team's core), toolsets, who a toolset admits (narrowing at the next read),
//! clearance with what it means, own keys, every refusal's sentence, and the pages' plain posts.

use crate::agent_model_server::AgentModelServer;
use crate::cards::{person, spawn_cards};
use crate::helpers::bearer_post as post_with_token;
use crate::helpers::*;
use crate::runs::{ask, messages, write_sales_core, SALES_CORE_HEADER, STAGES};
use engine::org::AuditEntry;
use engine::runs::block::AGENT_SYSTEM;
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

async fn ids(app: &TestApp) -> engine::org::Directory {
    app.store.directory().await.unwrap()
}

async fn agent_id(app: &TestApp, name: &str) -> i64 {
    ids(app).await.agents.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no agent {name}")).id.0
}

async fn team_id(app: &TestApp, name: &str) -> i64 {
    ids(app).await.teams.iter().find(|t| t.name == name).unwrap().id.0
}

async fn role_id(app: &TestApp, name: &str) -> i64 {
    ids(app).await.roles.iter().find(|r| r.name == name).unwrap().id.0
}

async fn audited(app: &TestApp, action: &str) -> Vec<AuditEntry> {
    app.store.audit_log(500).await.unwrap().into_iter().filter(|e| e.action == action).collect()
}

async fn my_cards(app: &TestApp, c: &Client) -> Vec<String> {
    let (status, cards) = app.get_json(c, "/api/memory/cards").await;
    assert_eq!(status, StatusCode::OK, "{cards}");
    cards.as_array().unwrap().iter().map(|c| c["record_id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_creates_an_agent_with_a_session_or_a_token() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (sales, alice) = (role_id(&app, "Sales").await, person(&app, "alice").await);
    let new = json!({"name": " Deal Desk ", "role": sales, "owner": alice.id.0, "description": "Prices deals."});
    let (status, a) = post(&ada, &app, "/api/agents", new).await;
    assert_eq!(status, StatusCode::CREATED, "{a}");
    assert_eq!(
        (&a["name"], &a["template"], &a["role"], &a["owner"], &a["team_copy"], &a["description"]),
        (
            &json!("Deal Desk"),
            &json!("hand-made"),
            &json!(sales),
            &json!(alice.id.0),
            &Value::Null,
            &json!("Prices deals.")
        )
    );
    let id = a["id"].as_i64().unwrap();
    let created = audited(&app, "agent.create").await;
    assert!(
        created.iter().any(|e| e.subject == format!("agent:{id}") && e.detail.starts_with("Deal Desk")),
        "{created:?}"
    );

    // Its page as data: no toolsets yet, cleared for internal (the default), and what that means.
    let (status, page) = app.get_json(&ada, &format!("/api/agents/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["clearance"], "internal");
    assert_eq!(page["clearance_meaning"], "this agent's model may be given cards labelled up to internal");
    assert_eq!((&page["owner_name"], &page["role_name"]), (&json!("Alice Chen"), &json!("Sales")));

    // An admin's token works as well as a session; the role may be left out.
    let token = token_for(&app, "ada").await;
    let (status, b) =
        post_with_token(&app, &token, "/api/agents", json!({"name": "Notetaker", "owner": alice.id.0})).await;
    assert_eq!(status, StatusCode::CREATED, "{b}");
    assert_eq!((&b["role"], &b["description"]), (&Value::Null, &json!("")));

    // Refusals, each in its own words, and nothing written.
    let before = ids(&app).await.agents.len();
    let alice_c = app.sign_in("alice").await;
    let cases = [
        (
            &alice_c,
            json!({"name": "Mine", "owner": alice.id.0}),
            StatusCode::FORBIDDEN,
            refusal("not_allowed", "Only an admin can add an agent"),
        ),
        (
            &ada,
            json!({"name": "Deal Desk", "owner": alice.id.0}),
            StatusCode::CONFLICT,
            refusal("duplicate", "There is already an agent called Deal Desk"),
        ),
        (
            &ada,
            json!({"name": "  ", "owner": alice.id.0}),
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "An agent needs a name"),
        ),
        (
            &ada,
            json!({"name": "a\nb", "owner": alice.id.0}),
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "An agent's name must be on one line"),
        ),
        (
            &ada,
            json!({"name": "x".repeat(81), "owner": alice.id.0}),
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "An agent's name can be at most 80 characters"),
        ),
        (
            &ada,
            json!({"name": "Ghost", "owner": 9999}),
            StatusCode::NOT_FOUND,
            refusal("not_found", "There is no such person"),
        ),
        (
            &ada,
            json!({"name": "Ghost", "owner": alice.id.0, "role": 9999}),
            StatusCode::NOT_FOUND,
            refusal("not_found", "There is no such role"),
        ),
        (
            &ada,
            json!({"name": "Wordy", "owner": alice.id.0, "description": "w".repeat(1001)}),
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "An agent's description can be at most 1000 characters"),
        ),
    ];
    for (c, b, status, want) in cases {
        let (got, answer) = post(c, &app, "/api/agents", b.clone()).await;
        assert_eq!((got, answer), (status, want), "{b}");
    }
    let ada_p = person(&app, "ada").await;
    let eve = person(&app, "eve").await;
    app.org.people.person_leaves(&ada_p, eve.id).await.unwrap();
    let (status, answer) = post(&ada, &app, "/api/agents", json!({"name": "Left", "owner": eve.id.0})).await;
    assert_eq!(
        (status, answer),
        (StatusCode::UNPROCESSABLE_ENTITY, refusal("invalid", "Eve Moreau has left and cannot own an agent"))
    );
    assert_eq!(ids(&app).await.agents.len(), before);
    let (status, _) = app.get_json(&ada, "/api/agents/9999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_copy_loads_its_teams_core_and_is_made_once_per_team() {
    let model = AgentModelServer::start().await;
    let app = spawn_app_with_agent_model(&model).await;
    write_sales_core(&app).await;
    let ada = app.sign_in("ada").await;
    let (sales_assistant, platform) = (agent_id(&app, "Sales Assistant").await, team_id(&app, "Platform").await);
    assert!(app
        .save_core(&ada, &format!("team:{platform}"), 0, "Deploys freeze on Fridays.")
        .await
        .status()
        .is_success());

    // Ada is an admin (and the Sales Assistant's owner): she copies it for Platform.
    let (status, copy) =
        post(&ada, &app, &format!("/api/agents/{sales_assistant}/copy"), json!({"team": platform})).await;
    assert_eq!(status, StatusCode::CREATED, "{copy}");
    assert_eq!(copy["name"], "Sales Assistant (Platform)");
    assert_eq!((&copy["team_copy"], &copy["copy_of"]), (&json!(platform), &json!(sales_assistant)));
    let copy_id = copy["id"].as_i64().unwrap();
    // It holds what the agent holds, and is cleared as it is.
    let (_, original) = app.get_json(&ada, &format!("/api/agents/{sales_assistant}")).await;
    let (_, copied) = app.get_json(&ada, &format!("/api/agents/{copy_id}")).await;
    assert_eq!((&copied["toolsets"], &copied["clearance"]), (&original["toolsets"], &original["clearance"]));
    assert_eq!(copied["team_copy_name"], "Platform");
    assert!(audited(&app, "agent.copy").await.iter().any(|e| e.subject == format!("agent:{copy_id}")));

    // Alice, of Sales Bengaluru, asks the Platform copy: the Sales core, then Platform's team core.
    let alice = app.sign_in("alice").await;
    ask(&app, &alice, "Sales Assistant (Platform)", "what are our sales stages").await;
    let (system, _) = messages(model.requests().last().expect("a request"));
    let platform_header = "What the Platform team always knows (team core, version 1):";
    assert_eq!(
        system,
        format!("{AGENT_SYSTEM}\n\n{SALES_CORE_HEADER}\n{STAGES}\n\n{platform_header}\nDeploys freeze on Fridays.")
    );

    // Refusals.
    let path = format!("/api/agents/{sales_assistant}/copy");
    let (status, answer) = post(&ada, &app, &path, json!({"team": platform})).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::CONFLICT,
            refusal("duplicate", "Sales Assistant already has a copy for Platform: Sales Assistant (Platform)")
        )
    );
    let (status, answer) = post(&alice, &app, &path, json!({"team": team_id(&app, "Sales Bengaluru").await})).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::FORBIDDEN,
            refusal("not_allowed", "Only Sales Assistant's owner or an admin can copy it for a team")
        )
    );
    let (status, answer) = post(&ada, &app, &format!("/api/agents/{copy_id}/copy"), json!({"team": platform})).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "Sales Assistant (Platform) is already a team copy; copy Sales Assistant instead")
        )
    );
    let (status, answer) = post(&ada, &app, &path, json!({"team": 9999})).await;
    assert_eq!((status, answer), (StatusCode::NOT_FOUND, refusal("not_found", "There is no such team")));
    let (status, answer) = post(&ada, &app, "/api/agents/9999/copy", json!({"team": platform})).await;
    assert_eq!((status, answer), (StatusCode::NOT_FOUND, refusal("not_found", "There is no such agent")));

    // Whoever manages an agent copies it with their own token: Sue owns the Support Agent.
    let sue = token_for(&app, "sue").await;
    let support = agent_id(&app, "Support Agent").await;
    let desk = team_id(&app, "Sales Bengaluru").await;
    let (status, b) = post_with_token(&app, &sue, &format!("/api/agents/{support}/copy"), json!({"team": desk})).await;
    assert_eq!((status, &b["name"]), (StatusCode::CREATED, &json!("Support Agent (Sales Bengaluru)")), "{b}");
    assert_eq!(b["owner"], json!(person(&app, "sue").await.id.0), "a copy keeps its agent's owner");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolsets_are_given_by_the_manager_and_narrowing_who_they_admit_holds_at_the_next_read() {
    let c = spawn_cards().await;
    let app = &c.app;
    let ada = app.sign_in("ada").await;
    let alice = app.sign_in("alice").await;
    let sue = app.sign_in("sue").await;
    assert!(my_cards(app, &alice).await.contains(&"L-1001".to_string()));
    assert!(my_cards(app, &sue).await.contains(&"T-4411".to_string()));

    // Narrowing Acme ATS to Support: Alice's next read no longer gives her its cards; Sue's does.
    let path = format!("/api/connectors/{}/admits-roles", c.connector);
    let (status, b) = post(&ada, app, &path, json!({"roles": ["support"]})).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(b["admits_roles"], json!(["support"]));
    assert_eq!(b["message"], "Saved who Acme ATS admits. It admits Support only.");
    assert!(my_cards(app, &alice).await.is_empty(), "no longer admitted: her use goes at the next read");
    assert!(my_cards(app, &sue).await.contains(&"T-4411".to_string()));
    let settings = audited(app, "connector.settings").await;
    assert!(settings.iter().any(|e| e.detail.contains("admits support")), "{settings:?}");
    // None chosen admits everyone again, and the sheet says so.
    let (_, b) = post(&ada, app, &path, json!({"roles": []})).await;
    assert_eq!(b["message"], "Saved who Acme ATS admits. It admits everyone in the company: no role is chosen.");
    assert!(audited(app, "connector.settings").await.iter().any(|e| e.detail.contains("admits everyone")));
    let (status, answer) = post(&ada, app, &path, json!({"roles": ["sales", "astrology"]})).await;
    assert_eq!((status, answer), (StatusCode::UNPROCESSABLE_ENTITY, refusal("refused", "There is no role astrology")));
    let (status, answer) = post(&alice, app, &path, json!({"roles": ["sales"]})).await;
    assert_eq!(
        (status, answer),
        (StatusCode::UNPROCESSABLE_ENTITY, refusal("refused", "Only an admin can change a connector"))
    );
    assert!(
        app.store.connector(c.connector).await.unwrap().unwrap().admits_roles.is_empty(),
        "refusals change nothing"
    );

    // Toolsets: Sue manages the Support Agent, and her token takes it off Acme ATS.
    let support = agent_id(app, "Support Agent").await;
    let token = token_for(app, "sue").await;
    let (status, b) =
        post_with_token(app, &token, &format!("/api/agents/{support}/toolsets"), json!({"toolsets": []})).await;
    assert_eq!((status, &b["toolsets"]), (StatusCode::OK, &json!([])), "{b}");
    assert_eq!(
        app.memory.runs.running_agent(engine::org::AgentId(support)).await.unwrap().holds_toolsets,
        Vec::<i64>::new()
    );
    let (status, b) = post_with_token(
        app,
        &token,
        &format!("/api/agents/{support}/toolsets"),
        json!({"toolsets": [c.connector, c.connector]}),
    )
    .await;
    assert_eq!((status, &b["toolsets"]), (StatusCode::OK, &json!([c.connector])));
    let running = app.memory.runs.running_agent(engine::org::AgentId(support)).await.unwrap();
    assert_eq!(
        (running.holds_toolsets, running.cleared_for),
        (vec![c.connector], engine::cards::access::DataLabel::Public),
        "the clearance stays"
    );
    assert!(audited(app, "agent.toolsets").await.len() >= 2);

    let sales_assistant = agent_id(app, "Sales Assistant").await;
    let (status, answer) =
        post(&alice, app, &format!("/api/agents/{sales_assistant}/toolsets"), json!({"toolsets": []})).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::FORBIDDEN,
            refusal("not_allowed", "Only Sales Assistant's owner or an admin can change its toolsets")
        )
    );
    let (status, answer) =
        post(&ada, app, &format!("/api/agents/{sales_assistant}/toolsets"), json!({"toolsets": [9999]})).await;
    assert_eq!((status, answer), (StatusCode::NOT_FOUND, refusal("not_found", "There is no such toolset")));
    let (status, answer) = post(&ada, app, "/api/agents/9999/toolsets", json!({"toolsets": []})).await;
    assert_eq!((status, answer), (StatusCode::NOT_FOUND, refusal("not_found", "There is no such agent")));
    let (_, page) = app.get_json(&ada, &format!("/api/agents/{sales_assistant}")).await;
    assert_eq!(page["toolsets"][0]["held"], true, "refusals change nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_alone_sets_the_clearance_and_the_page_says_what_it_means() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let support = agent_id(&app, "Support Agent").await;
    let path = format!("/api/agents/{support}/clearance");
    let (status, b) = post(&ada, &app, &path, json!({"clearance": "confidential"})).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(b["meaning"], "this agent's model may be given cards labelled up to confidential");
    assert_eq!(
        app.memory.runs.running_agent(engine::org::AgentId(support)).await.unwrap().cleared_for,
        engine::cards::access::DataLabel::Confidential
    );
    let audit = audited(&app, "agent.clearance").await;
    assert!(audit.iter().any(|e| e.subject == format!("agent:{support}") && e.detail == "cleared for confidential"));

    // Sue manages the Support Agent, yet its clearance is an admin's alone, by session or token.
    let sue = app.sign_in("sue").await;
    let (status, answer) = post(&sue, &app, &path, json!({"clearance": "personal"})).await;
    let only_admin = refusal("not_allowed", "Only an admin can change an agent's clearance");
    assert_eq!((status, answer), (StatusCode::FORBIDDEN, only_admin.clone()));
    let token = token_for(&app, "sue").await;
    assert_eq!(
        post_with_token(&app, &token, &path, json!({"clearance": "personal"})).await,
        (StatusCode::FORBIDDEN, only_admin)
    );
    let (status, answer) = post(&ada, &app, &path, json!({"clearance": "secret"})).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            refusal("invalid", "Choose a clearance: public, internal, confidential or personal")
        )
    );
    let (status, _) = post(&ada, &app, "/api/agents/9999/clearance", json!({"clearance": "public"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The page: an admin gets the choice, with the meaning next to it; Sue reads it.
    let (status, html) = plain_page(&app, &ada, &format!("/company/agents/{support}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("this agent's model may be given cards labelled up to confidential"), "{html}");
    assert!(html.contains("Set clearance") && html.contains("Save toolsets"));
    let (_, html) = app.page(&sue, &format!("/company/agents/{support}")).await;
    assert!(html.contains("Clearance: confidential") && !html.contains("Set clearance"));
    assert!(html.contains("Save toolsets"), "Sue manages it, so she gives it toolsets");
    let alice = app.sign_in("alice").await;
    let (_, html) = app.page(&alice, &format!("/company/agents/{support}")).await;
    assert!(!html.contains("Save toolsets") && !html.contains("Set clearance"));
    let (status, _) = app.page(&alice, "/company/agents/9999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sets_a_tool_to_peoples_own_keys() {
    let c = spawn_cards().await;
    let app = &c.app;
    let ada = app.sign_in("ada").await;
    let alice = app.sign_in("alice").await;
    assert!(my_cards(app, &alice).await.contains(&"L-1001".to_string()));
    let path = format!("/api/connectors/{}/own-keys", c.connector);
    let lead_tools = json!(["list_leads", "get_lead", "search_leads"]);
    let (status, b) = post(&ada, app, &path, json!({"tools": lead_tools})).await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(b["own_key_tools"], lead_tools);
    assert_eq!(b["message"], "Saved Acme ATS. People's own keys for list_leads, get_lead and search_leads.");
    // Her company-key lead card is no longer shown: the source would give each person less now.
    assert!(!my_cards(app, &alice).await.contains(&"L-1001".to_string()));
    let modes = audited(app, "connector.key_mode").await;
    assert!(!modes.is_empty(), "the key change is audited");
    // Profile → Memory now asks her for her own key to Acme ATS.
    let me = person(app, "alice").await;
    let own = app.memory.connectors.own_key_connectors(&me).await.unwrap();
    assert!(own.iter().any(|(id, name, _)| *id == c.connector && name == "Acme ATS"));

    let (status, answer) = post(&ada, app, &path, json!({"tools": ["drop_database"]})).await;
    assert_eq!(
        (status, answer),
        (StatusCode::UNPROCESSABLE_ENTITY, refusal("refused", "drop_database is not a ticked tool of Acme ATS"))
    );
    let (status, answer) = post(&alice, app, &path, json!({"tools": []})).await;
    assert_eq!(
        (status, answer),
        (StatusCode::UNPROCESSABLE_ENTITY, refusal("refused", "Only an admin can change a connector"))
    );
    assert_eq!(
        app.store.connector(c.connector).await.unwrap().unwrap().own_key_tools.len(),
        3,
        "refusals change nothing"
    );

    // Back to the company key: the cards show again, nothing was lost.
    let (_, b) = post(&ada, app, &path, json!({"tools": []})).await;
    assert_eq!(b["message"], "Saved Acme ATS. No tool uses people's own keys.");
    assert!(my_cards(app, &alice).await.contains(&"L-1001".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_forms_work_as_plain_posts_and_keep_what_was_typed() {
    let c = spawn_cards().await;
    let app = &c.app;
    let ada = app.sign_in("ada").await;
    let (sales, alice) = (role_id(app, "Sales").await, person(app, "alice").await);
    let (sales_s, alice_s) = (sales.to_string(), alice.email.clone());

    // The list links each agent to its page and offers New agent and Copy for a team to Ada.
    let (_, html) = app.page(&ada, "/company/agents").await;
    let sales_assistant = agent_id(app, "Sales Assistant").await;
    assert!(html.contains(&format!("href=\"/company/agents/{sales_assistant}\"")));
    assert!(html.contains("New agent") && html.contains("Add agent") && html.contains("Copy for a team"));

    // New agent, refused: the page says why and keeps what was typed.
    let typed = [
        ("name", "Sales Assistant"),
        ("role", sales_s.as_str()),
        ("owner", alice_s.as_str()),
        ("description", "Typed with care."),
    ];
    let r = app.form_post(&ada, "/fn/create_agent", &typed).await;
    assert!(r.status().is_redirection());
    assert_eq!(r.headers()["location"].to_str().unwrap(), "/company/agents");
    let (_, html) = app.page(&ada, "/company/agents").await;
    assert!(html.contains("There is already an agent called Sales Assistant"));
    assert!(html.contains("value=\"Sales Assistant\"") && html.contains("Typed with care."));
    assert!(html.contains(&format!("name=\"owner\" value=\"{alice_s}\"")), "the owner typed stays typed");
    // The owner is a search field, never a list of everyone.
    assert!(!html.contains("<select name=\"owner\""));
    // An owner nobody is called, or a name two people share, is refused in words, keeping what was typed.
    let typed = [("name", "Deal Desk"), ("role", ""), ("owner", "Nobody Atall"), ("description", "")];
    app.form_post(&ada, "/fn/create_agent", &typed).await;
    let (_, html) = app.page(&ada, "/company/agents").await;
    assert!(html.contains("Nobody here is called Nobody Atall"), "{html}");
    assert!(html.contains("name=\"owner\" value=\"Nobody Atall\""));
    assert!(!ids(app).await.agents.iter().any(|a| a.name == "Deal Desk"), "nothing was added");
    // Accepted: it opens the new agent's page with a notice.
    // By whole name, ignoring case in A to Z, as a browser without JavaScript sends it.
    let typed =
        [("name", "Deal Desk"), ("role", sales_s.as_str()), ("owner", "alice chen"), ("description", "Prices deals.")];
    let r = app.form_post(&ada, "/fn/create_agent", &typed).await;
    let deal_desk = agent_id(app, "Deal Desk").await;
    assert_eq!(r.headers()["location"].to_str().unwrap(), format!("/company/agents/{deal_desk}"));
    let (_, html) = app.page(&ada, &format!("/company/agents/{deal_desk}")).await;
    assert!(html.contains("Added Deal Desk; give it toolsets below") && html.contains("Prices deals."));

    // Someone who is not an admin sees no New agent, and a post of theirs is refused in words.
    let sue = app.sign_in("sue").await;
    let (_, html) = app.page(&sue, "/company/agents").await;
    assert!(!html.contains("Add agent"));
    app.form_post(&sue, "/fn/create_agent", &[("name", "Mine"), ("role", ""), ("owner", "4"), ("description", "")])
        .await;
    let (_, html) = app.page(&sue, "/company/agents").await;
    assert!(html.contains("Only an admin can add an agent"));

    // Toolsets, ticked as a browser sends checkboxes (toolsets[]), and none ticked.
    let page = format!("/company/agents/{deal_desk}");
    let id = deal_desk.to_string();
    let connector = c.connector.to_string();
    app.form_post(&ada, "/fn/set_agent_toolsets", &[("agent", id.as_str()), ("toolsets[]", connector.as_str())]).await;
    let (_, html) = plain_page(app, &ada, &page).await;
    assert!(html.contains("Saved the agent's toolsets"), "{html}");
    assert_eq!(
        app.memory.runs.running_agent(engine::org::AgentId(deal_desk)).await.unwrap().holds_toolsets,
        vec![c.connector]
    );
    app.form_post(&ada, "/fn/set_agent_toolsets", &[("agent", id.as_str())]).await;
    assert!(app.memory.runs.running_agent(engine::org::AgentId(deal_desk)).await.unwrap().holds_toolsets.is_empty());

    // Clearance: Ada sets it; Alice, its owner, is refused in words.
    app.form_post(&ada, "/fn/set_agent_clearance", &[("agent", id.as_str()), ("clearance", "personal")]).await;
    let (_, html) = plain_page(app, &ada, &page).await;
    assert!(
        html.contains("Saved the clearance: this agent's model may be given cards labelled up to personal"),
        "{html}"
    );
    let alice_c = app.sign_in("alice").await;
    app.form_post(&alice_c, "/fn/set_agent_clearance", &[("agent", id.as_str()), ("clearance", "public")]).await;
    let (_, html) = plain_page(app, &alice_c, &page).await;
    assert!(html.contains("Only an admin can change an agent's clearance"));
    assert!(html.contains("Clearance: personal"));

    // Copy for a team.
    let platform = team_id(app, "Platform").await.to_string();
    let r = app.form_post(&ada, "/fn/copy_agent", &[("agent", id.as_str()), ("team", platform.as_str())]).await;
    let copy = agent_id(app, "Deal Desk (Platform)").await;
    assert_eq!(r.headers()["location"].to_str().unwrap(), format!("/company/agents/{copy}"));
    let (_, html) = app.page(&ada, &format!("/company/agents/{copy}")).await;
    assert!(html.contains("Added Deal Desk (Platform), a team copy"));
    app.form_post(&ada, "/fn/copy_agent", &[("agent", id.as_str()), ("team", platform.as_str())]).await;
    let (_, html) = app.page(&ada, "/company/agents").await;
    assert!(html.contains("Deal Desk already has a copy for Platform: Deal Desk (Platform)"));

    // The connector's page: who it admits, and own keys.
    let sheet = format!("/company/connectors/{}", c.connector);
    let (_, html) = plain_page(app, &ada, &sheet).await;
    assert!(html.contains("It admits everyone in the company: no role is chosen."));
    assert!(html.contains("With no role chosen, it admits everyone in the company."));
    assert!(html.contains("Save who it admits") && html.contains("Save own keys"));
    app.form_post(
        &ada,
        "/fn/set_admits_roles",
        &[("id", connector.as_str()), ("roles[]", "sales"), ("roles[]", "support")],
    )
    .await;
    let (_, html) = plain_page(app, &ada, &sheet).await;
    assert!(html.contains("Saved who Acme ATS admits. It admits Sales and Support only."), "{html}");
    assert_eq!(app.store.connector(c.connector).await.unwrap().unwrap().admits_roles, vec!["sales", "support"]);
    app.form_post(&ada, "/fn/set_admits_roles", &[("id", connector.as_str())]).await;
    assert!(app.store.connector(c.connector).await.unwrap().unwrap().admits_roles.is_empty());
    app.form_post(&ada, "/fn/set_own_key_tools", &[("id", connector.as_str()), ("tools[]", "list_leads")]).await;
    let (_, html) = plain_page(app, &ada, &sheet).await;
    assert!(html.contains("On people's own keys: list_leads."), "{html}");
    app.form_post(&ada, "/fn/set_own_key_tools", &[("id", connector.as_str()), ("tools[]", "drop_database")]).await;
    let (_, html) = plain_page(app, &ada, &sheet).await;
    assert!(html.contains("drop_database is not a ticked tool of Acme ATS"));
    assert!(html.contains("On people's own keys: list_leads."), "a refusal changes nothing");
}

/// A page's text with HTML's escaped apostrophes read back as typed.
async fn plain_page(app: &TestApp, c: &Client, path: &str) -> (StatusCode, String) {
    let (status, html) = app.page(c, path).await;
    (status, html.replace("&#x27;", "'").replace("&#39;", "'"))
}
