//! An agent's memory_scopes against the running server: set on its page by whoever manages it
//! (audited), they limit which lessons its runs load; none means no limit, company knowledge
//! always loads, and partner knowledge only where it is listed.

use crate::agent_model_server::{AgentModelServer, AgentReply};
use crate::helpers::*;
use crate::lessons::{decide, loaded, propose};
use crate::runs::ask;

const QUESTION: &str = "how do I quote Kaveri";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_memory_scopes_limit_the_lessons_its_runs_load() {
    let model = AgentModelServer::start().await;
    model.set_default(AgentReply::answer("Noted."));
    let app = spawn_app_with_agent_model(&model).await;
    let alice = app.sign_in("alice").await;
    let mine = propose(&app, &alice, "private", "Kaveri quotes are in INR").await["id"].as_i64().unwrap();
    let team = propose(&app, &alice, "team", "Kaveri quotes go to procurement first").await["id"].as_i64().unwrap();
    let company =
        propose(&app, &alice, "company", "Kaveri pays in 45 days after a quote").await["id"].as_i64().unwrap();
    let ada = app.sign_in("ada").await;
    for id in [team, company] {
        assert!(decide(&app, &ada, id, "accept").await.0.is_success());
    }
    let agent = app.store.directory().await.unwrap().agents.iter().find(|a| a.name == "Sales Assistant").unwrap().id.0;
    let page = format!("/company/agents/{agent}");
    let (_, html) = app.page(&alice, &page).await;
    assert!(html.contains("No limit: every lesson the person may read"));
    let mut all = loaded(&ask(&app, &alice, "Sales Assistant", QUESTION).await["run"]);
    all.sort();
    let mut expected = vec![format!("lesson:{mine}"), format!("lesson:{team}"), format!("lesson:{company}")];
    expected.sort();
    assert_eq!(all, expected, "no limit");

    // Bob neither owns the agent nor is an admin.
    let bob = app.sign_in("bob").await;
    let r = app.form_post(&bob, "/fn/set_memory_scopes", &[("agent", &agent.to_string()), ("scopes[]", "team")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&bob, &page).await;
    assert!(html.contains("Only Sales Assistant") && html.contains("can change its memory scopes"), "{html}");

    // Ada, an admin, limits it to team lessons: Alice's own stays out, company knowledge stays in.
    let r = app.form_post(&ada, "/fn/set_memory_scopes", &[("agent", &agent.to_string()), ("scopes[]", "team")]).await;
    assert!(r.status().is_redirection());
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Saved the agent&#x27;s memory scopes") || html.contains("Saved the agent's memory scopes"));
    assert!(html.contains("Only team lessons, and company knowledge"));
    let mut used = loaded(&ask(&app, &alice, "Sales Assistant", QUESTION).await["run"]);
    used.sort();
    let mut expected = vec![format!("lesson:{team}"), format!("lesson:{company}")];
    expected.sort();
    assert_eq!(used, expected);
    let audit = app.store.audit_log(20).await.unwrap();
    let row = audit.iter().find(|a| a.action == "agent.memory_scopes").expect("audited");
    assert_eq!(
        row.detail,
        "No limit: every lesson the person may read but partner knowledge → Only team lessons, and company knowledge"
    );

    // An unknown scope is refused, and nothing changes; the form keeps the boxes as they were ticked.
    let form = [("agent", agent.to_string()), ("scopes[]", "personal".into()), ("scopes[]", "partners".into())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    app.form_post(&ada, "/fn/set_memory_scopes", &form).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("is not a memory scope: use personal, team or partner"), "{html}");
    assert!(html.contains("Only team lessons, and company knowledge"));
    assert_eq!((ticked(&html, "personal"), ticked(&html, "team")), (true, false), "as ticked, not as stored");
    // Read once: the next visit shows what is stored.
    let (_, html) = app.page(&ada, &page).await;
    assert_eq!((ticked(&html, "personal"), ticked(&html, "team")), (false, true));

    // None ticked: no limit again.
    app.form_post(&ada, "/fn/set_memory_scopes", &[("agent", &agent.to_string())]).await;
    assert_eq!(loaded(&ask(&app, &alice, "Sales Assistant", QUESTION).await["run"]).len(), 3);

    // Partner knowledge waits for an admin, and then loads only into an agent that lists it.
    let text = "Kaveri quotes through Deccan Traders carry their margin";
    let partner = propose(&app, &alice, "partner", text).await["id"].as_i64().unwrap();
    assert!(!decide(&app, &bob, partner, "accept").await.0.is_success(), "only an admin reviews it");
    assert!(decide(&app, &ada, partner, "accept").await.0.is_success());
    let lesson = app.store.lesson(partner).await.unwrap().unwrap();
    assert_eq!(lesson.scope, engine::lessons::LessonScope::Partner);
    let used = loaded(&ask(&app, &alice, "Sales Assistant", QUESTION).await["run"]);
    assert_eq!(used.len(), 3, "with no limit, partner knowledge still waits to be listed");
    assert!(!used.contains(&format!("lesson:{partner}")));
    let form = [("agent", agent.to_string()), ("scopes[]", "personal".into()), ("scopes[]", "partner".into())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    app.form_post(&ada, "/fn/set_memory_scopes", &form).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Only personal and partner lessons, and company knowledge"), "{html}");
    let mut used = loaded(&ask(&app, &alice, "Sales Assistant", QUESTION).await["run"]);
    used.sort();
    let mut expected = vec![format!("lesson:{mine}"), format!("lesson:{company}"), format!("lesson:{partner}")];
    expected.sort();
    assert_eq!(used, expected);
}

/// Whether the page's memory-scope box for `scope` is ticked.
fn ticked(html: &str, scope: &str) -> bool {
    let at = html.find(&format!("name=\"scopes[]\" value=\"{scope}\"")).unwrap_or_else(|| panic!("no {scope} box"));
    let start = html[..at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap();
    html[start..end].contains("checked")
}
