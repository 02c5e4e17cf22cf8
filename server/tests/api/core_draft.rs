//! Draft from what exists, through the pages' forms against the running server: the Sales
//! company core drafted from the Sales Assistant's playbook, the Acme ATS connector's notes for
//! agents and the company's glossary, by memory's model or by plain rules when none answers. The
//! draft opens in the editor and loads nowhere until someone saves it; a save made meanwhile
//! refuses it. Playbooks are their agent's owner's or an admin's, connectors' notes an admin's,
//! and a refused one keeps its text.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::runs::messages;
use demo::acme_ats::AtsConfig;
use demo::knowledge::{ATS_NOTES, GLOSSARY};
use engine::cores::CoreScope;
use engine::learning::draft::CORE_DRAFT_SYSTEM;
use engine::org::RoleSlug;
use reqwest::{Client, StatusCode};
use std::sync::Arc;

const EDITOR: &str = "/cores/company:role:sales/edit";
const ROLE: &str = "/company/roles/sales";

fn sales() -> CoreScope {
    CoreScope::Company(RoleSlug::parse("sales").unwrap())
}

/// The demo's Acme ATS connected, and its playbook, notes and glossary written.
async fn with_what_exists(app: &TestApp) -> tokio::task::JoinHandle<std::io::Result<()>> {
    let (ats, task) = demo::acme_ats::spawn(AtsConfig::demo(), 0).await.expect("the demo source");
    demo::cards::seed(app.store.as_ref(), &app.memory, app.clock.clone() as Arc<dyn engine::Clock>, &ats)
        .await
        .expect("connect the source");
    demo::knowledge::seed(app.store.as_ref(), app.clock.as_ref()).await.expect("the playbook and glossary");
    task
}

/// Presses Draft from what exists; returns where it went.
async fn draft(app: &TestApp, c: &Client) -> String {
    let r = app.form_post(c, "/fn/draft_core", &[("role", "sales")]).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    r.headers()["location"].to_str().unwrap().to_string()
}

