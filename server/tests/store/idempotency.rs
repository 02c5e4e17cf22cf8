//! IdempotencyStore: keys claimed atomically, answers kept and replayed, refusals freed, old keys
//! forgotten.

use crate::backends::{on_both, Db};
use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::store::IdemClaim;

on_both! {
    a_claimed_key_replays_its_answer: sqlite_a_claimed_key_replays_its_answer,
        postgres_a_claimed_key_replays_its_answer;
    another_body_or_route_is_a_mismatch: sqlite_another_body_or_route_is_a_mismatch,
        postgres_another_body_or_route_is_a_mismatch;
    keys_are_scoped_to_their_caller: sqlite_keys_are_scoped_to_their_caller,
        postgres_keys_are_scoped_to_their_caller;
    a_released_key_is_fresh_again: sqlite_a_released_key_is_fresh_again, postgres_a_released_key_is_fresh_again;
    a_stale_key_is_fresh_again_and_purged: sqlite_a_stale_key_is_fresh_again_and_purged,
        postgres_a_stale_key_is_fresh_again_and_purged;
    of_sixteen_racing_claims_one_is_fresh: sqlite_of_sixteen_racing_claims_one_is_fresh,
        postgres_of_sixteen_racing_claims_one_is_fresh;
}

fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap() + Duration::minutes(minute)
}

fn long_ago() -> DateTime<Utc> {
    at(-100_000)
}

async fn a_claimed_key_replays_its_answer(db: Db) {
    let claim = |m| db.idem_claim("person:1", "k1", "POST /api/x", "h1", at(m), long_ago());
    assert_eq!(claim(0).await.unwrap(), IdemClaim::Fresh);
    assert_eq!(claim(1).await.unwrap(), IdemClaim::InFlight, "unfinished: the first is still being answered");
    db.idem_finish("person:1", "k1", 201, b"{\"version\":2}").await.unwrap();
    assert_eq!(claim(2).await.unwrap(), IdemClaim::Replay { status: 201, body: b"{\"version\":2}".to_vec() });
    db.idem_release("person:1", "k1").await.unwrap();
    assert_eq!(
        claim(3).await.unwrap(),
        IdemClaim::Replay { status: 201, body: b"{\"version\":2}".to_vec() },
        "a finished key is never released"
    );
}

async fn another_body_or_route_is_a_mismatch(db: Db) {
    assert_eq!(db.idem_claim("person:1", "k1", "POST /a", "h1", at(0), long_ago()).await.unwrap(), IdemClaim::Fresh);
    db.idem_finish("person:1", "k1", 200, b"{}").await.unwrap();
    assert_eq!(db.idem_claim("person:1", "k1", "POST /a", "h2", at(1), long_ago()).await.unwrap(), IdemClaim::Mismatch);
    assert_eq!(db.idem_claim("person:1", "k1", "POST /b", "h1", at(1), long_ago()).await.unwrap(), IdemClaim::Mismatch);
    assert_eq!(
        db.idem_claim("person:1", "k1", "POST /a", "h1", at(2), long_ago()).await.unwrap(),
        IdemClaim::Replay { status: 200, body: b"{}".to_vec() },
        "a mismatch changes nothing"
    );
}

async fn keys_are_scoped_to_their_caller(db: Db) {
    assert_eq!(db.idem_claim("person:1", "k1", "POST /a", "h1", at(0), long_ago()).await.unwrap(), IdemClaim::Fresh);
    db.idem_finish("person:1", "k1", 200, b"one").await.unwrap();
    assert_eq!(db.idem_claim("person:2", "k1", "POST /a", "h1", at(1), long_ago()).await.unwrap(), IdemClaim::Fresh);
    assert_eq!(db.idem_claim("token:ab", "k1", "POST /a", "h9", at(1), long_ago()).await.unwrap(), IdemClaim::Fresh);
}

async fn a_released_key_is_fresh_again(db: Db) {
    assert_eq!(db.idem_claim("person:1", "k1", "POST /a", "h1", at(0), long_ago()).await.unwrap(), IdemClaim::Fresh);
    db.idem_release("person:1", "k1").await.unwrap();
    assert_eq!(
        db.idem_claim("person:1", "k1", "POST /a", "h2", at(1), long_ago()).await.unwrap(),
        IdemClaim::Fresh,
        "a refused request leaves the key free, even for a corrected body"
    );
}

async fn a_stale_key_is_fresh_again_and_purged(db: Db) {
    assert_eq!(db.idem_claim("person:1", "old", "POST /a", "h1", at(0), long_ago()).await.unwrap(), IdemClaim::Fresh);
    db.idem_finish("person:1", "old", 200, b"first").await.unwrap();
    assert_eq!(db.idem_claim("person:1", "new", "POST /a", "h1", at(60), long_ago()).await.unwrap(), IdemClaim::Fresh);
    db.idem_finish("person:1", "new", 200, b"second").await.unwrap();

    // Claimed before the cut-off: as if never used, whatever body comes now.
    assert_eq!(db.idem_claim("person:1", "old", "POST /a", "h2", at(61), at(30)).await.unwrap(), IdemClaim::Fresh);
    db.idem_finish("person:1", "old", 200, b"again").await.unwrap();

    assert_eq!(db.idem_purge_before(at(61)).await.unwrap(), 1, "only `new`, claimed at 60, is older than 61");
    assert_eq!(
        db.idem_claim("person:1", "old", "POST /a", "h2", at(62), long_ago()).await.unwrap(),
        IdemClaim::Replay { status: 200, body: b"again".to_vec() }
    );
    assert_eq!(db.idem_claim("person:1", "new", "POST /a", "h5", at(62), long_ago()).await.unwrap(), IdemClaim::Fresh);
}

async fn of_sixteen_racing_claims_one_is_fresh(db: Db) {
    let racers: Vec<_> = (0..16)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.idem_claim("person:1", "race", "POST /a", "h1", at(0), long_ago()).await })
        })
        .collect();
    let mut fresh = 0;
    for r in racers {
        match r.await.unwrap().unwrap() {
            IdemClaim::Fresh => fresh += 1,
            IdemClaim::InFlight => {}
            other => panic!("a racing claim found {other:?}"),
        }
    }
    assert_eq!(fresh, 1);
}
