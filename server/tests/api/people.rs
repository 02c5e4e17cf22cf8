//! Adding people through the running server: the invite link (set a password, used once, expired,
//! replaced), the password rules, a password change ending one's other sessions, an admin's reset
//! ending that person's sessions at once, the last admin, and every refusal.

use crate::helpers::{body, client, plain, spawn_app, TestApp};
use demo::company::{demo_email, DEMO_PASSWORD};
use engine::org::PersonId;
use engine::Clock;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

async fn person_id(app: &TestApp, login: &str) -> PersonId {
    let email = demo_email(login);
    app.store.directory().await.unwrap().people.iter().find(|p| p.email == email).expect("a demo person").id
}

async fn team_and_role(app: &TestApp) -> (i64, i64) {
    let dir = app.store.directory().await.unwrap();
    let team = dir.teams.iter().find(|t| t.name == "Support Desk").expect("the demo team").id.0;
    let role = dir.roles.first().expect("a demo role").id.0;
    (team, role)
}

async fn add(app: &TestApp, c: &Client, name: &str, email: &str) -> (StatusCode, Value) {
    let (team, _) = team_and_role(app).await;
    let r = c
        .post(app.url("/api/people"))
        .json(&json!({ "name": name, "email": email, "main_team": team }))
        .send()
        .await
        .unwrap();
    (r.status(), body(r).await)
}

fn secret_of(added: &Value) -> String {
    let path = added["invite"]["path"].as_str().expect("an invite path");
    path.strip_prefix("/invite/").expect("an invite path").to_string()
}

async fn accept(app: &TestApp, c: &Client, secret: &str, password: &str, repeat: &str) -> reqwest::Response {
    app.form_post(c, "/fn/accept_invite", &[("secret", secret), ("password", password), ("repeat", repeat)]).await
}

async fn status_of_me(app: &TestApp, c: &Client) -> StatusCode {
    c.get(app.url("/api/me")).send().await.unwrap().status()
}

async fn last_actions(app: &TestApp, n: u32) -> Vec<String> {
    app.store.audit_log(n).await.unwrap().into_iter().map(|a| a.action).collect()
}

