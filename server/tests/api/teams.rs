//! Teams, leads and moves: the API and the pages' plain form posts, each change with its audit
//! row, and every refusal in the sentence a person reads.

use crate::helpers::*;
use engine::org::{Directory, PersonId, RoleId, TeamId};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

async fn post(app: &TestApp, c: &Client, path: &str, body: Value) -> (StatusCode, Value) {
    let r = c.post(app.url(path)).json(&body).send().await.unwrap();
    (r.status(), body_of(r).await)
}

async fn post_as(app: &TestApp, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
    let r = Client::new().post(app.url(path)).bearer_auth(token).json(&body).send().await.unwrap();
    (r.status(), body_of(r).await)
}

async fn body_of(r: reqwest::Response) -> Value {
    r.json().await.unwrap_or(Value::Null)
}

async fn token_for(app: &TestApp, c: &Client) -> String {
    let (status, made) = post(app, c, "/api/tokens", json!({"name": "script"})).await;
    assert_eq!(status, StatusCode::CREATED);
    made["token"].as_str().unwrap().to_string()
}

fn person(dir: &Directory, name: &str) -> PersonId {
    dir.people.iter().find(|p| p.name.starts_with(name)).unwrap().id
}

fn team(dir: &Directory, name: &str) -> TeamId {
    dir.teams.iter().find(|t| t.name == name).unwrap().id
}

fn role(dir: &Directory, name: &str) -> RoleId {
    dir.roles.iter().find(|r| r.name == name).unwrap().id
}

/// A page's text as a person reads it: apostrophes unescaped.
fn words(html: &str) -> String {
    html.replace("&#x27;", "'").replace("&#39;", "'")
}

fn refusal(status: StatusCode, message: &str) -> (StatusCode, Option<String>) {
    (status, Some(message.to_string()))
}

