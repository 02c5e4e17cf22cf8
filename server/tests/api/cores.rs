use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

const SALES: &str = "company:role:sales";
const STAGES: &str = "Stages: New, Qualified, Proposal, Won, Lost.";

/// A text of exactly `n` tokens: no spaces, four characters a token.
fn tokens(n: usize) -> String {
    "x".repeat(n * 4)
}

async fn team_id(app: &TestApp, c: &reqwest::Client, name: &str) -> i64 {
    let (_, roles) = app.get_json(c, "/api/memory/roles").await;
    roles["teams"].as_array().unwrap().iter().find(|t| t["team"]["name"] == name).unwrap()["team"]["id"]
        .as_i64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_demo_save_gives_version_1_and_11_tokens() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let r = app.save_core(&ada, SALES, 0, STAGES).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let saved = body(r).await;
    assert_eq!(saved["version"], 1);
    assert_eq!(saved["tokens"], 11);
    assert_eq!(saved["author"], "Ada Lovelace");
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}")).await;
    assert_eq!(view["limit"], 2000);
    assert_eq!(view["current"]["text"], STAGES);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_limit_is_refused_with_the_count_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let r = app.save_core(&ada, SALES, 0, &tokens(2410)).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let b = body(r).await;
    assert_eq!(b["error"], "over_limit");
    assert_eq!(b["message"], "This core is over its limit: 2,410 of 2,000 tokens");
    let (_, versions) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions")).await;
    assert_eq!(versions["versions"].as_array().unwrap().len(), 0);
    // Exactly at the limit is fine.
    assert_eq!(app.save_core(&ada, SALES, 0, &tokens(2000)).await.status(), StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_based_on_an_old_version_is_refused() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    assert_eq!(app.save_core(&ada, SALES, 0, "one").await.status(), StatusCode::CREATED);
    assert_eq!(app.save_core(&ada, SALES, 1, "two").await.status(), StatusCode::CREATED);
    let r = app.save_core(&ada, SALES, 1, "stale").await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let b = body(r).await;
    assert_eq!(b["error"], "changed");
    assert_eq!(b["message"], "This core changed since you opened it: reload and try again");
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}")).await;
    assert_eq!(view["current"]["text"], "two");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_saves_on_one_version_give_exactly_one_new_version() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    assert_eq!(app.save_core(&ada, SALES, 0, "base").await.status(), StatusCode::CREATED);
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for i in 0..32 {
        let (app, ada) = (app.clone(), ada.clone());
        tasks.push(tokio::spawn(async move {
            let r = app.save_core(&ada, SALES, 1, &format!("writer {i}")).await;
            (r.status(), body(r).await)
        }));
    }
    let mut created = Vec::new();
    let mut refused = 0;
    for t in tasks {
        let (status, b) = t.await.unwrap();
        match status {
            StatusCode::CREATED => created.push(b),
            StatusCode::CONFLICT => {
                assert_eq!(b["error"], "changed");
                refused += 1;
            }
            other => panic!("unexpected {other}: {b}"),
        }
    }
    assert_eq!(created.len(), 1, "exactly one save wins");
    assert_eq!(refused, 31);
    let (_, versions) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions")).await;
    let numbers: Vec<i64> =
        versions["versions"].as_array().unwrap().iter().map(|v| v["version"].as_i64().unwrap()).collect();
    assert_eq!(numbers, vec![2, 1], "no lost or duplicated versions");
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}")).await;
    assert_eq!(view["current"]["text"], created[0]["text"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_saves_also_race_to_exactly_one() {
    let app = std::sync::Arc::new(spawn_app().await);
    let ada = app.sign_in("ada").await;
    let sam = app.sign_in("sam").await;
    let team = team_id(&app, &ada, "Sales Bengaluru").await;
    let scope = format!("team:{team}");
    let mut tasks = Vec::new();
    for i in 0..16 {
        let (app, c, scope) = (app.clone(), if i % 2 == 0 { ada.clone() } else { sam.clone() }, scope.clone());
        tasks.push(tokio::spawn(async move { app.save_core(&c, &scope, 0, &format!("first {i}")).await.status() }));
    }
    let mut ok = 0;
    for t in tasks {
        if t.await.unwrap() == StatusCode::CREATED {
            ok += 1;
        }
    }
    assert_eq!(ok, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_change_company_cores() {
    let app = spawn_app().await;
    let alice = app.sign_in("alice").await;
    let r = app.save_core(&alice, SALES, 0, STAGES).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let b = body(r).await;
    assert_eq!(b["error"], "not_allowed");
    assert_eq!(b["message"], "Only an admin can change the company core for Sales");
    // Alice may still read it.
    let (status, view) = app.get_json(&alice, &format!("/api/memory/cores/{SALES}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(view["may_edit"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_core_is_for_its_lead_or_an_admin_and_holds_1000_tokens() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let alice = app.sign_in("alice").await;
    let sam = app.sign_in("sam").await;
    let scope = format!("team:{}", team_id(&app, &ada, "Sales Bengaluru").await);
    let r = app.save_core(&alice, &scope, 0, "x").await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(body(r).await["message"], "Only Sales Bengaluru's lead or an admin can change this core");
    let r = app.save_core(&sam, &scope, 0, &tokens(1001)).await;
    assert_eq!(body(r).await["message"], "This core is over its limit: 1,001 of 1,000 tokens");
    assert_eq!(app.save_core(&sam, &scope, 0, &tokens(1000)).await.status(), StatusCode::CREATED);
    assert_eq!(app.save_core(&ada, &scope, 1, "admin edit").await.status(), StatusCode::CREATED);
    // A team's limit is not an admin's to raise.
    let r = ada.post(app.url(&format!("/api/memory/cores/{scope}/limit"))).json(&json!({"limit": 3000})).send().await;
    assert_eq!(r.unwrap().status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_raises_the_company_core_limit_up_to_6000() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let alice = app.sign_in("alice").await;
    let limit = |c: &reqwest::Client, n: u32| {
        c.post(app.url(&format!("/api/memory/cores/{SALES}/limit"))).json(&json!({ "limit": n })).send()
    };
    let r = limit(&alice, 3000).await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(body(r).await["message"], "Only an admin can change the company core limit for Sales");
    let r = limit(&ada, 6001).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body(r).await["message"], "A company core limit can be at most 6,000 tokens");
    assert_eq!(limit(&ada, 6000).await.unwrap().status(), StatusCode::NO_CONTENT);
    // A run of the role now carries the whole, larger core.
    assert_eq!(app.save_core(&ada, SALES, 0, &tokens(2410)).await.status(), StatusCode::CREATED);
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}")).await;
    assert_eq!(view["limit"], 6000);
    // It cannot go below what the core already holds.
    let r = limit(&ada, 2000).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        body(r).await["message"],
        "The company core for Sales already holds 2,410 tokens, so its limit cannot be lower"
    );
    let (_, roles) = app.get_json(&ada, "/api/memory/roles").await;
    let sales = roles["roles"].as_array().unwrap().iter().find(|r| r["role"]["name"] == "Sales").unwrap().clone();
    assert_eq!(sales["limit"], 6000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_brings_an_old_text_back_as_a_new_version() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    app.save_core(&ada, SALES, 0, "first text").await;
    app.save_core(&ada, SALES, 1, "second text").await;
    let (_, v1) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions/1")).await;
    assert_eq!(v1["may_restore"], true);
    let diff = v1["diff_to_current"].as_array().unwrap();
    assert!(diff.contains(&json!({"Removed": "first text"})) && diff.contains(&json!({"Added": "second text"})));
    let restore = |from: u32, based_on: u32| {
        ada.post(app.url(&format!("/api/memory/cores/{SALES}/restore")))
            .json(&json!({ "from": from, "based_on": based_on }))
            .send()
    };
    let r = restore(1, 2).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let saved = body(r).await;
    assert_eq!(saved["version"], 3);
    assert_eq!(saved["text"], "first text");
    assert_eq!(saved["restored_from"], 1);
    assert_eq!(saved["note"], "Restored version 1");
    // A restore based on an old version is refused like any save.
    assert_eq!(restore(2, 2).await.unwrap().status(), StatusCode::CONFLICT);
    let (_, versions) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions")).await;
    assert_eq!(versions["versions"].as_array().unwrap().len(), 3);
    // Alice may not restore.
    let alice = app.sign_in("alice").await;
    let r = alice
        .post(app.url(&format!("/api/memory/cores/{SALES}/restore")))
        .json(&json!({ "from": 2, "based_on": 3 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggestions_are_accepted_refused_when_stale_or_too_long_and_dismissed() {
    let app = spawn_app().await;
    suggest_demo_lines(&app).await;
    let ada = app.sign_in("ada").await;
    let support = "company:role:support";
    let (_, view) = app.get_json(&ada, &format!("/api/memory/cores/{support}")).await;
    let s = view["suggestions"][0].clone();
    assert_eq!(s["source"], "nightly job");
    assert!(!s["why"].as_str().unwrap().is_empty() && !s["rests_on"].as_str().unwrap().is_empty());
    let id = s["id"].as_i64().unwrap();
    let r = ada.post(app.url(&format!("/api/memory/suggestions/{id}/accept"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let saved = body(r).await;
    assert_eq!(saved["version"], 1);
    assert_eq!(saved["text"], s["line"]);
    let r = ada.post(app.url(&format!("/api/memory/suggestions/{id}/accept"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);

    // The team core changes after its suggestion was made: Accept is refused and it stays open.
    let scope = format!("team:{}", team_id(&app, &ada, "Sales Bengaluru").await);
    let (_, team_view) = app.get_json(&ada, &format!("/api/memory/cores/{scope}")).await;
    let tid = team_view["suggestions"][0]["id"].as_i64().unwrap();
    app.save_core(&ada, &scope, 0, "Deals close in the quarter they are booked.").await;
    let r = ada.post(app.url(&format!("/api/memory/suggestions/{tid}/accept"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(body(r).await["error"], "suggestion_stale");
    let (_, team_view) = app.get_json(&ada, &format!("/api/memory/cores/{scope}")).await;
    assert_eq!(team_view["suggestions"][0]["id"], tid, "still open");
    assert_eq!(team_view["current"]["version"], 1);

    // A line that would take the core over its limit is refused and left open.
    let full = app.save_core(&ada, &scope, 1, &tokens(1000)).await;
    assert_eq!(full.status(), StatusCode::CREATED);
    let fresh = app
        .cores
        .suggest_core_line(
            &engine::cores::CoreScope::parse(&scope).unwrap(),
            "One more line.",
            "why",
            "rests",
            "weekly job",
        )
        .await
        .unwrap();
    let r = ada.post(app.url(&format!("/api/memory/suggestions/{}/accept", fresh.id))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body(r).await["message"].as_str().unwrap().starts_with("This line would take the core over its limit"));

    // Alice is not an owner: she sees no queue and cannot decide.
    let alice = app.sign_in("alice").await;
    let (_, alice_view) = app.get_json(&alice, &format!("/api/memory/cores/{scope}")).await;
    assert_eq!(alice_view["suggestions"].as_array().unwrap().len(), 0);
    let r = alice.post(app.url(&format!("/api/memory/suggestions/{tid}/dismiss"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);

    // Dismiss changes nothing but the suggestion's state.
    let r = ada.post(app.url(&format!("/api/memory/suggestions/{tid}/dismiss"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (_, after) = app.get_json(&ada, &format!("/api/memory/cores/{scope}")).await;
    assert_eq!(after["current"]["version"], 2);
    assert!(after["suggestions"].as_array().unwrap().iter().all(|s| s["id"] != tid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_scope_is_404() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    let (status, b) = app.get_json(&ada, "/api/memory/cores/company:role:nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(b["message"], "There is no role role:nope");
    let (status, _) = app.get_json(&ada, "/api/memory/cores/bogus").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The version numbers of one page of History, and the `before` that asks for the next one.
async fn history(app: &TestApp, c: &reqwest::Client, query: &str) -> (Vec<i64>, serde_json::Value) {
    let (status, page) = app.get_json(c, &format!("/api/memory/cores/{SALES}/versions{query}")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let numbers = page["versions"].as_array().unwrap().iter().map(|v| v["version"].as_i64().unwrap()).collect();
    (numbers, page)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_comes_twenty_versions_at_a_time_newest_first() {
    let app = spawn_app().await;
    let ada = app.sign_in("ada").await;
    for v in 1..=20 {
        assert_eq!(app.save_core(&ada, SALES, v - 1, &format!("text {v}")).await.status(), StatusCode::CREATED);
    }
    // Exactly 20: one page, nothing older.
    let (numbers, page) = history(&app, &ada, "").await;
    assert_eq!(numbers, (1..=20).rev().collect::<Vec<_>>());
    assert_eq!((&page["next_before"], &page["next"]), (&json!(null), &json!(null)), "{page}");

    // 21: the latest 20, and the way to the one older version.
    assert_eq!(app.save_core(&ada, SALES, 20, "text 21").await.status(), StatusCode::CREATED);
    let (numbers, page) = history(&app, &ada, "").await;
    assert_eq!(numbers, (2..=21).rev().collect::<Vec<_>>());
    assert_eq!(page["next_before"], 2);
    assert_eq!(page["next"], format!("/api/memory/cores/{SALES}/versions?before=2"));
    let (numbers, page) = history(&app, &ada, "?before=2").await;
    assert_eq!(numbers, vec![1]);
    assert_eq!(page["next"], json!(null));

    // Nothing is older than version 1; a `before` past the current version starts from the latest.
    let (numbers, page) = history(&app, &ada, "?before=1").await;
    assert!(numbers.is_empty());
    assert_eq!(page["next"], json!(null));
    let (numbers, page) = history(&app, &ada, "?before=500").await;
    assert_eq!(numbers, (2..=21).rev().collect::<Vec<_>>());
    assert_eq!(page["next_before"], 2);
    let (numbers, _) = history(&app, &ada, "?before=12").await;
    assert_eq!(numbers, (1..=11).rev().collect::<Vec<_>>());

    // A `before` that is not a version number is refused, plainly.
    for bad in ["abc", "0", "-3", "", "2.5", "99999999999"] {
        let (status, b) = app.get_json(&ada, &format!("/api/memory/cores/{SALES}/versions?before={bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {b}");
        assert_eq!(b["error"], "invalid_before");
        assert_eq!(
            b["message"], "Older versions are asked for with a version number from 1, such as ?before=21",
            "{bad}"
        );
    }
}
