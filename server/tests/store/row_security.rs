//! A bot's own reads of its episodes and memory rows (`bot_episodes`, `bot_memory_rows`), and, on
//! PostgreSQL only, the `engram_bot` role under them, tried with SQL issued directly as that role.

use crate::backends::{at, on_both, on_postgres_store, org, Db};
use engine::persona::audn::AudnOp;
use engine::persona::backlog::{NewEpisode, Outcome};
use engine::persona::render::MemoryKind;
use engine::store::Store;
use server::store::AnyStore;
use sqlx::{Executor, PgConnection, Postgres, Transaction};

on_both! {
    a_bots_own_read_gives_its_rows_and_no_others: sqlite_a_bots_own_read_gives_its_rows_and_no_others,
        postgres_a_bots_own_read_gives_its_rows_and_no_others;
}

fn episode(agent: &str, wake: &str, minutes: i64) -> NewEpisode {
    NewEpisode {
        agent: agent.into(),
        wake: wake.into(),
        trigger: "wakeup".into(),
        task: None,
        outcome: Outcome::Done,
        turns: Some(3),
        cost_usd: None,
        duration_s: None,
        summary: format!("I finished {wake}"),
        log_path: None,
        transcript_path: None,
        at: at(minutes),
    }
}

fn add(text: &str) -> AudnOp {
    AudnOp::Add { kind: MemoryKind::Lesson, text: text.into() }
}

/// Two bots, dealbot and scout, each with two episodes and memory rows (one of dealbot's closed).
async fn two_bots(db: &dyn Store) {
    let d1 = db.insert_episode(&episode("dealbot", "d1", 1)).await.unwrap().id;
    let d2 = db.insert_episode(&episode("dealbot", "d2", 2)).await.unwrap().id;
    let s1 = db.insert_episode(&episode("scout", "s1", 3)).await.unwrap().id;
    db.insert_episode(&episode("scout", "s2", 4)).await.unwrap();
    let added = db.apply_ops("dealbot", d1, &[add("Ask first"), add("Gone soon")], at(1)).await.unwrap().added;
    let gone = AudnOp::Delete { id: added[1], reason: "no longer true".into() };
    db.apply_ops("dealbot", d2, &[AudnOp::Repeat { id: added[0] }, gone], at(2)).await.unwrap();
    db.apply_ops("scout", s1, &[add("Scout's own"), add("Scout's second")], at(3)).await.unwrap();
}

async fn a_bots_own_read_gives_its_rows_and_no_others(db: Db) {
    org(&db).await;
    two_bots(db.as_ref()).await;

    let episodes = db.bot_episodes("dealbot").await.unwrap();
    assert_eq!(episodes, db.episodes("dealbot", None).await.unwrap());
    assert_eq!(episodes.iter().map(|e| e.wake.as_str()).collect::<Vec<_>>(), ["d2", "d1"]);

    let all = db.bot_memory_rows("dealbot", true).await.unwrap();
    assert_eq!(all, db.memory_rows("dealbot", true).await.unwrap());
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|r| r.agent == "dealbot"));
    assert_eq!(all[0].evidence.len(), 2, "the evidence of a row comes with it");
    let active = db.bot_memory_rows("dealbot", false).await.unwrap();
    assert_eq!(active.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(), ["Ask first"]);

    assert_eq!(db.bot_episodes("nobody").await.unwrap(), []);
    assert_eq!(db.bot_memory_rows("nobody", true).await.unwrap(), []);
}

/// A transaction on the store's pool that has become `engram_bot`, for the bot named, or with
/// `engram.agent` never set when `agent` is `None`.
async fn as_bot<'a>(store: &'a server::store::PgStore, agent: Option<&str>) -> Transaction<'a, Postgres> {
    let mut tx = store.pool().begin().await.unwrap();
    tx.execute("SET LOCAL ROLE engram_bot").await.unwrap();
    if let Some(agent) = agent {
        sqlx::query("SELECT set_config('engram.agent', $1, true)").bind(agent).execute(&mut *tx).await.unwrap();
    }
    tx
}

async fn agents_seen(conn: &mut PgConnection, table: &str) -> Vec<String> {
    sqlx::query_scalar(&format!("SELECT agent FROM {table} ORDER BY id")).fetch_all(conn).await.unwrap()
}

