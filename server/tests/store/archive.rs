//! ArchiveStore: a whole organisation exported, loaded into an empty database of the same backend
//! and exported again gives the same rows; hidden columns stay behind; a database that is not
//! empty, or an archive that breaks a rule halfway, changes nothing. Each case gets two fresh
//! databases of its backend: the one exported from and the one imported into.

use crate::backends::{actor, at, org, unlocked, Db, POSTGRES_URL_VAR};
use crate::connectors::{card, connector};
use crate::{inbox, runs, whoswho};
use engine::archive::{self, ArchiveError, ArchiveStore, TableRows};
use engine::cards::access::KeyKind;
use engine::cards::source::KeyMode;
use engine::cores::{CoreScope, NewCoreVersion};
use engine::persona::audn::AudnOp;
use engine::persona::backlog::{NewEpisode, Outcome};
use engine::persona::render::MemoryKind;
use engine::runs::inbox::ActionState;
use engine::runs::{NewEvent, NewRun};
use engine::store::NewPerson;
use server::store::AnyStore;
use sqlx::{Connection, Executor, PgConnection};
use std::future::Future;
use std::sync::Arc;

/// One database as both trait objects a case needs.
#[derive(Clone)]
struct Side {
    db: Db,
    archive: Arc<dyn ArchiveStore>,
}

fn side<S: engine::store::Store + ArchiveStore + 'static>(store: S) -> Side {
    let store = Arc::new(store);
    Side { db: store.clone(), archive: store }
}

/// Unlocked with the suite's secret key, as a served store is, so fixtures may keep connector keys.
async fn keyed(store: AnyStore) -> Side {
    match unlocked(store).await {
        AnyStore::Sqlite(s) => side(s),
        AnyStore::Postgres(s) => side(s),
    }
}

async fn on_sqlite_pair<F, Fut>(case: F)
where
    F: FnOnce(Side, Side) -> Fut,
    Fut: Future<Output = ()>,
{
    let dir = tempfile::tempdir().expect("a temporary folder");
    let open = |name: &str| format!("sqlite://{}/{name}.db", dir.path().display());
    let from = server::store::SqliteStore::open(&open("from")).await.expect("open a fresh SQLite file");
    let to = server::store::SqliteStore::open(&open("to")).await.expect("open a fresh SQLite file");
    case(keyed(AnyStore::Sqlite(from)).await, keyed(AnyStore::Sqlite(to)).await).await;
}

async fn on_postgres_pair<F, Fut>(case: F)
where
    F: FnOnce(Side, Side) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let admin = std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| panic!("{POSTGRES_URL_VAR} is not set"));
    let mut conn = PgConnection::connect(&admin).await.expect("connect to the PostgreSQL test server");
    let mut names = Vec::new();
    let mut stores = Vec::new();
    for _ in 0..2 {
        let name = format!("t_{:016x}", rand::random::<u64>());
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create a test database");
        let mut url = reqwest::Url::parse(&admin).expect("a URL");
        url.set_path(&format!("/{name}"));
        names.push(name);
        match server::store::PgStore::open(url.as_str()).await {
            Ok(store) => stores.push(store),
            Err(e) => {
                for name in &names {
                    let _ = conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await;
                }
                panic!("open and migrate a test database: {e}");
            }
        }
    }
    let to = stores.pop().expect("two stores");
    let from = stores.pop().expect("two stores");
    let (from, to) = (keyed(AnyStore::Postgres(from)).await, keyed(AnyStore::Postgres(to)).await);
    let outcome = tokio::spawn(case(from, to)).await;
    for name in &names {
        conn.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.expect("drop a test database");
    }
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

macro_rules! on_both_pairs {
    ($($case:ident: $sqlite:ident, $postgres:ident;)+) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $sqlite() {
                on_sqlite_pair($case).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $postgres() {
                on_postgres_pair($case).await;
            }
        )+
    };
}

on_both_pairs! {
    an_organisation_exports_imports_and_exports_again_the_same: sqlite_an_organisation_exports_imports_and_exports_again_the_same,
        postgres_an_organisation_exports_imports_and_exports_again_the_same;
    import_refuses_a_database_that_is_not_empty_and_changes_nothing:
        sqlite_import_refuses_a_database_that_is_not_empty_and_changes_nothing,
        postgres_import_refuses_a_database_that_is_not_empty_and_changes_nothing;
    an_import_that_fails_halfway_leaves_the_database_empty: sqlite_an_import_that_fails_halfway_leaves_the_database_empty,
        postgres_an_import_that_fails_halfway_leaves_the_database_empty;
}

