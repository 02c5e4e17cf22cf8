//! Prints how long a CSV import of 10,000 people takes: the dry run (reading the file and checking
//! every row against the organisation), and the apply (the same checks, then everyone, their
//! invites and one audit row in one transaction). Then the same again with a second file of
//! 10,000 into the 10,000 people the first added, so the checks run against a full directory.
//!
//! Run with `cargo bench -p server --bench import`; the backend is `ENGRAM_BENCH_BACKEND` (`sqlite`,
//! the default, or `postgres`), or `sqlite`/`postgres` after `--`. PostgreSQL gets a new database on
//! `ENGRAM_BENCH_POSTGRES_URL` (else `ENGRAM_TEST_POSTGRES_URL`), dropped at the end. Figures are
//! printed, never asserted.

use chrono::Utc;
use engine::org::service::{ImportBy, OrgService};
use engine::org::{Company, RoleSlug, TimeZoneName};
use engine::store::{Actor, NewPerson, Store};
use engine::SystemClock;
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROWS: usize = 10_000;
const TEAMS: usize = 50;
const ROLES: [&str; 5] = ["Engineering", "Finance", "Marketing", "Sales", "Support"];

fn report(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line);
    let _ = out.write_all(b"\n");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A new, empty database: its URL, its label, and what removes it afterwards.
struct BenchDatabase {
    url: String,
    label: String,
    dir: tempfile::TempDir,
    postgres: Option<(String, String)>,
}

impl BenchDatabase {
    async fn create(postgres: bool) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        if !postgres {
            return Self {
                url: format!("sqlite://{}/bench.db", dir.path().display()),
                label: "SQLite (WAL, synchronous=NORMAL)".to_string(),
                dir,
                postgres: None,
            };
        }
        let admin = std::env::var("ENGRAM_BENCH_POSTGRES_URL")
            .or_else(|_| std::env::var("ENGRAM_TEST_POSTGRES_URL"))
            .expect("set ENGRAM_BENCH_POSTGRES_URL (or ENGRAM_TEST_POSTGRES_URL) to a PostgreSQL admin URL");
        let name = format!("bench_{:016x}", rand::random::<u64>());
        let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL server");
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create the bench database");
        let version: String =
            sqlx::query_scalar("SHOW server_version").fetch_one(&mut conn).await.expect("read the version");
        let fsync: String = sqlx::query_scalar("SHOW fsync").fetch_one(&mut conn).await.expect("read fsync");
        let mut url = reqwest::Url::parse(&admin).expect("the PostgreSQL URL is a URL");
        url.set_path(&format!("/{name}"));
        Self {
            url: url.to_string(),
            label: format!("PostgreSQL {version} (fsync={fsync})"),
            dir,
            postgres: Some((admin, name)),
        }
    }

    async fn drop_database(self) {
        if let Some((admin, name)) = &self.postgres {
            let mut conn = PgConnection::connect(admin).await.expect("connect to the PostgreSQL server");
            conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.expect("drop the bench database");
        }
        drop(self.dir);
    }
}

/// A file of `ROWS` people, one in three with a role of their own, in the teams round robin,
/// with every tenth name quoted as spreadsheets write "Surname, Given".
fn csv(file: usize) -> String {
    let mut text = String::from("name,email,team,role\r\n");
    for i in 0..ROWS {
        let name =
            if i.is_multiple_of(10) { format!("\"Person {file}-{i}, Jr.\"") } else { format!("Person {file}-{i}") };
        let role = if i.is_multiple_of(3) { ROLES[i % ROLES.len()] } else { "" };
        text.push_str(&format!("{name},p{file}.{i}@acme.example,Team {},{role}\r\n", i % TEAMS));
    }
    text
}

async fn run(postgres: bool) {
    let db = BenchDatabase::create(postgres).await;
    report(format_args!("backend: {}", db.label));
    let store = AnyStore::open(&db.url).await.expect("open the store");
    let shared: Arc<dyn Store> = store.shared();
    let system = Actor { person: None, at: Utc::now() };
    let company = Company {
        name: "Acme".into(),
        time_zone: TimeZoneName::parse("Europe/Berlin").unwrap(),
        locale: Default::default(),
    };
    shared.create_company(&company, system).await.expect("the company");
    let mut roles = Vec::new();
    for name in ROLES {
        let slug = RoleSlug::from_name(name).unwrap();
        roles.push(shared.create_role(&slug, name, 2_000, system).await.expect("a role"));
    }
    for t in 0..TEAMS {
        shared.create_team(&format!("Team {t}"), Some(roles[t % roles.len()].id), system).await.expect("a team");
    }
    let admin = NewPerson {
        name: "Ada Admin".into(),
        email: "ada@acme.example".into(),
        password_hash: "x".into(),
        is_admin: true,
        main_team: None,
    };
    let admin = shared.create_person(&admin, system).await.expect("the admin");
    let org = OrgService::new(shared.clone(), Arc::new(SystemClock));
    let by = ImportBy::Person(&admin);

    for file in 1..=2 {
        let text = csv(file);
        let people = shared.directory().await.expect("the directory").people.len();
        let t = Instant::now();
        let plan = org.import_dry_run(by, &text).await.expect("the dry run");
        let dry = t.elapsed();
        assert_eq!(plan.to_add.len(), ROWS, "every row is accepted: {:?}", plan.refused.first());
        let t = Instant::now();
        let done = org.import_people(by, &text, Some(&plan.check())).await.expect("the apply");
        let apply = t.elapsed();
        report(format_args!(
            "file {file}: {ROWS} rows ({:.0} KiB) into {}: dry run {:.0} ms, apply {:.0} ms ({} added)",
            text.len() as f64 / 1024.0,
            engine::org::import::people_count(people),
            ms(dry),
            ms(apply),
            done.added.len()
        ));
    }
    drop(org);
    drop(shared);
    drop(store);
    db.drop_database().await;
}

fn main() {
    report(format_args!(
        "engram import benchmark (build profile: {})",
        if cfg!(debug_assertions) { "debug" } else { "release" }
    ));
    // The program's own path is never either word, so every argument may be looked at.
    let named = std::env::args()
        .find(|a| a == "sqlite" || a == "postgres")
        .or_else(|| std::env::var("ENGRAM_BENCH_BACKEND").ok())
        .unwrap_or_else(|| "sqlite".to_string());
    let postgres = match named.as_str() {
        "sqlite" => false,
        "postgres" => true,
        other => panic!("ENGRAM_BENCH_BACKEND must be sqlite or postgres, not {other:?}"),
    };
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime").block_on(run(postgres));
}