fn answer((status, body): (StatusCode, Value)) -> (StatusCode, Option<String>) {
    (status, body["message"].as_str().map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_makes_renames_and_leads_a_team_each_change_audited() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let (support, bob, eve) = (role(&dir, "Support"), person(&dir, "Bob"), person(&dir, "Eve"));

    let (status, made) = post(&app, &ada, "/api/teams", json!({"name": " Night Desk ", "role": support.0})).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(
        (made["name"].as_str(), made["role"].as_i64(), &made["lead"]),
        (Some("Night Desk"), Some(support.0), &Value::Null)
    );
    let id = TeamId(made["id"].as_i64().unwrap());
    let path = format!("/api/teams/{id}");
    let audit = app.store.audit_log(1).await.unwrap().remove(0);
    assert_eq!(
        (audit.action.as_str(), audit.subject, audit.detail),
        ("team.create", format!("team:{id}"), "Night Desk".to_string())
    );
    let ada_id = person(&dir, "Ada");
    assert_eq!(audit.actor, Some(ada_id));

    // A name taken in any case, no name, or a role that is not one: refused, nothing made.
    assert_eq!(
        answer(post(&app, &ada, "/api/teams", json!({"name": "night DESK"})).await),
        refusal(StatusCode::CONFLICT, "There is already a team called Night Desk")
    );
    assert_eq!(
        answer(post(&app, &ada, "/api/teams", json!({"name": "  "})).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "A team needs a name")
    );
    assert_eq!(
        answer(post(&app, &ada, "/api/teams", json!({})).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "A team needs a name")
    );
    assert_eq!(
        answer(post(&app, &ada, "/api/teams", json!({"name": "Day Desk", "role": 999_999})).await),
        refusal(StatusCode::NOT_FOUND, "There is no such role")
    );
    assert_eq!(
        answer(post(&app, &ada, "/api/teams", json!({"name": "Day Desk", "role": "Support"})).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "The role must be a role's id, or null for no role")
    );
    assert_eq!(app.org.directory().await.unwrap().teams.len(), dir.teams.len() + 1);

    // Name and lead at once: one row each.
    let (status, changed) = post(&app, &ada, &path, json!({"name": "Night Support", "lead": bob.0})).await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!((changed["name"].as_str(), changed["lead"].as_i64()), (Some("Night Support"), Some(bob.0)));
    let rows: Vec<_> = app.store.audit_log(2).await.unwrap().into_iter().map(|a| (a.action, a.detail)).collect();
    assert_eq!(
        rows,
        [
            ("team.lead".to_string(), format!("none -> {bob}")),
            ("team.rename".to_string(), "Night Desk -> Night Support".to_string())
        ]
    );
    // Null clears the role; absent leaves the lead.
    let (status, changed) = post(&app, &ada, &path, json!({"role": null})).await;
    assert_eq!((status, &changed["role"], changed["lead"].as_i64()), (StatusCode::OK, &Value::Null, Some(bob.0)));
    let audit = app.store.audit_log(1).await.unwrap().remove(0);
    assert_eq!((audit.action.as_str(), audit.detail), ("team.role", format!("{support} -> none")));

    // The lead is someone who has not left; a refusal changes no part.
    app.org.people.person_leaves(&app.store.person(ada_id).await.unwrap().unwrap(), eve).await.unwrap();
    assert_eq!(
        answer(post(&app, &ada, &path, json!({"name": "Late Desk", "lead": eve.0})).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "Eve Moreau has left and cannot lead a team")
    );
    assert_eq!(
        answer(post(&app, &ada, &path, json!({"lead": 999_999})).await),
        refusal(StatusCode::NOT_FOUND, "There is no such person")
    );
    assert_eq!(
        answer(post(&app, &ada, &path, json!({"name": "Platform"})).await),
        refusal(StatusCode::CONFLICT, "There is already a team called Platform")
    );
    assert_eq!(
        answer(post(&app, &ada, &path, json!({})).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "Say what to change: the team's name, role or lead")
    );
    assert_eq!(
        answer(post(&app, &ada, "/api/teams/999999", json!({"name": "Ghosts"})).await),
        refusal(StatusCode::NOT_FOUND, "There is no such team")
    );
    let now = app.store.team(id).await.unwrap().unwrap();
    assert_eq!((now.name.as_str(), now.role, now.lead), ("Night Support", None, Some(bob)));

    // Clearing the lead is allowed; an admin's token does what their session does.
    let token = token_for(&app, &ada).await;
    let (status, changed) = post_as(&app, &token, &path, json!({"lead": null, "role": support.0})).await;
    assert_eq!((status, &changed["lead"], changed["role"].as_i64()), (StatusCode::OK, &Value::Null, Some(support.0)));
    let (status, _) = post_as(&app, &token, "/api/teams", json!({"name": "Token Team"})).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_renames_their_own_team_and_nothing_more() {
    let app = spawn_app().await;
    let dir = app.org.directory().await.unwrap();
    let (desk, platform) = (team(&dir, "Support Desk"), team(&dir, "Platform"));
    let (sue_id, bob) = (person(&dir, "Sue"), person(&dir, "Bob"));
    let alice = app.sign_in("alice").await;
    let sue = app.sign_in("sue").await;
    let desk_path = format!("/api/teams/{desk}");
    let before = app.store.audit_log(1000).await.unwrap().len();

    // Someone who leads no team changes none, in the words.
    assert_eq!(
        answer(post(&app, &alice, &desk_path, json!({"name": "Alice's Desk"})).await),
        refusal(StatusCode::FORBIDDEN, "Only Support Desk's lead or an admin can change this team")
    );
    // Sue leads Support Desk: she renames it, by session and by token, but not Platform.
    let (status, renamed) = post(&app, &sue, &desk_path, json!({"name": "Help Desk"})).await;
    assert_eq!((status, renamed["name"].as_str()), (StatusCode::OK, Some("Help Desk")));
    let audit = app.store.audit_log(1).await.unwrap().remove(0);
    assert_eq!(
        (audit.action.as_str(), audit.detail.as_str(), audit.actor),
        ("team.rename", "Support Desk -> Help Desk", Some(sue_id))
    );
    let token = token_for(&app, &sue).await;
    let (status, renamed) = post_as(&app, &token, &desk_path, json!({"name": "Support Desk"})).await;
    assert_eq!((status, renamed["name"].as_str()), (StatusCode::OK, Some("Support Desk")));
    assert_eq!(
        answer(post_as(&app, &token, &format!("/api/teams/{platform}"), json!({"name": "Sue's Platform"})).await),
        refusal(StatusCode::FORBIDDEN, "Only Platform's lead or an admin can change this team")
    );
    // Its role and its lead are an admin's; so are new teams and moves.
    assert_eq!(
        answer(post(&app, &sue, &desk_path, json!({"name": "Desk", "role": null})).await),
        refusal(StatusCode::FORBIDDEN, "Only an admin can put a team in a role")
    );
    assert_eq!(
        answer(post_as(&app, &token, &desk_path, json!({"lead": bob.0})).await),
        refusal(StatusCode::FORBIDDEN, "Only an admin can choose a team's lead")
    );
    assert_eq!(
        answer(post(&app, &sue, "/api/teams", json!({"name": "Sue's Own"})).await),
        refusal(StatusCode::FORBIDDEN, "Only an admin can add a team")
    );
    assert_eq!(
        answer(post_as(&app, &token, &format!("/api/people/{bob}/team"), json!({"team": platform.0})).await),
        refusal(StatusCode::FORBIDDEN, "Only an admin can move people between teams")
    );
    let after = app.store.team(desk).await.unwrap().unwrap();
    assert_eq!(
        (after.name.as_str(), after.lead, after.role),
        ("Support Desk", Some(sue_id), dir.team(desk).unwrap().role)
    );
    assert_eq!(app.store.audit_log(1000).await.unwrap().len(), before + 3, "two renames and Sue's token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_who_has_left_renames_nothing() {
    let app = spawn_app().await;
    let dir = app.org.directory().await.unwrap();
    let desk = team(&dir, "Support Desk");
    let sue = app.sign_in("sue").await;
    let token = token_for(&app, &sue).await;
    let ada = app.store.person(person(&dir, "Ada")).await.unwrap().unwrap();
    app.org.people.person_leaves(&ada, person(&dir, "Sue")).await.unwrap();

    // Her session and her token are gone, and the team no longer names her as its lead.
    let path = format!("/api/teams/{desk}");
    assert_eq!(post(&app, &sue, &path, json!({"name": "Sue's Desk"})).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(post_as(&app, &token, &path, json!({"name": "Sue's Desk"})).await.0, StatusCode::UNAUTHORIZED);
    let gone = app.store.person(person(&dir, "Sue")).await.unwrap().unwrap();
    assert_eq!(app.store.team(desk).await.unwrap().unwrap().lead, None);
    // The rule itself, whoever reaches it: a lead who has left is no longer the lead.
    let refused = app.org.teams.rename_team(&gone, desk, "Sue's Desk").await.unwrap_err();
    assert_eq!(refused.to_string(), "Only Support Desk's lead or an admin can change this team");
    assert_eq!(app.store.team(desk).await.unwrap().unwrap().name, "Support Desk");
    // Her team page no longer names her as lead.
    let (_, html) = app.page(&app.sign_in("ada").await, &format!("/company/teams/{desk}")).await;
    assert!(html.contains("Lead: none"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_persons_role_follows_their_new_team_unless_it_is_their_own() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let (alice, sam, eve) = (person(&dir, "Alice"), person(&dir, "Sam"), person(&dir, "Eve"));
    let (sales, desk, founders) =
        (team(&dir, "Sales Bengaluru"), team(&dir, "Support Desk"), team(&dir, "Founders' Office"));
    let move_to = |who: PersonId, to: Value| {
        let (app, ada) = (&app, &ada);
        async move { post(app, ada, &format!("/api/people/{who}/team"), json!({ "team": to })).await }
    };
    let drawer = |who: PersonId| {
        let (app, ada) = (&app, &ada);
        async move { words(&app.page(ada, &format!("/company/people?person={who}")).await.1) }
    };
    assert!(drawer(alice).await.contains("Sales (from their team)"));

    let (status, moved) = move_to(alice, json!(desk.0)).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(
        moved["message"],
        "Moved Alice Chen to Support Desk: their department role is now Support, from their team"
    );
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().main_team, Some(desk));
    let audit = app.store.audit_log(1).await.unwrap().remove(0);
    assert_eq!(
        (audit.action.as_str(), audit.subject, audit.detail),
        ("person.team", format!("person:{alice}"), format!("{sales} -> {desk}"))
    );
    let html = drawer(alice).await;
    assert!(html.contains("Support (from their team)"), "the People page follows the move");
    assert!(html.contains(&format!("<option value=\"{desk}\" selected")), "Main team shows the new team");

    // With a role of her own, she keeps it wherever she goes.
    let marketing = role(&dir, "Marketing");
    app.org
        .people
        .set_person_role(&app.store.person(person(&dir, "Ada")).await.unwrap().unwrap(), alice, Some(marketing))
        .await
        .unwrap();
    let (_, moved) = move_to(alice, json!(sales.0)).await;
    assert_eq!(moved["message"], "Moved Alice Chen to Sales Bengaluru: they keep their own department role, Marketing");
    let html = drawer(alice).await;
    assert!(html.contains("<td>Marketing</td>") && !html.contains("Marketing (from their team)"), "{html}");
    let (_, moved) = move_to(sam, json!(founders.0)).await;
    assert_eq!(
        moved["message"],
        "Moved Sam Rao to Founders' Office: Founders' Office has no department role, so neither have they"
    );
    let (_, moved) = move_to(sam, json!(founders.0)).await;
    assert_eq!(moved["message"], "Sam Rao is already in Founders' Office");

    // Refusals change nothing.
    let rows = app.store.audit_log(1000).await.unwrap().len();
    assert_eq!(answer(move_to(alice, json!(999_999)).await), refusal(StatusCode::NOT_FOUND, "There is no such team"));
    assert_eq!(
        answer(move_to(PersonId(999_999), json!(desk.0)).await),
        refusal(StatusCode::NOT_FOUND, "There is no such person")
    );
    assert_eq!(
        answer(move_to(alice, json!("Support Desk")).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "The team must be a team's id")
    );
    let alice_c = app.sign_in("alice").await;
    assert_eq!(
        answer(post(&app, &alice_c, &format!("/api/people/{alice}/team"), json!({"team": desk.0})).await),
        refusal(StatusCode::FORBIDDEN, "Only an admin can move people between teams")
    );
    app.org.people.person_leaves(&app.store.person(person(&dir, "Ada")).await.unwrap().unwrap(), eve).await.unwrap();
    let rows = rows + 1;
    assert_eq!(
        answer(move_to(eve, json!(desk.0)).await),
        refusal(StatusCode::UNPROCESSABLE_ENTITY, "Eve Moreau has left and cannot be moved")
    );
    assert_eq!(app.store.person(alice).await.unwrap().unwrap().main_team, Some(sales));
    assert_eq!(app.store.audit_log(1000).await.unwrap().len(), rows);
    // Someone who left is offered no Main team.
    assert!(!drawer(eve).await.contains("name=\"team\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_team_lead_and_move_work_as_plain_form_posts() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let dir = app.org.directory().await.unwrap();
    let (support, bob) = (role(&dir, "Support"), person(&dir, "Bob"));
    let (_, html) = app.page(&ada, "/company/teams").await;
    assert!(html.contains("aria-label=\"New team\"") && html.contains(">New team</button>"));

    // New team opens its page, which says so.
    let r = app.form_post(&ada, "/fn/create_team", &[("name", "Night Desk"), ("role", &support.to_string())]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    let id = app.org.directory().await.unwrap().teams.iter().find(|t| t.name == "Night Desk").unwrap().id;
    let page = format!("/company/teams/{id}");
    assert_eq!(r.headers()["location"], page.as_str());
    let (_, html) = app.page(&ada, &page).await;
    let text = words(&html);
    assert!(text.contains("Added the team Night Desk"), "{text}");
    assert!(text.contains("Role: Support") && text.contains("Lead: none"));
    assert!(text.contains("Nobody has this as their main team yet."));
    for control in [">Rename</button>", ">Set role</button>", ">Set lead</button>", "Team name", "name=\"lead\""] {
        assert!(html.contains(control), "{control}");
    }
    assert!(!words(&app.page(&ada, &page).await.1).contains("Added the team"), "the notice shows once");

    // Refused, the form keeps what was typed.
    let r = app.form_post(&ada, "/fn/create_team", &[("name", "night desk"), ("role", &support.to_string())]).await;
    assert_eq!(r.headers()["location"], "/company/teams");
    let (_, html) = app.page(&ada, "/company/teams").await;
    assert!(words(&html).contains("There is already a team called Night Desk"));
    assert!(html.contains("value=\"night desk\""), "the typed name");
    assert!(html.contains(&format!("<option value=\"{support}\" selected")), "the chosen role");

    // The lead, the role, a rename.
    // The lead is typed (a name or an email), never chosen from a list of everyone; a name
    // nobody has is refused in words and the field keeps it.
    assert!(!html.contains("<select name=\"lead\""));
    app.form_post(&ada, "/fn/set_team_lead", &[("team", &id.to_string()), ("lead", "Bobby Nobody")]).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(words(&html).contains("Nobody here is called Bobby Nobody"));
    assert!(html.contains("name=\"lead\" value=\"Bobby Nobody\""));
    let bob_email = app.store.person(bob).await.unwrap().unwrap().email;
    let r = app.form_post(&ada, "/fn/set_team_lead", &[("team", &id.to_string()), ("lead", &bob_email)]).await;
    assert_eq!(r.headers()["location"], page.as_str());
    let (_, html) = app.page(&ada, &page).await;
    assert!(html.contains("Saved the team&#x27;s lead") || html.contains("Saved the team's lead"));
    assert!(html.contains("Lead: Bob Diaz"));
    assert!(html.contains(&format!("name=\"lead\" value=\"{bob_email}\"")), "the Lead field offers the lead's email");
    app.form_post(&ada, "/fn/choose_team_role", &[("team", &id.to_string()), ("role", "")]).await;
    assert!(words(&app.page(&ada, &page).await.1).contains("Saved the team's role"));
    assert_eq!(app.store.team(id).await.unwrap().unwrap().role, None);
    app.form_post(&ada, "/fn/rename_team", &[("team", &id.to_string()), ("name", "Platform")]).await;
    let (_, html) = app.page(&ada, &page).await;
    assert!(words(&html).contains("There is already a team called Platform"));
    assert!(html.contains("name=\"name\" value=\"Platform\""), "the typed name stays");
    app.form_post(&ada, "/fn/rename_team", &[("team", &id.to_string()), ("name", "Night Support")]).await;
    assert!(words(&app.page(&ada, &page).await.1).contains("Renamed the team to Night Support"));

    // The People drawer's Main team moves Bob there; the team's page then lists him as its lead.
    let drawer = format!("/company/people?person={bob}");
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(html.contains("Main team") && html.contains(">Move</button>"));
    let r = app.form_post(&ada, "/fn/move_person", &[("person", &bob.to_string()), ("team", &id.to_string())]).await;
    assert_eq!(r.headers()["location"], drawer.as_str());
    let (_, html) = app.page(&ada, &drawer).await;
    assert!(words(&html)
        .contains("Moved Bob Diaz to Night Support: Night Support has no department role, so neither have they"));
    assert!(words(&app.page(&ada, &page).await.1).contains("<li>Bob Diaz (lead)</li>"));
    let actions: Vec<_> = app.store.audit_log(5).await.unwrap().into_iter().map(|a| a.action).collect();
    assert_eq!(actions, ["person.team", "team.rename", "team.role", "team.lead", "team.create"], "refusals wrote none");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_who_may_not_see_no_controls_and_change_nothing_by_form() {
    let app = spawn_app().await;
    let dir = app.org.directory().await.unwrap();
    let (sales, desk) = (team(&dir, "Sales Bengaluru"), team(&dir, "Support Desk"));
    let alice = app.sign_in("alice").await;
    let (_, html) = app.page(&alice, "/company/teams").await;
    assert!(!html.contains(">New team</button>"));
    app.form_post(&alice, "/fn/create_team", &[("name", "Shadow Team"), ("role", "")]).await;
    let (_, html) = app.page(&alice, "/company/teams").await;
    assert!(html.contains("Only an admin can add a team"));
    let (_, html) = app.page(&alice, &format!("/company/teams/{desk}")).await;
    assert!(words(&html).contains("<li>Sue Park (lead)</li>") && html.contains("Lead: Sue Park"));
    let sue_email = app.store.person(person(&dir, "Sue")).await.unwrap().unwrap().email;
    assert!(!html.contains(&sue_email), "the lead's email is an admin's to see, in neither the page nor its data");
    for control in [">Rename</button>", ">Set role</button>", ">Set lead</button>"] {
        assert!(!html.contains(control), "{control}");
    }
    app.form_post(&alice, "/fn/rename_team", &[("team", &desk.to_string()), ("name", "Alice's Desk")]).await;
    let (_, html) = app.page(&alice, &format!("/company/teams/{desk}")).await;
    assert!(words(&html).contains("Only Support Desk's lead or an admin can change this team"));
    app.form_post(
        &alice,
        "/fn/move_person",
        &[("person", &person(&dir, "Alice").to_string()), ("team", &desk.to_string())],
    )
    .await;

    // Sam leads Sales Bengaluru: he may rename it and still sees its Suggested changes, but sets
    // neither its role nor its lead.
    let sam = app.sign_in("sam").await;
    let (_, html) = app.page(&sam, &format!("/company/teams/{sales}")).await;
    assert!(html.contains(">Rename</button>") && html.contains("Suggested changes"));
    assert!(!html.contains(">Set role</button>") && !html.contains(">Set lead</button>"));
    app.form_post(&sam, "/fn/set_team_lead", &[("team", &sales.to_string()), ("lead", "")]).await;
    let (_, html) = app.page(&sam, &format!("/company/teams/{sales}")).await;
    assert!(words(&html).contains("Only an admin can choose a team's lead"));

    let now = app.org.directory().await.unwrap();
    assert_eq!(now.teams, dir.teams, "no team was made or changed");
    assert_eq!(now.person(person(&dir, "Alice")).unwrap().main_team, Some(sales));
}
