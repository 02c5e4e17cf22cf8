//! Departments: new roles, teams' roles, people's own roles, agents' roles, with the audit trail.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admins_add_roles_and_put_teams_and_people_in_them() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let r = app.form_post(&ada, "/fn/create_role", &[("name", "Customer Success")]).await;
    assert_eq!(r.headers()["location"], "/company/roles");
    let (_, html) = app.page(&ada, "/company/roles").await;
    let html = plain(&html);
    assert!(html.contains("Added the role Customer Success (role:customer-success)"));
    assert!(html.contains("Customer Success</a> (role:customer-success): no company core yet (limit 2,000 tokens)"));
    // The same name again is refused in plain words.
    app.form_post(&ada, "/fn/create_role", &[("name", "customer success")]).await;
    let (_, html) = app.page(&ada, "/company/roles").await;
    assert!(html.contains("There is already a role called customer success"));

    let dir = app.org.directory().await.unwrap();
    let founders = dir.teams.iter().find(|t| t.name == "Founders' Office").unwrap().id;
    let cs = dir.roles.iter().find(|r| r.name == "Customer Success").unwrap().id;
    // Roles offers a role to the one team without one, and leaves changing a role to the team's page.
    let (_, html) = app.page(&ada, "/company/roles").await;
    assert_eq!(html.matches(">Set role</button>").count(), 1, "only the Founders' Office has no role: {html}");
    assert!(html.contains(&format!("name=\"team\" value=\"{founders}\"")));
    assert!(html.contains("Give each team without a role one here"), "the hint is for that form: {html}");
    app.form_post(
        &ada,
        "/fn/set_team_role",
        &[("team", &founders.to_string()), ("role", &cs.to_string()), ("back", "/company/roles")],
    )
    .await;
    let (_, html) = app.page(&ada, "/company/roles").await;
    assert!(html.contains("Saved the team&#x27;s role") || html.contains("Saved the team's role"), "{html}");
    assert!(!html.contains(">Set role</button>"), "every team has a role now: each changes on its own page");
    assert!(!html.contains("Give each team without a role one here"), "no form, so no hint for one");
    assert!(html.contains(&format!("/company/teams/{founders}")));
    let (_, html) = app.page(&ada, &format!("/company/teams/{founders}")).await;
    assert!(html.contains("/fn/choose_team_role"), "the team's page sets it: {html}");
    // Teams lists every team and leaves setting one's role to the team's own page.
    let (_, html) = app.page(&ada, "/company/teams").await;
    assert!(!html.contains(">Set role</button>") && html.contains(&format!("/company/teams/{founders}")));
    assert!(app.store.team(founders).await.unwrap().unwrap().role == Some(cs));

    // People take their team's role until an admin gives them their own.
    let alice = dir.people.iter().find(|p| p.name == "Alice Chen").unwrap().id;
    let (_, html) = app.page(&ada, &format!("/company/people?person={alice}")).await;
    let html = plain(&html);
    assert!(html.contains("Sales (from their team)"));
    assert!(html.contains("From their team (Sales)"));
    let support = dir.roles.iter().find(|r| r.name == "Support").unwrap().id;
    let r = app
        .form_post(&ada, "/fn/set_person_role", &[("person", &alice.to_string()), ("role", &support.to_string())])
        .await;
    assert_eq!(r.headers()["location"], format!("/company/people?person={alice}").as_str());
    let after = app.store.person(alice).await.unwrap().unwrap();
    assert_eq!(after.role_override, Some(support));

    let audit = app.store.audit_log(20).await.unwrap();
    assert!(audit.iter().any(|a| a.action == "role.create" && a.detail == "Customer Success"));
    assert!(audit.iter().any(|a| a.action == "team.role" && a.subject == format!("team:{founders}")));
    assert!(audit.iter().any(|a| a.action == "person.role" && a.detail == format!("none -> {support}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_who_are_not_admins_change_none_of_it() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    app.form_post(&alice, "/fn/create_role", &[("name", "Shadow")]).await;
    let (_, html) = app.page(&alice, "/company/roles").await;
    assert!(html.contains("Only an admin can add a role"));
    assert!(!html.contains("New role</button>"));
    let dir = app.org.directory().await.unwrap();
    assert!(dir.roles.iter().all(|r| r.name != "Shadow"));
    let (status, html) = app.page(&alice, "/company/people").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Only an admin can see People"));
    let team = dir.teams[0].id;
    app.form_post(
        &alice,
        "/fn/set_team_role",
        &[("team", &team.to_string()), ("role", ""), ("back", "/company/roles")],
    )
    .await;
    assert_eq!(app.store.team(team).await.unwrap().unwrap().role, dir.teams[0].role);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whoever_manages_an_agent_changes_its_role() {
    let app = spawn_app().await;
    let dir = app.org.directory().await.unwrap();
    let support_agent = dir.agents.iter().find(|a| a.name == "Support Agent").unwrap().id;
    let marketing = dir.roles.iter().find(|r| r.name == "Marketing").unwrap().id;
    let alice = app.sign_in("alice").await;
    app.form_post(
        &alice,
        "/fn/set_agent_role",
        &[("agent", &support_agent.to_string()), ("role", &marketing.to_string())],
    )
    .await;
    let (_, html) = app.page(&alice, "/company/agents").await;
    assert!(
        html.contains("Only Support Agent&#x27;s owner or an admin") || html.contains("Only Support Agent's owner")
    );
    let sue = app.sign_in("sue").await;
    app.form_post(
        &sue,
        "/fn/set_agent_role",
        &[("agent", &support_agent.to_string()), ("role", &marketing.to_string())],
    )
    .await;
    assert_eq!(app.store.agent(support_agent).await.unwrap().unwrap().role, Some(marketing));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sets_a_persons_manager_and_the_rules_hold() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let id = |name: &str| dir.people.iter().find(|p| p.name.starts_with(name)).unwrap().id;
    let (alice, sam, sue, eve) = (id("Alice"), id("Sam"), id("Sue"), id("Eve"));
    let set = |c: &reqwest::Client, person: i64, body: serde_json::Value| {
        let request = c.post(app.url(&format!("/api/people/{person}/manager"))).json(&body);
        async move {
            let r = request.send().await.unwrap();
            let status = r.status();
            (status, r.json::<serde_json::Value>().await.unwrap_or_default())
        }
    };
    let store = app.store.clone();
    let manager_of = |p| {
        let store = store.clone();
        async move { store.person(p).await.unwrap().unwrap().manager }
    };

    // Only an admin.
    let alice_c = app.sign_in("alice").await;
    let (status, body) = set(&alice_c, alice.0, json!({"manager": sam.0})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["message"], "Only an admin can set a person's manager");
    assert_eq!(manager_of(alice).await, None, "nothing changed");

    let (status, _) = set(&ada, alice.0, json!({"manager": sam.0})).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(manager_of(alice).await, Some(sam));
    let audit = app.store.audit_log(5).await.unwrap();
    assert!(audit.iter().any(|a| a.action == "person.manager" && a.detail == format!("none -> {sam}")), "{audit:?}");

    let (status, body) = set(&ada, alice.0, json!({"manager": alice.0})).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("A person cannot be their own manager"))
    );
    let (status, body) = set(&ada, alice.0, json!({"manager": 999_999})).await;
    assert_eq!((status, body["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such person")));
    let (status, body) = set(&ada, 999_999, json!({"manager": sam.0})).await;
    assert_eq!((status, body["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such person")));

    // Alice reports to Sam and Sam to Sue: Sue may not report to Alice, nor Sam to Alice.
    assert_eq!(set(&ada, sam.0, json!({"manager": sue.0})).await.0, StatusCode::NO_CONTENT);
    for person in [sue, sam] {
        let (status, body) = set(&ada, person.0, json!({"manager": alice.0})).await;
        assert_eq!(
            (status, body["message"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("That would make a circle of managers"))
        );
    }
    assert_eq!(manager_of(sue).await, None);

    // Someone who left manages nobody.
    app.org.people.person_leaves(&app.store.person(id("Ada")).await.unwrap().unwrap(), eve).await.unwrap();
    let (status, body) = set(&ada, alice.0, json!({"manager": eve.0})).await;
    assert_eq!((status, body["message"].as_str()), (StatusCode::NOT_FOUND, Some("There is no such person")));
    assert_eq!(manager_of(alice).await, Some(sam));

    // The manager is required: a body without it, or with a name, changes nothing.
    assert_eq!(set(&ada, alice.0, json!({})).await.0, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, body) = set(&ada, alice.0, json!({"manager": "Sam Rao"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["message"], "The manager must be a person's id, or null for no manager");
    assert_eq!(manager_of(alice).await, Some(sam));

    // Null clears it.
    assert_eq!(set(&ada, alice.0, json!({"manager": null})).await.0, StatusCode::NO_CONTENT);
    assert_eq!(manager_of(alice).await, None);
}