async fn sales_assistant(app: &TestApp) -> i64 {
    let dir = app.store.directory().await.unwrap();
    dir.agents.iter().find(|a| a.name == "Sales Assistant").unwrap().id.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_model_the_rules_draft_from_what_exists_and_nothing_loads_until_it_is_saved() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;

    // Nothing written yet: nothing to draft from, said on the role's page.
    assert_eq!(draft(&app, &ada).await, ROLE);
    let (_, html) = app.page(&ada, ROLE).await;
    assert!(html.contains("There is nothing to draft from yet"), "the reason is shown");
    assert!(html.contains("Draft from what exists"), "the role's page offers it");

    let _ats = with_what_exists(&app).await;
    assert_eq!(draft(&app, &ada).await, EDITOR, "the draft opens in the editor");
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(html.contains("A draft from what exists, written by plain rules from"), "{html}");
    assert!(html.contains("Nothing loads until you save it."));
    assert!(html.contains("Quote in INR first, and in USD only when asked."), "the playbook");
    assert!(html.contains(ATS_NOTES.lines().next().unwrap()), "the connector's notes");
    assert!(GLOSSARY.iter().all(|g| html.contains(g)), "the glossary");
    assert!(html.contains("A new core"), "drafted over no version");
    assert_eq!(app.store.current_core(&sales()).await.unwrap(), None, "nothing is saved");
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(!html.contains("A draft from what exists"), "the draft was the editor's once, not stored");

    // Saved, it is the core's version 1, as any save.
    let text = "How Sales works:\n- Quote in INR first.";
    let r = app
        .form_post(
            &ada,
            "/fn/save_core",
            &[("scope", "company:role:sales"), ("based_on", "0"), ("text", text), ("note", "")],
        )
        .await;
    assert!(r.status().is_redirection());
    assert_eq!(app.store.current_core(&sales()).await.unwrap().unwrap().version, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_s_model_drafts_within_the_budget_and_a_failed_call_falls_back_to_the_rules() {
    let model = AgentModelServer::start().await;
    let mut models = model.openai_settings();
    models.reflect_model = Some("cheap".into());
    models.openai_price = 60;
    let app = spawn_app_with_models(models).await;
    let _ats = with_what_exists(&app).await;
    let ada = app.sign_in("ada").await;

    model.script([AgentReply::answer("How Sales works:\n- Quote in INR first.\n- Read a lead's stage before acting.")]);
    assert_eq!(draft(&app, &ada).await, EDITOR);
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(html.contains("written by memory&#x27;s model") || html.contains("written by memory's model"), "{html}");
    assert!(html.contains("- Read a lead"), "the model's text is in the editor");
    let sent: Vec<(String, String)> = model.requests().iter().map(messages).collect();
    let (system, user) = sent.last().unwrap();
    assert_eq!(system, CORE_DRAFT_SYSTEM);
    assert!(user.contains(&format!("<data id=\"playbook:{}\"", sales_assistant(&app).await)), "{user}");
    assert!(user.contains("source=\"company knowledge\""), "{user}");
    let day =
        engine::learning::nightly::company_day(app.store.as_ref(), engine::Clock::now(&*app.clock)).await.unwrap();
    assert!(app.store.spent_on(&day).await.unwrap() > 0, "counted in memory's spend ledger");

    model.script([AgentReply::Status(500)]);
    assert_eq!(draft(&app, &ada).await, EDITOR, "a failed call is not the end of the draft");
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(html.contains("written by plain rules"), "{html}");
    assert_eq!(app.store.current_core(&sales()).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_is_an_admins_and_a_save_made_meanwhile_refuses_it() {
    let app = spawn_app().await;
    let _ats = with_what_exists(&app).await;
    // Sam leads a Sales team, but the company core is an admin's.
    let sam = app.sign_in("sam").await;
    assert_eq!(draft(&app, &sam).await, ROLE);
    let (_, html) = app.page(&sam, ROLE).await;
    assert!(html.contains("Only an admin can change the company core for Sales"), "{html}");
    assert!(!html.contains("Draft from what exists"), "not offered to him");

    let ada = app.sign_in("ada").await;
    assert_eq!(draft(&app, &ada).await, EDITOR);
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(html.contains(r#"name="based_on" value="0""#), "drafted over no version");
    assert_eq!(app.save_core(&ada, "company:role:sales", 0, "Written meanwhile.").await.status(), StatusCode::CREATED);
    let r = app
        .form_post(
            &ada,
            "/fn/save_core",
            &[("scope", "company:role:sales"), ("based_on", "0"), ("text", "The draft"), ("note", "")],
        )
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&ada, EDITOR).await;
    assert!(html.contains("This core changed since you opened it: reload and try again"));
    assert_eq!(app.store.current_core(&sales()).await.unwrap().unwrap().text, "Written meanwhile.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn playbooks_are_their_owners_and_connectors_notes_an_admins_and_a_refused_one_keeps_its_text() {
    let app = spawn_app().await;
    let _ats = with_what_exists(&app).await;
    let agent = sales_assistant(&app).await.to_string();
    let page = format!("/company/agents/{agent}");
    let connector = app.store.connectors().await.unwrap()[0].id.to_string();
    let connector_page = format!("/company/connectors/{connector}");

    // Bob neither owns the Sales Assistant nor is an admin.
    let bob = app.sign_in("bob").await;
    let r = app.form_post(&bob, "/fn/save_playbook", &[("agent", &agent), ("text", "Anything goes")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&bob, &page).await;
    assert!(
        html.contains("Only Sales Assistant&#x27;s owner or an admin can change its playbook")
            || html.contains("Only Sales Assistant's owner or an admin can change its playbook"),
        "{html}"
    );
    assert!(app
        .store
        .playbook(engine::org::AgentId(agent.parse().unwrap()))
        .await
        .unwrap()
        .unwrap()
        .starts_with("Greet"));

    // Ada owns it: too long is refused with the count and keeps her text; then it saves.
    let ada = app.sign_in("ada").await;
    let long = "y".repeat(8_001);
    app.form_post(&ada, "/fn/save_playbook", &[("agent", &agent), ("text", &long)]).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("A playbook holds at most 8000 characters; this one has 8001"));
    assert!(html.contains(&format!("{long}</textarea>")), "the text is kept for the form");
    app.form_post(&ada, "/fn/save_playbook", &[("agent", &agent), ("text", "Quote in INR.")]).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Saved the playbook."));
    assert!(html.contains("Quote in INR.</textarea>"));
    let audit = app.store.audit_log(20).await.unwrap();
    assert!(audit.iter().any(|a| a.action == "agent_playbooks.save"), "audited");

    // Connectors' notes are an admin's.
    let r = app.form_post(&bob, "/fn/save_connector_notes", &[("connector", &connector), ("text", "Hi")]).await;
    assert!(r.status().is_redirection());
    assert_eq!(app.store.connector_notes(connector.parse().unwrap()).await.unwrap().as_deref(), Some(ATS_NOTES));
    app.form_post(&ada, "/fn/save_connector_notes", &[("connector", &connector), ("text", "Ids look like L-1.")]).await;
    let (_, html) = app.page(&ada, &connector_page).await;
    assert!(html.contains("Saved the notes for agents."));
    assert!(html.contains("Ids look like L-1.</textarea>"));
}
