//! AgentTokenStore: an agent's tokens made within the live limit (decided in one write however
//! many make at once), listed newest first without their hashes, revoked once with audit rows,
//! judged live only by their hash, and the run each token started.

use crate::backends::{at, on_both, org, Db};
use engine::runs::agent_tokens::LiveAgentToken;
use engine::runs::{Author, NewRun, RunKind};

on_both! {
    tokens_are_made_listed_judged_and_revoked_with_audit_rows:
        sqlite_tokens_are_made_listed_judged_and_revoked_with_audit_rows,
        postgres_tokens_are_made_listed_judged_and_revoked_with_audit_rows;
    concurrent_makers_never_pass_the_live_limit:
        sqlite_concurrent_makers_never_pass_the_live_limit,
        postgres_concurrent_makers_never_pass_the_live_limit;
    a_run_remembers_the_token_that_started_it:
        sqlite_a_run_remembers_the_token_that_started_it,
        postgres_a_run_remembers_the_token_that_started_it;
}

async fn tokens_are_made_listed_judged_and_revoked_with_audit_rows(db: Db) {
    let o = org(&db).await;
    let a = o.agent.id;
    let first = db.make_agent_token(a, "Cursor", "hash-1", 10, o.by_admin(1)).await.unwrap().expect("made");
    assert_eq!((first.name.as_str(), first.made_by, first.made_at), ("Cursor", Some(o.admin.id), at(1)));
    assert!(first.live() && first.last_used_at.is_none());
    let second = db.make_agent_token(a, "LangGraph", "hash-2", 10, o.by_admin(2)).await.unwrap().expect("made");
    let listed = db.agent_tokens_of(a, 50).await.unwrap();
    assert_eq!(listed.iter().map(|t| t.id).collect::<Vec<_>>(), [second.id, first.id], "newest first");
    assert_eq!(db.agent_tokens_of(a, 1).await.unwrap().len(), 1, "bounded");
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!(
        (audit[0].action.as_str(), audit[0].detail.as_str()),
        ("agent.token_made", format!("token:{} LangGraph", second.id).as_str())
    );
    assert!(audit.iter().all(|e| !e.detail.contains("hash-")), "never the hash");

    // Judged by its hash alone, marked used.
    assert_eq!(db.live_agent_token("hash-1", at(5)).await.unwrap(), Some(LiveAgentToken { id: first.id, agent: a }));
    assert_eq!(db.live_agent_token("hash-3", at(5)).await.unwrap(), None);
    assert_eq!(db.live_agent_token("HASH-1", at(5)).await.unwrap(), None);
    let used = db.agent_tokens_of(a, 50).await.unwrap().into_iter().find(|t| t.id == first.id).unwrap();
    assert_eq!(used.last_used_at, Some(at(5)));

    // Revoked once, by whom and when; then it is no token; revoking again changes nothing.
    assert!(db.revoke_agent_token_of(a, first.id, o.by_admin(6)).await.unwrap());
    assert_eq!(db.live_agent_token("hash-1", at(7)).await.unwrap(), None);
    let revoked = db.agent_tokens_of(a, 50).await.unwrap().into_iter().find(|t| t.id == first.id).unwrap();
    assert_eq!((revoked.revoked_at, revoked.revoked_by), (Some(at(6)), Some(o.admin.id)));
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!(
        (audit[0].action.as_str(), audit[0].detail.as_str()),
        ("agent.token_revoked", format!("token:{}", first.id).as_str())
    );
    assert!(!db.revoke_agent_token_of(a, first.id, o.by_admin(8)).await.unwrap());
    assert_eq!(db.audit_log(5).await.unwrap()[0].action, "agent.token_revoked");
    assert_eq!(db.audit_log(5).await.unwrap().len(), audit.len());
    // Another agent's id never revokes it.
    let other = engine::org::AgentId(o.agent.id.0 + 1_000);
    assert!(!db.revoke_agent_token_of(other, second.id, o.by_admin(9)).await.unwrap());
    assert!(db.live_agent_token("hash-2", at(9)).await.unwrap().is_some());
}

async fn concurrent_makers_never_pass_the_live_limit(db: Db) {
    let o = org(&db).await;
    let mut tasks = Vec::new();
    for n in 0..8 {
        let (db, a, by) = (db.clone(), o.agent.id, o.by_admin(n));
        tasks.push(tokio::spawn(async move {
            db.make_agent_token(a, &format!("Place {n}"), &format!("hash-{n}"), 3, by).await.unwrap().is_some()
        }));
    }
    let mut made = 0;
    for t in tasks {
        made += usize::from(t.await.unwrap());
    }
    assert_eq!(made, 3);
    assert_eq!(db.agent_tokens_of(o.agent.id, 50).await.unwrap().len(), 3);
    // A revoked one frees its place.
    let first = db.agent_tokens_of(o.agent.id, 50).await.unwrap()[0].id;
    assert!(db.revoke_agent_token_of(o.agent.id, first, o.by_admin(10)).await.unwrap());
    assert!(db.make_agent_token(o.agent.id, "Again", "hash-again", 3, o.by_admin(11)).await.unwrap().is_some());
}

async fn a_run_remembers_the_token_that_started_it(db: Db) {
    let o = org(&db).await;
    let a = o.agent.id;
    let token = db.make_agent_token(a, "Cursor", "hash-1", 10, o.by_admin(1)).await.unwrap().unwrap();
    let (thread, message) = db.create_thread(a, None, "q", &Author::Agent(a), "Hi", at(2)).await.unwrap();
    let new = NewRun {
        thread: thread.id,
        message: message.id,
        agent: a,
        for_person: None,
        kind: RunKind::External,
        unwatched: true,
        retry_of: None,
    };
    let run = db.create_run(&new, at(2)).await.unwrap();
    assert_eq!(db.token_of_run(run.id).await.unwrap(), None);
    db.bind_token_run(run.id, token.id).await.unwrap();
    assert_eq!(db.token_of_run(run.id).await.unwrap(), Some(token.id));
    // A run is started by one token only.
    assert!(db.bind_token_run(run.id, token.id).await.is_err());
}
