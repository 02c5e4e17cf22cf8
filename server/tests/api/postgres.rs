//! The server on PostgreSQL, whatever `ENGRAM_TEST_BACKEND` says: these run in every test run.

use crate::helpers::*;
use reqwest::StatusCode;
use sqlx::Connection;

const SALES: &str = "company:role:sales";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_url_serves_from_postgresql() {
    let app = spawn_postgres_app().await;
    let ada = app.sign_in("ada").await;
    assert_eq!(app.save_core(&ada, SALES, 0, "Stages: New, Won, Lost.").await.status(), StatusCode::CREATED);

    // Read behind the server's back, straight from the database the URL names.
    let mut conn = sqlx::PgConnection::connect(&app.database_url).await.expect("connect to the app's database");
    let company: String =
        sqlx::query_scalar("SELECT name FROM company WHERE id = 1").fetch_one(&mut conn).await.unwrap();
    assert_eq!(company, "Acme");
    let people: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM people").fetch_one(&mut conn).await.unwrap();
    assert_eq!(people, 7);
    let body: String = sqlx::query_scalar("SELECT body FROM core_versions WHERE scope_key = $1 AND version = 1")
        .bind(SALES)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(body, "Stages: New, Won, Lost.");
    // Sessions are in the database too, so servers sharing it share them.
    let sessions: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM tower_sessions.session").fetch_one(&mut conn).await.unwrap();
    assert!(sessions >= 1, "the sign-in's session is stored in PostgreSQL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_honoured_by_another_server_on_the_same_postgresql_database() {
    let first = spawn_postgres_app().await;
    let r = first.post_sign_in(&client(), "alice@acme.example", "engram-demo").await;
    let cookie = r.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let second = spawn_app_on(&first.database_url).await;
    let r = reqwest::Client::new().get(second.url("/api/me")).header("cookie", &cookie).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body(r).await["name"], "Alice Chen");
    let people = second.store.directory().await.unwrap().people;
    assert_eq!(people.len(), 7, "the second server reused the seeded company instead of seeding again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_saves_split_across_two_servers_give_exactly_one_new_version() {
    let app = spawn_postgres_app().await;
    let ada = app.sign_in("ada").await;
    assert_eq!(app.save_core(&ada, SALES, 0, "base").await.status(), StatusCode::CREATED);
    // A second server on the same database, as behind a load balancer.
    let other = std::sync::Arc::new(spawn_app_on(&app.database_url).await);
    let ada_on_other = other.sign_in("ada").await;
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for i in 0..32 {
        let (server, ada) = if i % 2 == 0 { (app.clone(), ada.clone()) } else { (other.clone(), ada_on_other.clone()) };
        tasks.push(tokio::spawn(async move {
            let r = server.save_core(&ada, SALES, 1, &format!("writer {i}")).await;
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
async fn an_unknown_database_scheme_stops_the_start() {
    let mut settings = server::Settings::from_env();
    settings.database_url = "mysql://root:secret@127.0.0.1/engram".to_string();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let e = server::Application::build(settings, listener).await.err().expect("refused");
    assert_eq!(
        e.to_string(),
        "could not open the database: the database URL must begin with sqlite:// or postgres:// \
         (or postgresql://), not \"mysql:\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clis_read_only_opening_of_postgresql_refuses_writes() {
    use engine::store::{Actor, OrgStore};
    let app = spawn_postgres_app().await;
    let store = server::store::PgStore::open_read_only(&app.database_url).await.expect("open read-only");
    assert_eq!(store.directory().await.unwrap().people.len(), 7, "it reads");
    let slug = engine::org::RoleSlug::parse("legal").unwrap();
    let refused = store.create_role(&slug, "Legal", 2000, Actor { person: None, at: chrono::Utc::now() }).await;
    assert!(refused.is_err(), "a read-only session cannot write");
    assert!(app.store.role(&slug).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forgetting_job_due_on_two_servers_runs_once() {
    let first = spawn_postgres_app().await;
    let second = spawn_app_on(&first.database_url).await;
    // 02:01 in Kolkata tomorrow, on both servers' clocks.
    let tomorrow = engine::Clock::now(first.clock.as_ref()).date_naive() + chrono::Duration::days(1);
    let due = tomorrow.and_hms_opt(20, 31, 0).unwrap().and_utc();
    first.clock.set(due);
    second.clock.set(due);
    let (a, b) = tokio::join!(first.memory.prepare.forgetting_due(), second.memory.prepare.forgetting_due());
    let ran = [a.unwrap(), b.unwrap()].iter().filter(|r| r.is_some()).count();
    assert_eq!(ran, 1, "one server runs the day's job");
    assert_eq!(first.memory.prepare.forgetting_due().await.unwrap(), None, "and neither runs it again that day");
    assert_eq!(second.memory.prepare.forgetting_due().await.unwrap(), None);
}
