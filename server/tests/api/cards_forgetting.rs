//! Person memory that goes: Forget and its 30 days, pinning back, the forgetting job, a person who
//! loses access or leaves, and who may read whose cards.

use crate::cards::*;
use crate::helpers::*;
use engine::cards::service::RefreshOutcome;
use engine::cards::source::KeyMode;
use reqwest::{Client, StatusCode};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_record_is_not_kept_again_for_30_days() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let card = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.app.memory.reads.forget(&alice, card).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none());
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    c.app.memory.prepare.run_query(&alice, open_deals).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_none(), "read again within 30 days: not kept");
    c.app.clock.advance(chrono::Duration::days(31));
    c.app.memory.prepare.run_query(&alice, open_deals).await.unwrap();
    assert!(card_of(&c.app, &alice, "L-1001").await.is_some(), "after 30 days it may be kept again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_are_for_their_person_in_a_session_and_an_admin_sees_counts_only() {
    let c = spawn_cards().await;
    let alice = c.app.sign_in("alice").await;
    let r = alice.post(c.app.url("/api/tokens")).json(&json!({"name": "cli"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();
    let r = Client::new().get(c.app.url("/api/memory/cards")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(body(r).await["error"], "session_required");
    let (s, cards) = c.app.get_json(&alice, "/api/memory/cards").await;
    assert_eq!(s, StatusCode::OK);
    assert!(cards.as_array().unwrap().iter().any(|c| c["record_id"] == "L-1001"));

    let ada = c.app.sign_in("ada").await;
    let alice_p = person(&c.app, "alice").await;
    let (_, html) = c.app.page(&ada, &format!("/company/people?person={}", alice_p.id.0)).await;
    assert!(
        html.contains("Memory: 3 records kept (1 pinned), 0 lessons in use. What they say is theirs alone."),
        "counts"
    );
    assert!(!html.contains("Nimbus Logistics"), "never what it says");
    let (_, mine) = c.app.page(&ada, "/profile/memory").await;
    assert!(!mine.contains("Nimbus Logistics"), "Ada's own page holds only her cards");

    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "alice".into(), person: None };
    server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("L-1001 lead · Acme ATS · read") && text.contains("(pinned)"), "{text}");
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "ada".into(), person: Some("alice".into()) };
    server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "Alice Chen has 3 cards kept (1 pinned) and 2 lists. What they say is theirs alone.\n"
    );
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "sam".into(), person: Some("alice".into()) };
    let refused = server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap_err();
    assert_eq!(refused, "Only an admin sees another person's counts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forgetting_job_runs_once_a_day_from_two_in_the_companys_zone() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let (kept, pinned) = c.app.store.counts(alice.id).await.unwrap();
    assert_eq!((kept, pinned), (3, 1));
    // 31 days on (past the demo connector's longest hard limit, 30 days for reference data), at
    // 01:59 in Kolkata: not yet.
    let base = engine::Clock::now(c.app.clock.as_ref()).date_naive() + chrono::Duration::days(31);
    c.app.clock.set(base.and_hms_opt(20, 29, 0).unwrap().and_utc());
    assert_eq!(c.app.memory.prepare.forgetting_due().await.unwrap(), None);
    c.app.clock.set(base.and_hms_opt(20, 31, 0).unwrap().and_utc());
    let (uses, cards) = c.app.memory.prepare.forgetting_due().await.unwrap().expect("due at 02:01");
    assert!(uses >= 1 && cards >= 1, "{uses} uses, {cards} cards");
    assert_eq!(c.app.store.counts(alice.id).await.unwrap(), (1, 1), "the pinned card stays");
    assert!(audited(&c.app, "card_use.remove").await.iter().any(|e| e.detail.ends_with("hard limit")));
    assert_eq!(audited(&c.app, "card.remove_unkept").await.len(), 1, "what went is audited");
    assert_eq!(c.app.memory.prepare.forgetting_due().await.unwrap(), None, "once a day");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_loses_access_loses_their_use_rows() {
    let c = spawn_cards().await;
    let (alice, sam, sue, ada) = (
        person(&c.app, "alice").await,
        person(&c.app, "sam").await,
        person(&c.app, "sue").await,
        person(&c.app, "ada").await,
    );
    assert!(counts(&c.app, &alice).await.0 > 0 && counts(&c.app, &sam).await.0 > 0);
    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    let mut conn = c.app.store.connector(c.connector).await.unwrap().unwrap();
    conn.admits_roles = vec!["support".into()];
    c.app.memory.connectors.save_settings(&ada, &conn).await.unwrap();
    assert_eq!(
        c.app.memory.reads.refresh(&alice, l1).await.unwrap(),
        RefreshOutcome::NotChecked("Acme ATS does not admit your role".into()),
        "no read is made for her, even of a card she still holds"
    );

    // Read as Alice: the toolset no longer admits Sales, so her place on its cards goes, pinned or not.
    assert!(c.app.memory.mine.my_cards(&alice).await.unwrap().is_empty());
    assert_eq!(counts(&c.app, &alice).await, (0, 0), "removed, not hidden");
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let refused = c.app.memory.prepare.run_query(&alice, &q[0]).await.unwrap_err();
    assert_eq!(refused.to_string(), "Acme ATS does not admit your role", "nothing is read for her");
    let removed = audited(&c.app, "card_use.remove").await;
    assert!(
        removed
            .iter()
            .any(|e| e.subject == format!("person:{}", alice.id.0)
                && e.detail.ends_with("no longer admitted to Acme ATS")),
        "{removed:?}"
    );

    // Sam never opens his page: the daily job drops his uses all the same. Support keeps theirs.
    let tomorrow = engine::Clock::now(c.app.clock.as_ref()).date_naive() + chrono::Duration::days(1);
    c.app.clock.set(tomorrow.and_hms_opt(20, 31, 0).unwrap().and_utc());
    let sue_before = counts(&c.app, &sue).await;
    assert!(sue_before.0 > 0);
    c.app.memory.prepare.forgetting_due().await.unwrap().expect("due at 02:01 in Kolkata");
    assert_eq!(counts(&c.app, &sam).await, (0, 0));
    assert_eq!(counts(&c.app, &sue).await, sue_before, "Support is still admitted, within the hard limit");

    // Admitted again, nothing comes back by itself: the uses went, they were not hidden.
    conn.admits_roles = vec![];
    c.app.memory.connectors.save_settings(&ada, &conn).await.unwrap();
    assert!(c.app.memory.mine.my_cards(&alice).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_leaves_is_signed_out_and_their_memory_goes() {
    let c = spawn_cards().await;
    let (alice, sam, ada) = (person(&c.app, "alice").await, person(&c.app, "sam").await, person(&c.app, "ada").await);
    // Cards read as Alice herself, with the acting-for header: her card readership.
    c.app.memory.connectors.set_key_mode(&ada, c.connector, KeyMode::ActingFor, &[]).await.unwrap();
    let q = c.app.store.my_work_queries(engine::org::RoleId(4)).await.unwrap();
    let open_deals = q.iter().find(|q| q.label == "My open deals").unwrap();
    assert!(c.app.memory.prepare.run_query(&alice, open_deals).await.unwrap() >= 1);
    let hers = card_of(&c.app, &alice, "L-1001").await.expect("read as her");
    assert!(counts(&c.app, &alice).await.0 >= 1);

    let browser = c.app.sign_in("alice").await;
    let r = browser.post(c.app.url("/api/tokens")).json(&json!({"name": "cli"})).send().await.unwrap();
    let token = body(r).await["token"].as_str().unwrap().to_string();

    let refused = c.app.org.people.person_leaves(&sam, alice.id).await.unwrap_err();
    assert_eq!(refused.to_string(), "Only an admin can mark someone as left");
    let refused = c.app.org.people.person_leaves(&ada, ada.id).await.unwrap_err();
    assert_eq!(refused.to_string(), "You cannot mark yourself as left; ask another admin");

    // Through the drawer, as an admin confirms it.
    let admin = c.app.sign_in("ada").await;
    let drawer = format!("/company/people?person={}", alice.id.0);
    let (_, html) = c.app.page(&admin, &format!("{drawer}&leave=1")).await;
    assert!(html.contains("Mark Alice Chen as left? They are signed out"), "the confirmation");
    let r = c.app.form_post(&admin, "/fn/mark_left", &[("person", &alice.id.0.to_string())]).await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&admin, &drawer).await;
    assert!(html.contains("Alice Chen has left: they can no longer sign in, 1 token revoked, and "), "{html}");
    assert!(html.contains("Memory: 0 records kept (0 pinned)"), "the counts follow");
    assert!(html.contains("Left on "));

    assert_eq!(counts(&c.app, &alice).await, (0, 0), "her use rows went");
    assert!(c.app.store.card(hers).await.unwrap().is_none(), "the card read as her went");
    assert_eq!(audited(&c.app, "person.left").await.len(), 1);

    // Her session, her password and her token no longer work.
    let r = browser.get(c.app.url("/profile/memory")).send().await.unwrap();
    assert!(r.status().is_redirection(), "signed out: {}", r.status());
    let r = c.app.post_sign_in(&client(), &demo::company::demo_email("alice"), demo::company::DEMO_PASSWORD).await;
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/signin"), "sign-in refused");
    let r = Client::new().get(c.app.url("/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let mut out = Vec::new();
    let cmd = server::cli::Memory::Cards { who: "alice".into(), person: None };
    let refused = server::cli::run_memory(&cmd, Some(c.app.database_url.clone()), &mut out).await.unwrap_err();
    assert_eq!(refused, "Alice Chen has left and can no longer act here");

    let again = c.app.org.people.person_leaves(&ada, alice.id).await.unwrap_err();
    assert_eq!(again.to_string(), "Alice Chen has already left");
    let team = c.app.org.directory().await.unwrap().teams[0].id;
    let refused = c.app.org.teams.set_team_lead(&ada, team, Some(alice.id)).await.unwrap_err();
    assert_eq!(refused.to_string(), "Alice Chen has left and cannot lead a team");
    // History still names her.
    assert_eq!(c.app.store.person(alice.id).await.unwrap().unwrap().name, "Alice Chen");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_record_can_be_pinned_back_within_its_30_days() {
    let c = spawn_cards().await;
    let alice = person(&c.app, "alice").await;
    let card = card_of(&c.app, &alice, "L-1002").await.unwrap();
    c.app.memory.reads.forget(&alice, card).await.unwrap();
    let forgotten = c.app.memory.reads.forgotten(&alice).await.unwrap();
    assert_eq!(forgotten.len(), 1);
    assert!(forgotten[0].line.starts_with("lead L-1002 · Acme ATS · forgotten just now · kept out until "));
    assert_eq!(audited(&c.app, "card.forget").await.len(), 1);

    // The source changed meanwhile: pinning back reads it again, as her.
    let mut rec = lead(&c.ats, "L-1002").await;
    rec["stage"] = json!("Proposal");
    assert!(admin(&c.ats, reqwest::Method::PUT, "/admin/leads/L-1002", Some(rec)).await.is_success());
    let browser = c.app.sign_in("alice").await;
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains("Pin it back"));
    let r = c
        .app
        .form_post(&browser, "/fn/pin_back", &[("connector", "1"), ("kind", "lead"), ("record_id", "L-1002")])
        .await;
    assert!(r.status().is_redirection());
    let (_, html) = c.app.page(&browser, "/profile/memory").await;
    assert!(html.contains("Pinned lead L-1002 back, read again from Acme ATS"), "{html}");
    let back = c.app.memory.mine.my_cards(&alice).await.unwrap();
    let l2 = back.iter().find(|c| c.record_id == "L-1002").expect("kept again");
    assert!(l2.pinned, "pinned");
    assert!(l2.fields.iter().any(|f| f.name == "stage" && f.value == "Proposal"), "read again");
    assert!(c.app.memory.reads.forgotten(&alice).await.unwrap().is_empty(), "the forget is closed");
    assert_eq!(audited(&c.app, "card.forget_lifted").await.len(), 1);

    // A record gone at the source cannot be pinned back: it stays forgotten, nothing changes.
    let l1 = card_of(&c.app, &alice, "L-1001").await.unwrap();
    c.app.memory.reads.forget(&alice, l1).await.unwrap();
    assert_eq!(admin(&c.ats, reqwest::Method::DELETE, "/admin/leads/L-1001", None).await, StatusCode::NO_CONTENT);
    let refused = c.app.memory.reads.pin_back(&alice, 1, "lead", "L-1001").await.unwrap_err();
    assert_eq!(refused.to_string(), "Not pinned: lead L-1001 is no longer at Acme ATS; it stays forgotten");
    assert_eq!(c.app.memory.reads.forgotten(&alice).await.unwrap().len(), 1);
    let refused = c.app.memory.reads.pin_back(&alice, 1, "lead", "L-1003").await.unwrap_err();
    assert_eq!(refused.to_string(), "You have not forgotten that record, or its 30 days are over");
}
