//! MemoryScopeStore: an agent's scopes, empty until set, replaced whole and audited.

use crate::backends::{on_both, org, Db};
use engine::lessons::scopes::MemoryScope;

on_both! {
    scopes_are_empty_until_set_then_replaced_and_audited:
        sqlite_scopes_are_empty_until_set_then_replaced_and_audited,
        postgres_scopes_are_empty_until_set_then_replaced_and_audited;
}

async fn scopes_are_empty_until_set_then_replaced_and_audited(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.memory_scopes(o.agent.id).await.unwrap(), []);
    db.set_memory_scopes(o.agent.id, &[MemoryScope::Personal, MemoryScope::Team], o.by_admin(1)).await.unwrap();
    assert_eq!(db.memory_scopes(o.agent.id).await.unwrap(), [MemoryScope::Personal, MemoryScope::Team]);
    db.set_memory_scopes(o.agent.id, &[MemoryScope::Team], o.by_admin(2)).await.unwrap();
    assert_eq!(db.memory_scopes(o.agent.id).await.unwrap(), [MemoryScope::Team]);
    let audit = db.audit_log(5).await.unwrap();
    assert_eq!(audit[0].action, "agent.memory_scopes");
    assert_eq!(
        audit[0].detail,
        "Only personal and team lessons, and company knowledge → Only team lessons, and company knowledge"
    );
}
