//! MemoryAuditStore: an applied audit is recorded whole with its action rows and the entries it
//! read; audits list newest first per subject; an undo is recorded once.

use crate::backends::{at, on_both, Db};
use engine::persona::memory_audit::{AuditAction, AuditFile};
use engine::persona::memory_audit_store::{ActionRecord, Audit, NewAudit, Unresolved};
use engine::store::StoreError;

on_both! {
    an_audit_is_recorded_with_its_actions_and_entries_first_seen:
        sqlite_an_audit_is_recorded_with_its_actions_and_entries_first_seen,
        postgres_an_audit_is_recorded_with_its_actions_and_entries_first_seen;
    an_audit_is_undone_once:
        sqlite_an_audit_is_undone_once,
        postgres_an_audit_is_undone_once;
}

fn audit(subject: &str, minutes: i64, seen: &[&str]) -> NewAudit {
    let audit = Audit {
        subject: subject.into(),
        trigger: "requested".into(),
        by: "person:sam@acme.example".into(),
        at: at(minutes),
        memory_before: "- In this session.\n- Keep.\n".into(),
        user_before: String::new(),
        memory_after: "- Keep.\n".into(),
        user_after: String::new(),
        memory_percent: 1,
        user_percent: 0,
        actions: vec![
            ActionRecord {
                action: AuditAction::Delete {
                    file: AuditFile::Memory,
                    entry: "In this session.".into(),
                    reason: "Session Note".into(),
                },
                outcome: "applied".into(),
            },
            ActionRecord {
                action: AuditAction::ToSkill { file: AuditFile::Memory, entry: "Never guess.".into() },
                outcome: "left in place".into(),
            },
        ],
        unresolved: vec![Unresolved {
            file: AuditFile::User,
            entry: "Zeta.".into(),
            reason: "no rule places it".into(),
        }],
        summary: "COMPLETE".into(),
    };
    NewAudit { audit, seen: seen.iter().map(|s| s.to_string()).collect() }
}

async fn an_audit_is_recorded_with_its_actions_and_entries_first_seen(db: Db) {
    let first = db.record_memory_audit(&audit("scout", 0, &["In this session.", "Keep."])).await.unwrap();
    assert_eq!(first.audit.actions.len(), 2);
    assert_eq!(first.audit.actions[0].outcome, "applied");
    assert_eq!(
        first.audit.actions[1].action,
        AuditAction::ToSkill { file: AuditFile::Memory, entry: "Never guess.".into() }
    );
    assert_eq!(first.audit.unresolved[0].entry, "Zeta.");
    assert_eq!((first.audit.memory_after.as_str(), first.undone_at), ("- Keep.\n", None));
    let second = db.record_memory_audit(&audit("scout", 60, &["Keep.", "New."])).await.unwrap();
    db.record_memory_audit(&audit("dir:/tmp/x", 30, &["Keep."])).await.unwrap();
    let listed = db.memory_audits("scout", 5).await.unwrap();
    assert_eq!(listed.iter().map(|a| a.id).collect::<Vec<_>>(), vec![second.id, first.id], "newest first, per subject");
    assert_eq!(db.memory_audits("scout", 1).await.unwrap().len(), 1);
    assert_eq!(db.memory_audit(first.id).await.unwrap().unwrap(), first);
    let seen = db.entries_first_seen("scout", &["Keep.".into(), "New.".into(), "Never.".into()]).await.unwrap();
    assert_eq!(seen, vec![Some(at(0)), Some(at(60)), None], "an entry keeps the time it was first seen");
    assert_eq!(db.entries_first_seen("dir:/tmp/x", &["New.".into()]).await.unwrap(), vec![None]);
}

async fn an_audit_is_undone_once(db: Db) {
    let a = db.record_memory_audit(&audit("scout", 0, &[])).await.unwrap();
    let undone = db.mark_memory_audit_undone(a.id, "person:sam@acme.example", at(5)).await.unwrap();
    assert_eq!((undone.undone_at, undone.undone_by.as_deref()), (Some(at(5)), Some("person:sam@acme.example")));
    assert!(matches!(db.mark_memory_audit_undone(a.id, "operator", at(6)).await, Err(StoreError::Changed { .. })));
    assert_eq!(db.memory_audit(a.id).await.unwrap().unwrap().undone_at, Some(at(5)));
    assert!(db.memory_audit(a.id + 100).await.unwrap().is_none());
}