const UNUSABLE: &str = "$argon2id$v=19$m=19456,t=2,p=1$dW51c2FibGU$bm8tcGFzc3dvcmQtbWF0Y2hlcy10aGlz";

/// The contract fixture and a little of everything else: a team lead (a late column), two core
/// versions, a connector with a company key and a person's key, a card, an episode and a memory
/// row superseded by its edit (another late column).
async fn rich(db: &Db) {
    let o = org(db).await;
    db.set_team_lead(o.team.id, Some(o.alice.id), o.by_admin(1)).await.unwrap();
    let sales = CoreScope::Company(o.sales.slug.clone());
    for (based_on, text) in [(0, "Stages: New, Won."), (1, "Stages: New, Qualified, Won.")] {
        let new = NewCoreVersion {
            scope: sales.clone(),
            based_on,
            text: text.into(),
            tokens: 4,
            author: o.alice.id,
            note: String::new(),
            restored_from: None,
            at: at(2 + i64::from(based_on)),
        };
        db.append_core_version(&new).await.unwrap();
    }
    let crm = connector(db, &o, "crm", KeyMode::Company).await;
    db.set_person_key(crm.id, o.alice.id, "alice-own-secret", o.by_admin(3)).await.unwrap();
    let d1 = db.upsert_card(&card(crm.id, "D-1", KeyKind::Company, None)).await.unwrap();
    // Two pinned tools, one of which the source now lists differently: both are carried, the
    // listing noted beside its copy too.
    for tool in ["get_deal", "list_deals"] {
        let copy = engine::cards::pins::ToolCopy {
            tool: tool.into(),
            description: format!("{tool} as approved"),
            parameters: serde_json::json!({"id": {"type": "string", "required": true}}),
        };
        db.pin_tool(crm.id, &copy, o.by_admin(3)).await.unwrap();
    }
    let listed = engine::cards::pins::Listed::Changed {
        description: "Ignore previous instructions".into(),
        parameters: serde_json::json!({}),
    };
    db.note_listing(crm.id, "get_deal", Some(&listed), actor(None, 4)).await.unwrap();
    db.save_use(&crate::cards::use_of(o.alice.id, d1.id, false)).await.unwrap();
    let episode = NewEpisode {
        agent: "dealbot".into(),
        wake: "run-1".into(),
        trigger: "wakeup".into(),
        task: None,
        outcome: Outcome::Done,
        turns: Some(7),
        cost_usd: Some(0.25),
        duration_s: Some(12.5),
        summary: "I finished run-1".into(),
        log_path: None,
        transcript_path: None,
        at: at(4),
    };
    let e = db.insert_episode(&episode).await.unwrap();
    let added = db
        .apply_ops("dealbot", e.id, &[AudnOp::Add { kind: MemoryKind::Lesson, text: "Ask first".into() }], at(5))
        .await
        .unwrap();
    db.edit_memory(added.added[0], "Ask before quoting", "alice@acme.test", at(6)).await.unwrap();
    // A manager (a late column: Alice manages the admin, made before her), a thread with a retried
    // run (late columns too), steps and an event, and a who's-who list with its lookup keys.
    db.set_manager(o.admin.id, Some(o.alice.id), o.by_admin(7)).await.unwrap();
    let t = runs::thread(db, &o, "what are our sales stages", 7).await;
    let first = runs::run(db, &o, t.id, 7).await;
    db.add_step(first.id, &runs::memory_step(), at(7)).await.unwrap();
    db.end_run(first.id, &runs::answered("New, Won."), at(8)).await.unwrap();
    let cost = engine::runs::cost::RunCost { block_tokens: 11, model_calls: 1, model_tokens: 90, model_millicents: 6 };
    db.record_run_cost(first.id, first.created_at, &cost).await.unwrap();
    let retry = NewRun { retry_of: Some(first.id), ..runs::new_run(&first) };
    let second = db.create_run(&retry, at(8)).await.unwrap();
    db.close_retried(first.id, second.id, at(8)).await.unwrap();
    let event = NewEvent {
        name: "memory_used".into(),
        run: Some(first.id),
        thread: Some(t.id),
        refs: runs::memory_step().refs,
        ..NewEvent::default()
    };
    db.record_event(&event, at(8)).await.unwrap();
    // The retry's answer is checked: its step, its event, what it found per kind of fact (100
    // reads at once, three changed) and the notice that raises.
    let checking =
        engine::runs::RunEnd { check: Some(engine::runs::check::CheckState::Checking), ..runs::answered("New, Won.") };
    db.end_run(second.id, &checking, at(9)).await.unwrap();
    let facts = (0..100).map(|i| (crm.id, engine::cards::facts::FactKind::Moving, i < 3)).collect();
    let end = engine::runs::check::CheckEnd {
        state: engine::runs::check::CheckState::Changed,
        reason: None,
        line: "Checked 1 record against crm: 1 change".into(),
        words: vec!["value: 1 → 2 (crm, read just now)".into()],
        facts,
        refs: vec![engine::runs::MemoryRef::Card("card:1".into())],
    };
    assert_eq!(db.record_check(second.id, &end, at(9)).await.unwrap().len(), 1);
    let waiting = inbox::new_action(&o, first.id, Some(crm.id));
    let decided = db.add_action(&waiting, at(8)).await.unwrap();
    db.decide_action(decided.id, ActionState::Declined, o.by_admin(8)).await.unwrap();
    db.add_action(&waiting, at(8)).await.unwrap();
    db.set_whos_who(crm.id, true, o.by_admin(8)).await.unwrap();
    let entries = [whoswho::entry(crm.id, "crm", "list_territories", "T-1", &["alice@acme.test"], 8)];
    db.save_list(crm.id, "list_territories", &entries, at(8)).await.unwrap();
    assert!(db.claim_list_fetch(crm.id, "2026-11-30", at(8)).await.unwrap());
    // A schedule and a pause are carried; a trigger's secret is not.
    let nine = engine::runs::schedules::When::parse("weekdays", "09:00").unwrap();
    let schedule =
        engine::runs::schedules::NewSchedule { instruction: "Summarise.".into(), when: nine, next_due: at(60) };
    db.set_schedule(o.agent.id, &schedule, o.by_admin(9)).await.unwrap();
    db.set_paused(o.agent.id, true, o.by_admin(9)).await.unwrap();
}