/// What the database answers a statement issued as the role: the SQLSTATE of its refusal.
async fn refusal(store: &server::store::PgStore, agent: &str, statement: &str) -> String {
    let mut tx = as_bot(store, Some(agent)).await;
    let err = tx.execute(statement).await.expect_err(statement);
    let code = err.as_database_error().and_then(|d| d.code()).map(|c| c.to_string());
    code.unwrap_or_else(|| panic!("{statement} failed without a database error: {err}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_bot_role_reads_only_its_own_rows_and_its_writes_are_refused() {
    on_postgres_store(|store| async move {
        let db: Db = store.shared();
        let AnyStore::Postgres(store) = store else { panic!("a PostgreSQL store") };
        org(&db).await;
        two_bots(db.as_ref()).await;

        let mut tx = as_bot(&store, Some("dealbot")).await;
        let who: String = sqlx::query_scalar("SELECT current_user::TEXT").fetch_one(&mut *tx).await.unwrap();
        assert_eq!(who, "engram_bot");
        assert_eq!(agents_seen(&mut tx, "org_agent_episodes").await, ["dealbot", "dealbot"]);
        assert_eq!(agents_seen(&mut tx, "org_agent_memory").await, ["dealbot", "dealbot"]);
        // Even asking for another bot's rows by name finds none.
        let theirs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM org_agent_memory WHERE agent = 'scout'")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert_eq!(theirs, 0);
        let evidence: Vec<i64> = sqlx::query_scalar("SELECT memory_id FROM org_agent_memory_evidence ORDER BY 1")
            .fetch_all(&mut *tx)
            .await
            .unwrap();
        let mut own: Vec<i64> = Vec::new();
        for row in db.memory_rows("dealbot", true).await.unwrap() {
            own.extend(row.evidence.iter().map(|_| row.id));
        }
        own.sort();
        assert_eq!(evidence, own, "the evidence seen is exactly that of the bot's own rows");
        tx.rollback().await.unwrap();

        let mut tx = as_bot(&store, Some("scout")).await;
        assert_eq!(agents_seen(&mut tx, "org_agent_episodes").await, ["scout", "scout"]);
        assert_eq!(agents_seen(&mut tx, "org_agent_memory").await, ["scout", "scout"]);
        tx.rollback().await.unwrap();

        let mut tx = as_bot(&store, None).await;
        assert_eq!(agents_seen(&mut tx, "org_agent_episodes").await, Vec::<String>::new(), "unset sees nothing");
        assert_eq!(agents_seen(&mut tx, "org_agent_memory").await, Vec::<String>::new());
        let evidence: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM org_agent_memory_evidence").fetch_one(&mut *tx).await.unwrap();
        assert_eq!(evidence, 0);
        tx.rollback().await.unwrap();

        // 42501 is insufficient_privilege: the database itself refuses, whatever the policy.
        let refused = [
            "INSERT INTO org_agent_episodes (agent, run, trigger, outcome, summary, created_at) \
             VALUES ('dealbot', 'forged', 'wakeup', 'done', 'forged', now())",
            "UPDATE org_agent_episodes SET summary = 'forged' WHERE agent = 'dealbot'",
            "DELETE FROM org_agent_episodes WHERE agent = 'dealbot'",
            "INSERT INTO org_agent_memory (agent, kind, text, times_seen, first_seen, last_seen, state, created_at) \
             VALUES ('dealbot', 'lesson', 'forged', 1, now(), now(), 'active', now())",
            "UPDATE org_agent_memory SET text = 'forged' WHERE agent = 'dealbot'",
            "DELETE FROM org_agent_memory WHERE agent = 'scout'",
            "INSERT INTO org_agent_memory_evidence (memory_id, episode_id) VALUES (1, 1)",
            "UPDATE org_agent_memory_evidence SET episode_id = episode_id",
            "DELETE FROM org_agent_memory_evidence",
            "SELECT COUNT(*) FROM agent_tokens",
            "SELECT COUNT(*) FROM people",
        ];
        for statement in refused {
            assert_eq!(refusal(&store, "dealbot", statement).await, "42501", "{statement}");
        }

        // Nothing changed, as the application (the tables' owner, outside the policies) reads it.
        assert_eq!(db.episodes("dealbot", None).await.unwrap().len(), 2);
        assert!(db.episodes("dealbot", None).await.unwrap().iter().all(|e| e.summary != "forged"));
        assert_eq!(db.memory_rows("dealbot", true).await.unwrap().len(), 2);
        assert_eq!(db.memory_rows("scout", true).await.unwrap().len(), 2);
        // The role and the setting ended with their transactions: the pool is the application again.
        let who: String = sqlx::query_scalar("SELECT current_user::TEXT").fetch_one(store.pool()).await.unwrap();
        assert_ne!(who, "engram_bot");
    })
    .await;
}
