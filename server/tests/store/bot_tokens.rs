//! PersonaStore's bot tokens: each is found with its expiry and maker, listed per bot newest
//! first without its secret, marked used, and revoked once with its reason, audited.

use crate::backends::{at, on_both, org, Db};
use engine::persona::bot_tokens::{REVOKED_BY_PERSON, REVOKED_OWNER_CHANGED};
use engine::store::Actor;

on_both! {
    a_presented_token_names_its_bot_maker_and_expiry: sqlite_a_presented_token_names_its_bot_maker_and_expiry,
        postgres_a_presented_token_names_its_bot_maker_and_expiry;
    a_bots_tokens_are_listed_newest_first_and_marked_used:
        sqlite_a_bots_tokens_are_listed_newest_first_and_marked_used,
        postgres_a_bots_tokens_are_listed_newest_first_and_marked_used;
    revoking_keeps_its_reason_and_is_audited_once: sqlite_revoking_keeps_its_reason_and_is_audited_once,
        postgres_revoking_keeps_its_reason_and_is_audited_once;
    revoke_refuses_another_bots_or_a_missing_token: sqlite_revoke_refuses_another_bots_or_a_missing_token,
        postgres_revoke_refuses_another_bots_or_a_missing_token;
}

fn days(n: i64) -> chrono::Duration {
    chrono::Duration::days(n)
}

async fn a_presented_token_names_its_bot_maker_and_expiry(db: Db) {
    let o = org(&db).await;
    let id =
        db.create_agent_token("dealbot", o.alice.id, "runner", "bot-secret", at(1), at(1) + days(30)).await.unwrap();
    let t = db.agent_token("bot-secret").await.unwrap().expect("the token");
    assert_eq!(t.id, id);
    assert_eq!(t.agent, "dealbot");
    assert_eq!(t.made_by_email, o.alice.email);
    assert_eq!(t.expires_at, at(1) + days(30));
    assert_eq!((t.revoked_at, t.revoked_why), (None, None));
    assert_eq!(db.agent_token("another-secret").await.unwrap(), None);
}

async fn a_bots_tokens_are_listed_newest_first_and_marked_used(db: Db) {
    let o = org(&db).await;
    let first = db.create_agent_token("dealbot", o.alice.id, "runner", "s-1", at(1), at(1) + days(90)).await.unwrap();
    let second = db.create_agent_token("dealbot", o.alice.id, "ci", "s-2", at(2), at(2) + days(90)).await.unwrap();
    db.create_agent_token("scout", o.bob.id, "runner", "s-3", at(3), at(3) + days(90)).await.unwrap();
    db.agent_token_used(first, at(5)).await.unwrap();

    let listed = db.agent_tokens("dealbot").await.unwrap();
    assert_eq!(listed.iter().map(|t| t.id).collect::<Vec<_>>(), [second, first]);
    let (newest, oldest) = (&listed[0], &listed[1]);
    assert_eq!((newest.name.as_str(), newest.made_by.as_str()), ("ci", o.alice.name.as_str()));
    assert_eq!((newest.created_at, newest.expires_at, newest.last_used_at), (at(2), at(2) + days(90), None));
    assert_eq!(oldest.last_used_at, Some(at(5)));
    assert_eq!(db.agent_tokens("nobody").await.unwrap(), []);
}

async fn revoking_keeps_its_reason_and_is_audited_once(db: Db) {
    let o = org(&db).await;
    let id = db.create_agent_token("dealbot", o.alice.id, "runner", "s-1", at(1), at(1) + days(90)).await.unwrap();
    let other = db.create_agent_token("dealbot", o.alice.id, "ci", "s-2", at(1), at(1) + days(90)).await.unwrap();
    let by_bob = Actor { person: Some(o.bob.id), at: at(2) };
    assert!(db.revoke_agent_token("dealbot", id, REVOKED_BY_PERSON, by_bob).await.unwrap());
    let again = Actor { person: Some(o.bob.id), at: at(3) };
    assert!(!db.revoke_agent_token("dealbot", id, REVOKED_BY_PERSON, again).await.unwrap(), "already revoked");

    let t = db.agent_token("s-1").await.unwrap().unwrap();
    assert_eq!((t.revoked_at, t.revoked_why.as_deref()), (Some(at(2)), Some(REVOKED_BY_PERSON)));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.subject.as_str(), entry.detail.clone()),
        ("agent_token.revoke", "agent:dealbot", format!("token:{id} revoked"))
    );
    assert_eq!((entry.actor, entry.at), (Some(o.bob.id), at(2)));

    // The engine revokes a token whose maker is no longer the owner; nobody typed it.
    let by_engram = Actor { person: None, at: at(4) };
    assert!(db.revoke_agent_token("dealbot", other, REVOKED_OWNER_CHANGED, by_engram).await.unwrap());
    let t = db.agent_token("s-2").await.unwrap().unwrap();
    assert_eq!(t.revoked_why.as_deref(), Some(REVOKED_OWNER_CHANGED));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.actor, entry.detail.clone()), (None, format!("token:{other} owner_changed")));
}

async fn revoke_refuses_another_bots_or_a_missing_token(db: Db) {
    let o = org(&db).await;
    let id = db.create_agent_token("dealbot", o.alice.id, "runner", "s-1", at(1), at(1) + days(90)).await.unwrap();
    let by = Actor { person: Some(o.alice.id), at: at(2) };
    let audited = db.audit_log(100).await.unwrap().len();
    assert!(!db.revoke_agent_token("scout", id, REVOKED_BY_PERSON, by).await.unwrap(), "not scout's token");
    assert!(!db.revoke_agent_token("dealbot", 9_999, REVOKED_BY_PERSON, by).await.unwrap());
    assert_eq!(db.agent_token("s-1").await.unwrap().unwrap().revoked_at, None, "nothing changed");
    assert_eq!(db.audit_log(100).await.unwrap().len(), audited, "nothing audited");
}