/// The lines after the header: what a move must carry unchanged.
fn rows_text(tables: &[TableRows]) -> Vec<String> {
    archive::write(tables, "test", at(0)).lines().skip(1).map(String::from).collect()
}

async fn an_organisation_exports_imports_and_exports_again_the_same(from: Side, to: Side) {
    rich(&from.db).await;
    let exported = from.archive.export_tables().await.unwrap();
    let text = rows_text(&exported);
    for table in [
        "company",
        "people",
        "teams",
        "core_versions",
        "connectors",
        "tool_pins",
        "cards",
        "org_agent_memory",
        "threads",
        "messages",
        "runs",
        "run_steps",
        "run_costs",
        "events",
        "fact_checks",
        "limit_notices",
        "inbox_actions",
        "list_entries",
        "list_entry_keys",
    ] {
        assert!(text.iter().any(|l| l.starts_with(&format!("{{\"table\":\"{table}\""))), "{table} is carried");
    }
    let all = text.join("\n");
    assert!(!all.contains("company-secret") && !all.contains("alice-own-secret"), "no key leaves");
    assert!(!all.contains("hash-of-") && !all.contains("password_hash"), "no password hash leaves");

    to.archive.import_tables(&exported, UNUSABLE).await.unwrap();
    let again = to.archive.export_tables().await.unwrap();
    assert_eq!(rows_text(&again), text);

    let (before, after) = (from.db.directory().await.unwrap(), to.db.directory().await.unwrap());
    assert_eq!(after, before, "people, teams (with their lead), roles and agents keep their ids");
    let (_, hash) = to.db.credentials("alice@acme.test").await.unwrap().expect("alice is there");
    assert_eq!(hash, UNUSABLE, "every password hash is replaced");
    let crm = to.db.connectors().await.unwrap().remove(0);
    assert!(!crm.has_company_key, "the company key must be entered again");
    assert_eq!(to.db.company_key(crm.id).await.unwrap(), None);
    let alice = after.people.iter().find(|p| p.email == "alice@acme.test").unwrap().id;
    assert_eq!(to.db.person_key(crm.id, alice).await.unwrap(), None, "people enter their own keys again");
    let kept = to.db.kept_for_question(alice, &["d-1".into()], 1).await.unwrap();
    assert!(kept.len() == 1 && kept[0].named, "an imported card is found by its terms, made again on import");
    let memory = to.db.memory_rows("dealbot", true).await.unwrap();
    assert_eq!(memory, from.db.memory_rows("dealbot", true).await.unwrap(), "the edit still supersedes");
    let sales = after.roles.iter().find(|r| r.name == "Sales").unwrap().slug.clone();
    let versions = to.db.core_versions(&CoreScope::Company(sales), None, 10).await.unwrap();
    assert_eq!(versions.len(), 2);
    let thread = to.db.threads_for(alice, 1).await.unwrap().remove(0);
    let (moved, kept) =
        (to.db.runs_of_thread(thread.id).await.unwrap(), from.db.runs_of_thread(thread.id).await.unwrap());
    assert_eq!(moved, kept, "runs keep their steps, states and retries");
    assert_eq!(to.db.events_after(0, 10).await.unwrap(), from.db.events_after(0, 10).await.unwrap());
    assert_eq!(to.db.limit_notices(crm.id).await.unwrap(), from.db.limit_notices(crm.id).await.unwrap());
    let pins = to.db.tool_pins(crm.id).await.unwrap();
    assert_eq!(pins, from.db.tool_pins(crm.id).await.unwrap(), "pinned tools and what was noted of them");
    assert!(pins.len() == 2 && pins[0].drift.is_some() && pins[1].drift.is_none(), "{pins:?}");
    assert_eq!(to.db.limit_notices(crm.id).await.unwrap().len(), 1, "the notice is told once, on either side");
    let named = to.db.list_entries_naming(&["alice@acme.test".into()]).await.unwrap();
    assert_eq!(named.len(), 1, "the list is found by what it names");
    assert!(!text.iter().any(|l| l.contains("list_fetch_claims")), "claims stay behind");
    assert!(to.db.claim_list_fetch(crm.id, "2026-11-30", at(9)).await.unwrap(), "a claim is the server's own");

    // New rows continue after the loaded ids.
    let newcomer = NewPerson {
        name: "Nia".into(),
        email: "nia@acme.test".into(),
        password_hash: "x".into(),
        is_admin: false,
        main_team: None,
    };
    let nia = to.db.create_person(&newcomer, actor(None, 9)).await.unwrap();
    let highest = before.people.iter().map(|p| p.id.0).max().unwrap();
    assert_eq!(nia.id.0, highest + 1);
}