#[tokio::test]
async fn an_added_person_sets_a_password_through_the_link_once_and_signs_in() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (team, role) = team_and_role(&app).await;
    let r = ada
        .post(app.url("/api/people"))
        .json(&json!({ "name": " Nia Okafor ", "email": "Nia@Acme.example", "main_team": team, "role": role }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let added = body(r).await;
    assert_eq!(
        (added["person"]["name"].as_str(), added["person"]["email"].as_str()),
        (Some("Nia Okafor"), Some("nia@acme.example"))
    );
    assert_eq!(
        (added["person"]["main_team"].as_i64(), added["person"]["role_override"].as_i64()),
        (Some(team), Some(role))
    );
    let secret = secret_of(&added);
    assert_eq!(added["invite"]["link"], app.url(&format!("/invite/{secret}")), "the whole link, ready to copy");
    let expires: chrono::DateTime<chrono::Utc> = serde_json::from_value(added["invite"]["expires_at"].clone()).unwrap();
    assert_eq!(expires, app.clock.now() + chrono::Duration::days(7));
    assert_eq!(last_actions(&app, 2).await, ["person.invite", "person.create"]);

    // Until the link is used, no password signs them in.
    let nia = client();
    let r = app.post_sign_in(&nia, "nia@acme.example", "").await;
    assert_eq!(r.headers()["location"], "/signin?next=/");

    // Signed out, the link shows whose it is and asks for a password.
    let (status, html) = app.page(&nia, &format!("/invite/{secret}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("This invite link is for Nia Okafor (nia@acme.example)"), "{html}");
    assert!(html.contains("Set password and sign in"));

    // The rules of every new password, each said plainly, on the invite page.
    for (password, repeat, why) in [
        ("short", "short", "A password needs at least 8 characters"),
        ("Password123", "Password123", "one of the most common ones"),
        ("a long passphrase", "a long passphrasf", "The two passwords differ"),
    ] {
        let r = accept(&app, &nia, &secret, password, repeat).await;
        assert_eq!(r.status(), StatusCode::FOUND);
        assert_eq!(r.headers()["location"], format!("/invite/{secret}"));
        let (_, html) = app.page(&nia, &format!("/invite/{secret}")).await;
        assert!(html.contains(why), "{why}: {html}");
    }
    assert_eq!(status_of_me(&app, &nia).await, StatusCode::UNAUTHORIZED, "refusals sign nobody in");

    let r = accept(&app, &nia, &secret, "a long passphrase", "a long passphrase").await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(r.headers()["location"], "/profile/memory");
    let (status, me) = app.get_json(&nia, "/api/me").await;
    assert_eq!((status, me["email"].as_str()), (StatusCode::OK, Some("nia@acme.example")), "signed in at once");
    let (status, _) = app.page(&nia, "/profile/memory").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(last_actions(&app, 1).await, ["person.invite_used"]);

    // The link works once.
    let again = client();
    let r = accept(&app, &again, &secret, "another passphrase", "another passphrase").await;
    assert_eq!(r.headers()["location"], format!("/invite/{secret}"));
    let (status, html) = app.page(&again, &format!("/invite/{secret}")).await;
    assert_eq!(status, StatusCode::GONE);
    assert!(html.contains("This invite link was already used. Sign in, or ask an admin for a new link."), "{html}");
    assert!(!html.contains("Set password and sign in"));
    assert_eq!(status_of_me(&app, &again).await, StatusCode::UNAUTHORIZED);

    // The password chosen signs in; the refused one never took.
    let r = app.post_sign_in(&client(), "nia@acme.example", "a long passphrase").await;
    assert_eq!(r.headers()["location"], "/");
    let r = app.post_sign_in(&client(), "nia@acme.example", "another passphrase").await;
    assert_eq!(r.headers()["location"], "/signin?next=/");

    // A link nobody made.
    let (status, html) = app.page(&again, "/invite/inv_0000").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("This invite link is not known"), "{html}");
}

#[tokio::test]
async fn a_link_expires_after_seven_days() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (status, added) = add(&app, &ada, "Omar Haddad", "omar@acme.example").await;
    assert_eq!(status, StatusCode::CREATED);
    let secret = secret_of(&added);
    app.clock.advance(chrono::Duration::days(7) - chrono::Duration::seconds(1));
    let (status, _) = app.page(&client(), &format!("/invite/{secret}")).await;
    assert_eq!(status, StatusCode::OK, "still open a second before");
    app.clock.advance(chrono::Duration::seconds(1));
    let omar = client();
    let (status, html) = app.page(&omar, &format!("/invite/{secret}")).await;
    assert_eq!(status, StatusCode::GONE);
    assert!(html.contains("This invite link has expired. Ask an admin for a new one."), "{html}");
    let r = accept(&app, &omar, &secret, "a long passphrase", "a long passphrase").await;
    assert_eq!(r.headers()["location"], format!("/invite/{secret}"));
    assert_eq!(status_of_me(&app, &omar).await, StatusCode::UNAUTHORIZED);
    let r = app.post_sign_in(&client(), "omar@acme.example", "a long passphrase").await;
    assert_eq!(r.headers()["location"], "/signin?next=/");
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions_but_not_this_one() {
    let app = spawn_app().await;
    let here = app.sign_in("alice").await;
    let elsewhere = app.sign_in("alice").await;
    let (status, html) = app.page(&here, "/profile/password").await;
    assert_eq!(status, StatusCode::OK);
    for label in ["Current password", "New password", "Repeat the new password", "Change password"] {
        assert!(html.contains(label), "{label}");
    }
    let change = |current: &'static str, new: &'static str, repeat: &'static str| {
        let (app, here) = (&app, &here);
        async move {
            let r = app
                .form_post(here, "/fn/change_password", &[("current", current), ("password", new), ("repeat", repeat)])
                .await;
            assert_eq!(r.headers()["location"], "/profile/password");
            app.page(here, "/profile/password").await.1
        }
    };
    for (current, new, repeat, why) in [
        ("not my password", "a brand new passphrase", "a brand new passphrase", "Your current password is not right"),
        (DEMO_PASSWORD, "12345678", "12345678", "one of the most common ones"),
        (DEMO_PASSWORD, "tiny", "tiny", "A password needs at least 8 characters"),
        (DEMO_PASSWORD, "a brand new passphrase", "a brand new passphrasE", "The two new passwords differ"),
    ] {
        let html = change(current, new, repeat).await;
        assert!(html.contains(why), "{why}: {html}");
        assert_eq!(status_of_me(&app, &elsewhere).await, StatusCode::OK, "a refusal ends nothing");
    }
    let html = change(DEMO_PASSWORD, "a brand new passphrase", "a brand new passphrase").await;
    assert!(
        html.contains("Changed your password. Your other sessions have ended; this one stays signed in."),
        "{html}"
    );
    assert_eq!(status_of_me(&app, &here).await, StatusCode::OK, "this session stays");
    assert_eq!(status_of_me(&app, &elsewhere).await, StatusCode::UNAUTHORIZED, "the other one ended");
    let (status, _) = app.page(&elsewhere, "/profile/memory").await;
    assert_eq!(status, StatusCode::SEE_OTHER, "its pages lead to sign-in");
    assert_eq!(last_actions(&app, 1).await, ["person.password"]);
    let r = app.post_sign_in(&client(), &demo_email("alice"), DEMO_PASSWORD).await;
    assert_eq!(r.headers()["location"], "/signin?next=/", "the old password no longer works");
    let r = app.post_sign_in(&client(), &demo_email("alice"), "a brand new passphrase").await;
    assert_eq!(r.headers()["location"], "/");

    // Signed out, the page leads to sign-in and the form changes nothing.
    let (status, _) = app.page(&client(), "/profile/password").await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let out = client();
    app.form_post(
        &out,
        "/fn/change_password",
        &[("current", "x"), ("password", "whatever it is"), ("repeat", "whatever it is")],
    )
    .await;
    assert_eq!(last_actions(&app, 1).await, ["person.password"]);
}

#[tokio::test]
async fn wrong_current_passwords_are_throttled_with_sign_in() {
    let app = spawn_app().await;
    let here = app.sign_in("alice").await;
    let change = |current: &'static str| {
        let (app, here) = (&app, &here);
        async move {
            let fields =
                [("current", current), ("password", "a brand new passphrase"), ("repeat", "a brand new passphrase")];
            app.form_post(here, "/fn/change_password", &fields).await;
            app.page(here, "/profile/password").await.1
        }
    };
    for _ in 0..6 {
        assert!(change("a guess at it").await.contains("Your current password is not right"));
    }
    // The account is locked: even the right password is not checked, and nothing changes.
    let html = change(DEMO_PASSWORD).await;
    assert!(html.contains("Too many wrong passwords for this account. Wait 5 minutes, then try again"), "{html}");
    let actions = last_actions(&app, 1).await;
    assert_ne!(actions, ["person.password"]);
    let r = app.post_sign_in(&client(), &demo_email("alice"), DEMO_PASSWORD).await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS, "sign-in shares the count");
}

