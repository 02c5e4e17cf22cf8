//! A bot's own tokens against the running server: they expire after `ENGRAM_BOT_TOKEN_DAYS`, its
//! owner or lead lists and revokes them (API, page with JavaScript off, CLI) and nobody else, and
//! they stop for good when the roster names another owner.

use crate::helpers::*;
use crate::helpers::{bearer_get as get, bearer_post as post};
use crate::model_server::no_models;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// `engram org <args>` against this server's database and vault, with the bot tokens' lifetime
/// set to `days`, as `ENGRAM_BOT_TOKEN_DAYS` sets it.
async fn org_cli_with_days(app: &TestApp, days: u32, args: &[&str]) -> String {
    use clap::Parser;
    let mut settings = app.settings.clone();
    settings.bot_token_days = days;
    let parsed = server::cli::Cli::try_parse_from(["engram", "org"].iter().chain(args)).expect("parse");
    let Some(server::cli::Command::Org(org)) = parsed.command else { panic!("not an org command: {args:?}") };
    let mut out = Vec::new();
    server::bots_cli::run(&org, &settings, &mut out).await.expect("the command runs");
    String::from_utf8(out).expect("utf-8").trim().to_string()
}

async fn scout_token(app: &TestApp) -> String {
    app.org_cli(&["token", "scout", "--as", "sam"]).await.expect("sam owns scout").trim().to_string()
}

const EPISODES: &str = "/api/org/agents/scout/episodes";

