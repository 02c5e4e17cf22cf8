//! Departments: new roles, teams' roles, people's own roles, agents' roles, with the audit trail.

use crate::helpers::*;
use reqwest::StatusCode;

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
    app.form_post(
        &ada,
        "/fn/set_team_role",
        &[("team", &founders.to_string()), ("role", &cs.to_string()), ("back", "/company/teams")],
    )
    .await;
    let (_, html) = app.page(&ada, "/company/teams").await;
    assert!(html.contains("Saved the team&#x27;s role") || html.contains("Saved the team's role"), "{html}");
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