#[tokio::test]
async fn an_admin_reset_ends_that_persons_sessions_at_once_and_replaces_the_older_link() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let sue = app.sign_in("sue").await;
    let bob = app.sign_in("bob").await;
    let sue_id = person_id(&app, "sue").await;
    let r = ada.post(app.url(&format!("/api/people/{sue_id}/invite"))).json(&own_password()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let first = body(r).await;
    assert_eq!(first["person"]["email"], demo_email("sue"));
    assert_eq!(status_of_me(&app, &sue).await, StatusCode::UNAUTHORIZED, "her session ended at once");
    assert_eq!(status_of_me(&app, &bob).await, StatusCode::OK, "nobody else's");
    assert_eq!(status_of_me(&app, &ada).await, StatusCode::OK);
    let r = app.post_sign_in(&client(), &demo_email("sue"), DEMO_PASSWORD).await;
    assert_eq!(r.headers()["location"], "/signin?next=/", "her old password stopped working");
    assert_eq!(last_actions(&app, 2).await, ["person.invite", "person.password_reset"]);

    // The People drawer's "Reset password" makes a newer link, shown once, which replaces the first.
    let r = app
        .form_post(&ada, "/fn/reset_password", &[("person", &sue_id.to_string()), ("password", DEMO_PASSWORD)])
        .await;
    assert_eq!(r.headers()["location"], format!("/company/people?person={sue_id}"));
    let (_, html) = app.page(&ada, &format!("/company/people?person={sue_id}")).await;
    assert!(html.contains("signed out everywhere"), "{html}");
    let link = html
        .split("value=\"")
        .find_map(|rest| rest.split('"').next().filter(|v| v.contains("/invite/inv_")))
        .expect("the new link is shown")
        .to_string();
    let second = link.rsplit('/').next().unwrap().to_string();
    let (_, html) = app.page(&ada, &format!("/company/people?person={sue_id}")).await;
    assert!(!html.contains(&second), "the link is shown only once");

    let (status, html) = app.page(&client(), &format!("/invite/{}", secret_of(&first))).await;
    assert_eq!(status, StatusCode::GONE);
    assert!(html.contains("This invite link was replaced by a newer one"), "{html}");
    let again = client();
    let r = accept(&app, &again, &second, "sue's new passphrase", "sue's new passphrase").await;
    assert_eq!(r.headers()["location"], "/profile/memory");
    assert_eq!(status_of_me(&app, &again).await, StatusCode::OK);

    // An admin cannot reset their own password this way, nor that of someone who left.
    let ada_id = person_id(&app, "ada").await;
    let r = ada.post(app.url(&format!("/api/people/{ada_id}/invite"))).json(&own_password()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "Change your own password under Profile → Password");
    let r = ada.post(app.url("/api/people/99999/invite")).json(&own_password()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

/// The body of a reset: the demo admin's own password, typed again.
fn own_password() -> Value {
    json!({ "password": DEMO_PASSWORD })
}

async fn set_admin(app: &TestApp, c: &Client, person: PersonId, admin: bool) -> (StatusCode, Value) {
    let r =
        c.post(app.url(&format!("/api/people/{person}/admin"))).json(&json!({ "admin": admin })).send().await.unwrap();
    (r.status(), body(r).await)
}

#[tokio::test]
async fn the_last_admin_cannot_be_removed() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (ada_id, alice_id) = (person_id(&app, "ada").await, person_id(&app, "alice").await);
    let (status, b) = set_admin(&app, &ada, ada_id, false).await;
    assert_eq!(
        (status, b["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("The last admin cannot be removed"))
    );
    let r = app.form_post(&ada, "/fn/set_admin", &[("person", &ada_id.to_string()), ("admin", "false")]).await;
    assert_eq!(r.headers()["location"], format!("/company/people?person={ada_id}"));
    let (_, html) = app.page(&ada, &format!("/company/people?person={ada_id}")).await;
    assert!(html.contains("The last admin cannot be removed"), "{html}");

    // The drawer offers Make admin to a non-admin, and the form makes Alice one.
    let (_, html) = app.page(&ada, &format!("/company/people?person={alice_id}")).await;
    assert!(html.contains("Make admin") && html.contains("Reset password"), "{html}");
    let r = app.form_post(&ada, "/fn/set_admin", &[("person", &alice_id.to_string()), ("admin", "true")]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    let (_, html) = app.page(&ada, &format!("/company/people?person={alice_id}")).await;
    assert!(html.contains("Alice Chen is now an admin") && html.contains("Remove admin"), "{html}");
    assert_eq!(app.store.audit_log(1).await.unwrap()[0].detail, "no -> yes");

    let alice = app.sign_in("alice").await;
    let (status, b) = set_admin(&app, &alice, ada_id, false).await;
    assert_eq!((status, b["message"].as_str()), (StatusCode::OK, Some("Ada Lovelace is no longer an admin")));
    let (status, b) = set_admin(&app, &alice, alice_id, false).await;
    assert_eq!(
        (status, b["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("The last admin cannot be removed"))
    );
    // Ada is no admin now: she may not mark Alice as left, and nobody may mark the last admin so.
    let r = app.form_post(&ada, "/fn/mark_left", &[("person", &alice_id.to_string())]).await;
    assert_eq!(r.status(), StatusCode::FOUND);
    assert!(app.store.person(alice_id).await.unwrap().unwrap().left_at.is_none());

    // Two admins taking each other's admin away at once: exactly one wins, one admin is left.
    let (status, _) = set_admin(&app, &alice, ada_id, true).await;
    assert_eq!(status, StatusCode::OK);
    let ada = app.sign_in("ada").await;
    let (a, b) = tokio::join!(set_admin(&app, &ada, alice_id, false), set_admin(&app, &alice, ada_id, false));
    // The loser is refused by the store's count when both were read as admins, or, when the
    // winner finished first, because its caller is no admin any more.
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses[0], StatusCode::OK, "{a:?} {b:?}");
    assert!(matches!(statuses[1], StatusCode::UNPROCESSABLE_ENTITY | StatusCode::FORBIDDEN), "{a:?} {b:?}");
    let admins = app.store.directory().await.unwrap().people.into_iter().filter(|p| p.is_admin).count();
    assert_eq!(admins, 1);
}

#[tokio::test]
async fn the_admin_form_on_the_people_page_adds_a_person_and_keeps_a_refused_one() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (_, html) = app.page(&ada, "/company/people").await;
    for label in ["Add a person", "Name", "Email", "Main team", "Department role", "Add person", "No team yet"] {
        assert!(html.contains(label), "{label}");
    }
    let (team, _) = team_and_role(&app).await;
    let team = team.to_string();
    let fields = [("name", "Pia Jensen"), ("email", "pia@acme.example"), ("main_team", team.as_str()), ("role", "")];
    let r = app.form_post(&ada, "/fn/add_person", &fields).await;
    let id = app.store.credentials("pia@acme.example").await.unwrap().expect("added").0.id;
    assert_eq!(r.headers()["location"], format!("/company/people?person={id}"));
    let (_, html) = app.page(&ada, &format!("/company/people?person={id}")).await;
    assert!(html.contains("Added Pia Jensen. Copy their invite link now: it is shown only once."), "{html}");
    assert!(html.contains(&format!("{}/invite/inv_", app.base)), "the whole link: {html}");
    let (_, html) = app.page(&ada, &format!("/company/people?person={id}")).await;
    assert!(!html.contains("/invite/inv_"), "shown once");

    // A duplicate email is refused plainly, and the form keeps what was typed.
    let fields = [("name", "Pia Again"), ("email", "PIA@acme.example"), ("main_team", team.as_str()), ("role", "")];
    let r = app.form_post(&ada, "/fn/add_person", &fields).await;
    assert_eq!(r.headers()["location"], "/company/people");
    let (_, html) = app.page(&ada, "/company/people").await;
    assert!(html.contains("Someone already has the email pia@acme.example"), "{html}");
    assert!(html.contains("value=\"Pia Again\"") && html.contains("value=\"PIA@acme.example\""), "{html}");
    let bad = [("name", " "), ("email", "pia"), ("main_team", ""), ("role", "")];
    app.form_post(&ada, "/fn/add_person", &bad).await;
    let (_, html) = app.page(&ada, "/company/people").await;
    assert!(html.contains("A person needs a name"), "{html}");
}

#[tokio::test]
async fn people_changes_are_refused_to_non_admins_their_tokens_and_the_signed_out() {
    let app = spawn_app().await;
    let sue_id = person_id(&app, "sue").await;
    let people_before = app.store.directory().await.unwrap().people.len();
    let audit_before = app.store.audit_log(1).await.unwrap();

    let alice = app.sign_in("alice").await;
    let r = alice.post(app.url("/api/tokens")).json(&json!({ "name": "script" })).send().await.unwrap();
    let alice_token = body(r).await["token"].as_str().unwrap().to_string();
    let raw = Client::new();
    let refusals = [
        ("/api/people".to_string(), json!({ "name": "X", "email": "x@acme.example" }), "Only an admin can add people"),
        (format!("/api/people/{sue_id}/invite"), own_password(), "Only an admin can reset a password"),
        (
            format!("/api/people/{sue_id}/admin"),
            json!({ "admin": true }),
            "Only an admin can make someone an admin or take it away",
        ),
    ];
    for (path, payload, why) in &refusals {
        let by_session = alice.post(app.url(path)).json(payload).send().await.unwrap();
        assert_eq!(by_session.status(), StatusCode::FORBIDDEN, "{path}");
        assert_eq!(body(by_session).await, json!({ "error": "not_allowed", "message": why }));
        let by_token = raw.post(app.url(path)).bearer_auth(&alice_token).json(payload).send().await.unwrap();
        if path.ends_with("/invite") {
            // A reset takes a session only, whoever holds the token.
            assert_eq!(by_token.status(), StatusCode::UNAUTHORIZED, "{path}");
            assert_eq!(body(by_token).await["error"], "session_required");
        } else {
            assert_eq!(by_token.status(), StatusCode::FORBIDDEN, "{path}");
            assert_eq!(body(by_token).await["message"], *why);
        }
        let signed_out = raw.post(app.url(path)).json(payload).send().await.unwrap();
        assert_eq!(signed_out.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(body(signed_out).await["error"], "not_signed_in");
        let bad_token = raw.post(app.url(path)).bearer_auth("eng_nothing").json(payload).send().await.unwrap();
        assert_eq!(bad_token.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    // The page forms, as a non-admin, change nothing either.
    let sue = sue_id.to_string();
    for (path, fields) in [
        ("/fn/add_person", vec![("name", "X"), ("email", "x@acme.example"), ("main_team", ""), ("role", "")]),
        ("/fn/reset_password", vec![("person", sue.as_str()), ("password", DEMO_PASSWORD)]),
        ("/fn/set_admin", vec![("person", sue.as_str()), ("admin", "true")]),
    ] {
        app.form_post(&alice, path, &fields).await;
    }
    assert_eq!(app.store.directory().await.unwrap().people.len(), people_before);
    let audit = app.store.audit_log(2).await.unwrap();
    assert_eq!(audit[0].action, "api_token.create", "only the token was made");
    assert_eq!(audit[1], audit_before[0]);
    assert_eq!(status_of_me(&app, &app.sign_in("sue").await).await, StatusCode::OK);
    let (_, html) = app.page(&alice, "/company/people").await;
    assert!(!html.contains("Add person"), "the form is not offered: {}", plain(&html));

    // An admin's token may add people; bad input is refused plainly.
    let ada = app.sign_in("ada").await;
    let r = ada.post(app.url("/api/tokens")).json(&json!({ "name": "script" })).send().await.unwrap();
    let ada_token = body(r).await["token"].as_str().unwrap().to_string();
    let post = |payload: Value| raw.post(app.url("/api/people")).bearer_auth(&ada_token).json(&payload).send();
    let r = post(json!({ "name": "Quinn Ito", "email": "quinn@acme.example" })).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let added = body(r).await;
    assert!(added["invite"]["link"].as_str().unwrap().starts_with(&format!("{}/invite/inv_", app.base)));
    assert_eq!(added["person"]["main_team"], Value::Null);
    let r = post(json!({ "name": "Alice Two", "email": "ALICE@acme.example" })).await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(body(r).await["message"], "Someone already has the email alice@acme.example");
    let r = post(json!({ "name": "No Mail", "email": "nomail" })).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "\"nomail\" is not an email address, such as ada@example.com");
    let r = post(json!({ "name": "Teamless", "email": "t@acme.example", "main_team": 99999 })).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(body(r).await["message"], "There is no such team");
}

async fn reset_by_api(app: &TestApp, c: &Client, person: PersonId, b: Value) -> reqwest::Response {
    c.post(app.url(&format!("/api/people/{person}/invite"))).json(&b).send().await.unwrap()
}

async fn password_resets(app: &TestApp) -> usize {
    let events = app.store.events_after(0, 10_000).await.unwrap();
    events.iter().filter(|e| e.name == "password_reset").count()
}

#[tokio::test]
async fn a_reset_needs_a_session_and_the_admins_own_password_and_changes_nothing_otherwise() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let sue = app.sign_in("sue").await;
    let sue_id = person_id(&app, "sue").await;
    let ada_token = crate::helpers::token_for(&app, "ada").await;
    let audit_before = app.store.audit_log(1).await.unwrap();

    // An admin's token is refused whatever it carries: a reset needs a signed-in session.
    let r = Client::new()
        .post(app.url(&format!("/api/people/{sue_id}/invite")))
        .bearer_auth(&ada_token)
        .json(&own_password())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");

    // A wrong password, or none, is refused and changes nothing.
    let r = reset_by_api(&app, &ada, sue_id, json!({ "password": "not ada's password" })).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "Your own password is not right, so nothing was changed");
    let r = reset_by_api(&app, &ada, sue_id, json!({})).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "Type your own password to reset someone else's");
    let r =
        app.form_post(&ada, "/fn/reset_password", &[("person", &sue_id.to_string()), ("password", "a guess")]).await;
    assert_eq!(r.headers()["location"], format!("/company/people?person={sue_id}"));
    let (_, html) = app.page(&ada, &format!("/company/people?person={sue_id}")).await;
    assert!(html.contains("Your own password is not right, so nothing was changed"), "{html}");

    assert_eq!(status_of_me(&app, &sue).await, StatusCode::OK, "her session goes on");
    assert_eq!(app.store.audit_log(1).await.unwrap(), audit_before, "nothing audited");
    assert_eq!(password_resets(&app).await, 0, "no event");
    let r = app.post_sign_in(&client(), &demo_email("sue"), DEMO_PASSWORD).await;
    assert_eq!(r.headers()["location"], "/", "her password still works");
}

#[tokio::test]
async fn a_reset_ends_every_session_is_listed_on_events_and_the_member_is_told_once() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (sue_laptop, sue_phone) = (app.sign_in("sue").await, app.sign_in("sue").await);
    let sue_id = person_id(&app, "sue").await;
    let r = reset_by_api(&app, &ada, sue_id, own_password()).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let link = body(r).await;
    let reset_at = app.clock.now();

    assert_eq!(status_of_me(&app, &sue_laptop).await, StatusCode::UNAUTHORIZED, "every session of hers ended");
    assert_eq!(status_of_me(&app, &sue_phone).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status_of_me(&app, &ada).await, StatusCode::OK);
    assert_eq!(last_actions(&app, 2).await, ["person.invite", "person.password_reset"]);

    // Admins see it on Events, with whose password it was.
    let (status, events) = app.get_json(&ada, "/api/events").await;
    assert_eq!(status, StatusCode::OK, "{events}");
    let reset = events.as_array().unwrap().iter().find(|e| e["name"] == "password_reset").expect("the event");
    assert_eq!(reset["state"], demo_email("sue"));
    let (_, html) = app.page(&ada, "/company/events").await;
    assert!(html.contains("Password reset by an admin"), "{html}");

    // At her next sign-in (through the new link) she reads who reset it and when, once.
    let sue = client();
    let r = accept(&app, &sue, &secret_of(&link), "sue's new passphrase", "sue's new passphrase").await;
    assert_eq!(r.headers()["location"], "/profile/memory");
    let told = format!("An admin (Ada Lovelace) reset your password on {}.", reset_at.format("%Y-%m-%d %H:%M UTC"));
    let (_, html) = app.page(&sue, "/profile/memory").await;
    assert!(html.contains(&told), "{html}");
    let (_, html) = app.page(&sue, "/profile/memory").await;
    assert!(!html.contains("reset your password"), "told once: {html}");
    let (_, html) = app.page(&app.sign_in("bob").await, "/").await;
    assert!(!html.contains("reset your password"), "nobody else is told: {html}");
}