/// Names another owner for scout in the compiled roster, as recompiling org.yaml would.
fn set_scout_owner(app: &TestApp, email: &str) {
    let path = app.vault().join(".agents/org/org-agents.json");
    let mut roster: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    roster["agents"]["scout"]["owner"] = json!(email);
    std::fs::write(&path, serde_json::to_string_pretty(&roster).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_token_works_for_the_days_set_and_then_is_refused_as_expired() {
    let app = spawn_bots_app(no_models(), 200).await;
    let token = org_cli_with_days(&app, 2, &["token", "scout", "--as", "sam", "--name", "short"]).await;
    assert_eq!(get(&app, &token, EPISODES).await.0, StatusCode::OK);

    let sam = token_for(&app, "sam").await;
    let (s, listed) = get(&app, &sam, "/api/org/agents/scout/tokens").await;
    assert_eq!(s, StatusCode::OK, "{listed}");
    let t = &listed[0];
    assert_eq!((t["name"].as_str(), t["made_by"].as_str()), (Some("short"), Some("Sam Rao")), "{t}");
    let made: chrono::DateTime<chrono::Utc> = t["created_at"].as_str().unwrap().parse().unwrap();
    let ends: chrono::DateTime<chrono::Utc> = t["expires_at"].as_str().unwrap().parse().unwrap();
    assert_eq!(ends - made, chrono::Duration::days(2), "ENGRAM_BOT_TOKEN_DAYS=2");
    assert!(t["last_used_at"].is_string(), "the use above is recorded: {t}");
    assert!(t.get("secret_hash").is_none() && !t.to_string().contains(&token), "never the token: {t}");

    app.clock.advance(chrono::Duration::days(2) + chrono::Duration::minutes(1));
    let (s, v) = get(&app, &token, EPISODES).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{v}");
    assert_eq!(v["error"], "token_expired");
    let expected = format!("That bot token expired on {}.", ends.format("%Y-%m-%d %H:%M UTC"));
    assert!(v["message"].as_str().unwrap().starts_with(&expected), "{v}");

    // The default lifetime is 90 days.
    let default = scout_token(&app).await;
    let (_, listed) = get(&app, &sam, "/api/org/agents/scout/tokens").await;
    let made: chrono::DateTime<chrono::Utc> = listed[0]["created_at"].as_str().unwrap().parse().unwrap();
    let ends: chrono::DateTime<chrono::Utc> = listed[0]["expires_at"].as_str().unwrap().parse().unwrap();
    assert_eq!(ends - made, chrono::Duration::days(90));
    assert_eq!(get(&app, &default, EPISODES).await.0, StatusCode::OK, "made by the CLI's clock, used by the server's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_and_the_lead_list_and_revoke_and_others_are_refused() {
    let app = spawn_bots_app(no_models(), 200).await;
    let first = scout_token(&app).await;
    let second = scout_token(&app).await;
    let (sam, ada, bob) = (token_for(&app, "sam").await, token_for(&app, "ada").await, token_for(&app, "bob").await);
    const TOKENS: &str = "/api/org/agents/scout/tokens";

    let (s, by_owner) = get(&app, &sam, TOKENS).await;
    assert_eq!(s, StatusCode::OK, "{by_owner}");
    let (s, by_lead) = get(&app, &ada, TOKENS).await;
    assert_eq!((s, &by_lead), (StatusCode::OK, &by_owner), "the lead sees what the owner sees");
    let ids: Vec<i64> = by_owner.as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids[0] > ids[1], "newest first: {ids:?}");

    let (s, v) = get(&app, &bob, TOKENS).await;
    assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("not_allowed")), "{v}");
    let (s, v) = get(&app, &first, TOKENS).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a bot's own token sees no tokens: {v}");
    let (s, v) = post(&app, &bob, &format!("{TOKENS}/{}/revoke", ids[1]), json!({})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(get(&app, &first, EPISODES).await.0, StatusCode::OK, "bob's refusal changed nothing");

    // The lead revokes the older token over the API; it stops at once, and the revoke is audited.
    let (s, v) = post(&app, &ada, &format!("{TOKENS}/{}/revoke", ids[1]), json!({})).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
    let (s, v) = get(&app, &first, EPISODES).await;
    assert_eq!((s, v["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("bad_token")), "{v}");
    let (s, v) = post(&app, &ada, &format!("{TOKENS}/{}/revoke", ids[1]), json!({})).await;
    assert_eq!((s, v["error"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "only once: {v}");
    let audit = app.store.audit_log(20).await.unwrap();
    let revoke = audit.iter().find(|e| e.action == "agent_token.revoke").expect("the revoke is audited");
    assert_eq!(revoke.subject, "agent:scout");
    assert_eq!(revoke.detail, format!("token:{} revoked", ids[1]));
    let ada_id = app.store.credentials("ada@acme.example").await.unwrap().unwrap().0.id;
    assert_eq!(revoke.actor, Some(ada_id));

    // The owner revokes the other on the bot's page, with JavaScript off.
    let page_client = app.sign_in("sam").await;
    let (s, html) = app.page(&page_client, "/org/agents/scout").await;
    assert_eq!(s, StatusCode::OK);
    assert!(html.contains("id=\"tokens\"") && html.contains(&format!("#{} dispatcher", ids[0])), "{html}");
    let r =
        app.form_post(&page_client, "/fn/revoke_agent_token", &[("agent", "scout"), ("id", &ids[0].to_string())]).await;
    assert!(r.status().is_redirection(), "{}", r.status());
    let (_, html) = app.page(&page_client, "/org/agents/scout").await;
    assert!(
        html.contains(&format!("Revoked scout&#x27;s token #{}", ids[0]))
            || html.contains(&format!("Revoked scout's token #{}", ids[0])),
        "{html}"
    );
    assert_eq!(get(&app, &second, EPISODES).await.0, StatusCode::UNAUTHORIZED);

    // Someone neither owner nor lead sees no Tokens section.
    let (_, html) = app.page(&app.sign_in("bob").await, "/org/agents/scout").await;
    assert!(!html.contains("id=\"tokens\""), "{html}");

    // The command line: the owner lists, someone else is refused.
    let third = scout_token(&app).await;
    let listed = app.org_cli(&["tokens", "scout", "--as", "sam"]).await.unwrap();
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(listed.lines().nth(1).unwrap().contains("revoked"), "{listed}");
    assert!(!listed.contains(&third), "never the token: {listed}");
    let newest: i64 =
        listed.lines().next().unwrap().trim_start_matches('#').split(' ').next().unwrap().parse().unwrap();
    let refused = app.org_cli(&["revoke-token", "scout", &newest.to_string(), "--as", "bob"]).await.unwrap_err();
    assert!(refused.message.contains("Only scout's owner or lead"), "{refused:?}");
    assert_eq!(get(&app, &third, EPISODES).await.0, StatusCode::OK);
    let done = app.org_cli(&["revoke-token", "scout", &newest.to_string(), "--as", "ada"]).await.unwrap();
    assert!(done.contains("revoked scout's token"), "{done}");
    assert_eq!(get(&app, &third, EPISODES).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_owner_stops_every_token_made_before_for_good() {
    let app = spawn_bots_app(no_models(), 200).await;
    let token = scout_token(&app).await;
    assert_eq!(get(&app, &token, EPISODES).await.0, StatusCode::OK);

    set_scout_owner(&app, "sue@acme.example");
    let (s, v) = get(&app, &token, EPISODES).await;
    assert_eq!((s, v["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("owner_changed")), "{v}");
    assert!(v["message"].as_str().unwrap().contains("scout's owner changed"), "{v}");

    // Naming sam owner again does not bring the token back.
    set_scout_owner(&app, "sam@acme.example");
    let (s, v) = get(&app, &token, EPISODES).await;
    assert_eq!((s, v["error"].as_str()), (StatusCode::UNAUTHORIZED, Some("owner_changed")), "{v}");
    let sam = token_for(&app, "sam").await;
    let (_, listed) = get(&app, &sam, "/api/org/agents/scout/tokens").await;
    assert_eq!(listed[0]["revoked_why"], "owner_changed", "{listed}");
    let audit = app.store.audit_log(20).await.unwrap();
    let stop = audit.iter().find(|e| e.action == "agent_token.revoke").expect("the stop is audited");
    assert_eq!((stop.actor, stop.detail.ends_with("owner_changed")), (None, true), "{stop:?}");

    // A token the current owner makes works.
    let fresh = scout_token(&app).await;
    assert_eq!(get(&app, &fresh, EPISODES).await.0, StatusCode::OK);
}
