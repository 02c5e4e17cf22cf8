//! DraftSourceStore: an agent's playbook and a connector's notes for agents, each save a new row
//! with the newest read back and the save audited, and the company's accepted lessons.

use crate::backends::{on_both, org, Db};
use crate::connectors::connector;
use crate::lessons::new;
use engine::cards::source::KeyMode;
use engine::lessons::{LessonScope, LessonState};

on_both! {
    playbooks_and_notes_keep_every_save_and_read_the_newest:
        sqlite_playbooks_and_notes_keep_every_save_and_read_the_newest,
        postgres_playbooks_and_notes_keep_every_save_and_read_the_newest;
    only_accepted_company_lessons_are_company_knowledge:
        sqlite_only_accepted_company_lessons_are_company_knowledge,
        postgres_only_accepted_company_lessons_are_company_knowledge;
}

async fn playbooks_and_notes_keep_every_save_and_read_the_newest(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.playbook(o.agent.id).await.unwrap(), None);
    db.save_playbook(o.agent.id, "Quote in INR.", o.by_admin(1)).await.unwrap();
    db.save_playbook(o.agent.id, "Quote in INR first.", o.by_admin(2)).await.unwrap();
    assert_eq!(db.playbook(o.agent.id).await.unwrap().as_deref(), Some("Quote in INR first."));

    let c = connector(&db, &o, "ats", KeyMode::Company).await;
    assert_eq!(db.connector_notes(c.id).await.unwrap(), None);
    db.save_connector_notes(c.id, "Ids look like L-1.", o.by_admin(3)).await.unwrap();
    assert_eq!(db.connector_notes(c.id).await.unwrap().as_deref(), Some("Ids look like L-1."));
    let audit = db.audit_log(10).await.unwrap();
    let saves: Vec<&str> = audit.iter().map(|a| a.action.as_str()).filter(|a| a.ends_with(".save")).collect();
    assert_eq!(saves, ["connector_notes.save", "agent_playbooks.save", "agent_playbooks.save"]);
}

async fn only_accepted_company_lessons_are_company_knowledge(db: Db) {
    let o = org(&db).await;
    let actor = o.by_admin(1);
    let agreed =
        db.add_lesson(&new(o.admin.id, LessonScope::Company, "ACV", LessonState::Accepted, 1), actor).await.unwrap();
    db.add_lesson(&new(o.alice.id, LessonScope::Company, "waiting", LessonState::Waiting, 2), actor).await.unwrap();
    db.add_lesson(&new(o.alice.id, LessonScope::Personal, "mine", LessonState::Accepted, 3), actor).await.unwrap();
    let got = db.accepted_company_lessons().await.unwrap();
    assert_eq!(got.iter().map(|l| l.id).collect::<Vec<_>>(), [agreed.id]);
}