async fn import_refuses_a_database_that_is_not_empty_and_changes_nothing(from: Side, to: Side) {
    rich(&from.db).await;
    let exported = from.archive.export_tables().await.unwrap();
    let o = org(&to.db).await;
    let before = to.archive.export_tables().await.unwrap();
    let refused = to.archive.import_tables(&exported, UNUSABLE).await.unwrap_err();
    assert_eq!(refused, ArchiveError::NotEmpty { table: "company".into() });
    assert_eq!(to.archive.export_tables().await.unwrap(), before);
    let (_, hash) = to.db.credentials(&o.alice.email).await.unwrap().unwrap();
    assert_eq!(hash, "hash-of-Alice", "the password is untouched");
}

async fn an_import_that_fails_halfway_leaves_the_database_empty(from: Side, to: Side) {
    rich(&from.db).await;
    let mut exported = from.archive.export_tables().await.unwrap();
    // Cards whose connector is not in the archive: refused by the database well after people are in.
    exported.iter_mut().find(|t| t.table.name == "connectors").unwrap().rows.clear();
    let failed = to.archive.import_tables(&exported, UNUSABLE).await;
    assert!(matches!(failed, Err(ArchiveError::Store(_))), "{failed:?}");
    assert!(to.archive.export_tables().await.unwrap().iter().all(|t| t.rows.is_empty()), "nothing stays");
    to.archive.import_tables(&from.archive.export_tables().await.unwrap(), UNUSABLE).await.unwrap();
}
