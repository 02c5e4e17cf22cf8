//! The PostgreSQL store's pool hands out a connection used a moment ago without a ping, and pings
//! one that lay idle first, so connections the database ended are replaced, not handed out.

use crate::backends::on_postgres_store;
use server::store::AnyStore;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connections_the_database_ended_are_not_handed_out_after_a_pause() {
    on_postgres_store(|store: AnyStore| async move {
        let AnyStore::Postgres(pg) = &store else { unreachable!("a PostgreSQL store") };
        let db = store.shared();
        // Six reads at once, each on a connection of its own.
        let reads = || async {
            let tasks: Vec<_> = (0..6)
                .map(|_| {
                    let db = db.clone();
                    tokio::spawn(async move { db.directory().await.map(|_| ()) })
                })
                .collect();
            let mut done = Vec::new();
            for t in tasks {
                done.push(t.await.unwrap());
            }
            done
        };
        assert!(reads().await.iter().all(Result::is_ok), "the pool holds a few connections");
        let ended: Vec<bool> = sqlx::query_scalar(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_all(pg.pool())
        .await
        .unwrap();
        assert!(!ended.is_empty(), "the database ended the pool's other connections");
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        for read in reads().await {
            read.expect("each read after the pause gets a live connection");
        }
    })
    .await;
}
