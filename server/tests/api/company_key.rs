//! Replacing a connector's company key through the browser's form, against a real Acme ATS over
//! HTTP whose key has been rotated: the new key is checked, stored unseen and used for the next
//! read; a refused key or a non-admin changes nothing.

use crate::helpers::*;
use demo::acme_ats::AtsConfig;
use engine::cards::access::DataLabel;
use engine::cards::source::{Freshness, KeyMode};
use engine::cards::store::NewConnector;
use engine::store::Actor;
use reqwest::StatusCode;

const OLD_KEY: &str = "acme-ats-key-before-rotation";
const NEW_KEY: &str = "acme-ats-key-after-rotation";

/// An Acme ATS that accepts only `NEW_KEY`, and a connector to it still holding `OLD_KEY`.
async fn rotated_source(app: &TestApp) -> (i64, tokio::task::JoinHandle<std::io::Result<()>>) {
    let config = AtsConfig { company_key: NEW_KEY.into(), ..AtsConfig::demo() };
    let (ats, task) = demo::acme_ats::spawn(config, 0).await.expect("the source");
    let new = NewConnector {
        name: "Acme ATS".into(),
        base_url: ats,
        key_mode: KeyMode::Company,
        ticked: vec![],
        label: DataLabel::Internal,
        admits_roles: vec![],
        keep_cards: true,
        facts: engine::cards::source::FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 30, hard_mins: 720 },
        hourly_limit: 600,
    };
    let actor = Actor { person: None, at: chrono::Utc::now() };
    let c = app.store.create_connector(&new, Some(OLD_KEY), actor).await.expect("the connector");
    (c.id, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_replaces_the_company_key_and_the_next_read_uses_it() {
    let app = spawn_app().await;
    let (id, _ats) = rotated_source(&app).await;
    let page = format!("/company/connectors/{id}");
    let ada = app.sign_in("ada").await;
    let (s, html) = app.page(&ada, &page).await;
    assert_eq!(s, StatusCode::OK);
    assert!(html.contains("The tools could not be listed"), "the rotated-out key is refused by the source");
    assert!(html.contains("Replace the company key") && html.contains("A company key is set."));
    assert!(html.contains(r#"name="company_key""#) && html.contains(r#"autocomplete="off""#));

    let r = app.form_post(&ada, "/fn/set_company_key", &[("id", &id.to_string()), ("company_key", NEW_KEY)]).await;
    assert!(r.status().is_redirection());
    assert_eq!(r.headers()["location"], page.as_str());
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Replaced the company key; it is stored and never shown again"), "the notice says so");
    assert!(!html.contains(NEW_KEY), "the key is never shown");
    assert!(html.contains("search_contacts") && !html.contains("The tools could not be listed"), "read with it");
    assert_eq!(app.store.company_key(id).await.unwrap().as_deref(), Some(NEW_KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_changes_nothing() {
    let app = spawn_app().await;
    let (id, _ats) = rotated_source(&app).await;
    let (id_text, page) = (id.to_string(), format!("/company/connectors/{id}"));
    let ada = app.sign_in("ada").await;
    app.form_post(&ada, "/fn/set_company_key", &[("id", &id_text), ("company_key", NEW_KEY)]).await;

    let r = app.form_post(&ada, "/fn/set_company_key", &[("id", &id_text), ("company_key", OLD_KEY)]).await;
    assert_eq!(r.headers()["location"], page.as_str());
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("refused that key; nothing was saved"), "the key is checked first");
    assert!(html.contains("search_contacts"), "the key in place still reads");
    assert_eq!(app.store.company_key(id).await.unwrap().as_deref(), Some(NEW_KEY));

    app.form_post(&ada, "/fn/set_company_key", &[("id", &id_text), ("company_key", "   ")]).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Enter the company key; it is stored and never shown again"));
    let ada_p = app.store.credentials("ada@acme.example").await.unwrap().unwrap().0;
    let missing = app.memory.connectors.set_company_key(&ada_p, 9_999, NEW_KEY).await.unwrap_err();
    assert!(matches!(missing, engine::cards::service::MemoryError::NotFound(_)), "{missing:?}");
    assert!(missing.to_string().contains("There is no such connector"), "{missing}");
    assert_eq!(app.store.company_key(id).await.unwrap().as_deref(), Some(NEW_KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_admin_replaces_the_company_key() {
    let app = spawn_app().await;
    let (id, _ats) = rotated_source(&app).await;
    let bob = app.sign_in("bob").await;
    let r = app.form_post(&bob, "/fn/set_company_key", &[("id", &id.to_string()), ("company_key", NEW_KEY)]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&bob, &format!("/company/connectors/{id}")).await;
    assert!(html.contains("Only an admin can change a connector"));
    assert_eq!(app.store.company_key(id).await.unwrap().as_deref(), Some(OLD_KEY), "nothing was saved");
    let bob_p = app.store.credentials("bob@acme.example").await.unwrap().unwrap().0;
    let direct = app.memory.connectors.set_company_key(&bob_p, id, NEW_KEY).await.unwrap_err();
    assert!(direct.to_string().contains("Only an admin can change a connector"), "{direct}");
}
