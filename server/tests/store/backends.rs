//! The two runners (a fresh SQLite file, a fresh PostgreSQL database) and the fixtures every case
//! starts from. Fixtures are made through the store traits themselves, so they hold on both.

use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::org::{Agent, Company, Person, PersonId, Role, RoleSlug, Team, TimeZoneName};
use engine::store::{Actor, NewAgent, NewPerson, Store};
use server::secrets::{SecretBox, SecretKey};
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::future::Future;
use std::sync::Arc;

pub type Db = Arc<dyn Store>;

/// The variable naming a PostgreSQL server where the suite may create and drop databases.
pub const POSTGRES_URL_VAR: &str = "ENGRAM_TEST_POSTGRES_URL";

/// Runs one case twice: `sqlite_<case>` and `postgres_<case>`. Each name is spelled out, since a
/// `macro_rules!` macro cannot join identifiers.
macro_rules! on_both {
    ($($case:ident: $sqlite:ident, $postgres:ident;)+) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $sqlite() {
                $crate::backends::on_sqlite($case).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $postgres() {
                $crate::backends::on_postgres($case).await;
            }
        )+
    };
}
pub(crate) use on_both;

/// As `on_both!`, for cases that take the concrete `AnyStore`.
macro_rules! on_both_stores {
    ($($case:ident: $sqlite:ident, $postgres:ident;)+) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $sqlite() {
                $crate::backends::on_sqlite_store($case).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $postgres() {
                $crate::backends::on_postgres_store($case).await;
            }
        )+
    };
}
pub(crate) use on_both_stores;

pub async fn on_sqlite<F, Fut>(case: F)
where
    F: FnOnce(Db) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    on_sqlite_store(|s: AnyStore| case(s.shared())).await;
}

/// As `on_sqlite`, for cases that need the concrete store: its pool, or its secret key.
pub async fn on_sqlite_store<F, Fut>(case: F)
where
    F: FnOnce(AnyStore) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let dir = tempfile::tempdir().expect("a temporary folder");
    let url = format!("sqlite://{}/contract.db", dir.path().display());
    let store = AnyStore::open(&url).await.expect("open a fresh SQLite file");
    case(unlocked(store).await).await;
}

/// The secret key every store in the suite seals connector keys with, as a served one does.
pub const SUITE_KEY: &str = "c3VpdGUga2V5OiAzMiBieXRlcyBvZiB0ZXN0IGtleSE=";

pub fn suite_key() -> Arc<SecretBox> {
    Arc::new(SecretBox::new(&SecretKey::parse(SUITE_KEY).expect("the suite's key parses")))
}

pub async fn unlocked(store: AnyStore) -> AnyStore {
    store.unlock(suite_key(), at(0)).await.expect("unlock a fresh database").0
}

/// Creates a database of its own on the server named by `ENGRAM_TEST_POSTGRES_URL`, runs the case
/// there, and drops the database whether the case passed or not.
pub async fn on_postgres<F, Fut>(case: F)
where
    F: FnOnce(Db) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    on_postgres_store(|s: AnyStore| case(s.shared())).await;
}

/// As `on_postgres`, for cases that need the concrete store.
pub async fn on_postgres_store<F, Fut>(case: F)
where
    F: FnOnce(AnyStore) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Ok(admin) = std::env::var(POSTGRES_URL_VAR) else {
        panic!(
            "{POSTGRES_URL_VAR} is not set: set it to a PostgreSQL server where tests may create databases \
             (postgres://postgres@127.0.0.1:5432/postgres), or run scripts/check, which starts one"
        );
    };
    let name = format!("t_{:016x}", rand::random::<u64>());
    let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL test server");
    conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create a test database");
    let mut url = reqwest::Url::parse(&admin).expect("ENGRAM_TEST_POSTGRES_URL is a URL");
    url.set_path(&format!("/{name}"));
    let store = match AnyStore::open(url.as_str()).await {
        Ok(store) => unlocked(store).await,
        Err(e) => {
            let _ = conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await;
            panic!("open and migrate the test database: {e}");
        }
    };
    // The case runs in a task of its own so that a failing case still drops its database; its
    // panic message has already been printed there.
    let outcome = tokio::spawn(case(store)).await;
    // FORCE ends connections the store's pool still holds.
    let dropped = conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await;
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
    dropped.expect("drop the test database");
}

/// Times are whole seconds so they read back equal from both backends (PostgreSQL keeps microseconds).
pub fn at(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap() + Duration::minutes(minutes)
}

pub fn actor(person: Option<PersonId>, minutes: i64) -> Actor {
    Actor { person, at: at(minutes) }
}

pub fn slug(s: &str) -> RoleSlug {
    RoleSlug::parse(s).expect("a role slug")
}

pub fn company() -> Company {
    Company {
        name: "Acme".into(),
        time_zone: TimeZoneName::parse("Europe/Berlin").unwrap(),
        locale: Default::default(),
    }
}

pub fn new_person(name: &str, email: &str) -> NewPerson {
    NewPerson {
        name: name.into(),
        email: email.into(),
        password_hash: format!("hash-of-{name}"),
        is_admin: false,
        main_team: None,
    }
}

/// A small company: two roles, a team with the sales role, an admin, two members, and a bot.
pub struct Org {
    pub sales: Role,
    pub support: Role,
    pub team: Team,
    pub admin: Person,
    pub alice: Person,
    pub bob: Person,
    pub agent: Agent,
}

impl Org {
    pub fn by_admin(&self, minutes: i64) -> Actor {
        actor(Some(self.admin.id), minutes)
    }
}

pub async fn org(db: &Db) -> Org {
    let system = actor(None, 0);
    db.create_company(&company(), system).await.expect("create the company");
    let sales = db.create_role(&slug("sales"), "Sales", 2_000, system).await.expect("create role sales");
    let support = db.create_role(&slug("support"), "Support", 2_000, system).await.expect("create role support");
    let team = db.create_team("Deals", Some(sales.id), system).await.expect("create team");
    let admin = db
        .create_person(&NewPerson { is_admin: true, ..new_person("Ada Admin", "ada@acme.test") }, system)
        .await
        .expect("create the admin");
    let alice = db
        .create_person(&NewPerson { main_team: Some(team.id), ..new_person("Alice", "alice@acme.test") }, system)
        .await
        .expect("create alice");
    let bob = db
        .create_person(&NewPerson { main_team: Some(team.id), ..new_person("Bob", "bob@acme.test") }, system)
        .await
        .expect("create bob");
    let agent = db
        .create_agent(
            &NewAgent {
                name: "dealbot".into(),
                template: "sales-assistant".into(),
                role: Some(sales.id),
                owner: alice.id,
                team_copy: Some(team.id),
            },
            system,
        )
        .await
        .expect("create the agent");
    Org { sales, support, team, admin, alice, bob, agent }
}

/// Runs one statement written with `?` placeholders, numbered for PostgreSQL.
pub async fn exec(store: &AnyStore, sql: &str, args: &[&str]) {
    match store {
        AnyStore::Sqlite(s) => {
            let mut q = sqlx::query(sql);
            for a in args {
                q = q.bind(*a);
            }
            q.execute(s.pool()).await.expect(sql);
        }
        AnyStore::Postgres(s) => {
            let mut n = 0;
            let numbered: String = sql
                .chars()
                .map(|c| {
                    if c == '?' {
                        n += 1;
                        format!("${n}")
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            let mut q = sqlx::query(&numbered);
            for a in args {
                q = q.bind(*a);
            }
            q.execute(s.pool()).await.expect(sql);
        }
    }
}
