//! AgentAdminStore: new agents with their description, team copies (one per agent and team), and
//! an agent's toolsets and clearance changed apart, each audited.

use crate::backends::{on_both, org, Db, Org};
use crate::connectors::connector;
use engine::cards::access::DataLabel;
use engine::cards::source::KeyMode;
use engine::org::{Agent, AgentId, TeamId};
use engine::store::{Actor, NewAgent, StoreError};

on_both! {
    a_new_agent_keeps_its_description_and_is_audited: sqlite_a_new_agent_keeps_its_description_and_is_audited,
        postgres_a_new_agent_keeps_its_description_and_is_audited;
    a_team_copy_takes_what_its_agent_holds_once_per_team:
        sqlite_a_team_copy_takes_what_its_agent_holds_once_per_team,
        postgres_a_team_copy_takes_what_its_agent_holds_once_per_team;
    toolsets_and_clearance_change_apart: sqlite_toolsets_and_clearance_change_apart,
        postgres_toolsets_and_clearance_change_apart;
    a_private_agent_is_listed_to_its_owner_alone: sqlite_a_private_agent_is_listed_to_its_owner_alone,
        postgres_a_private_agent_is_listed_to_its_owner_alone;
}

async fn assistant(db: &Db, o: &Org) -> Agent {
    let new = NewAgent {
        name: "Sales Assistant".into(),
        template: "hand-made".into(),
        role: Some(o.sales.id),
        owner: o.alice.id,
        team_copy: None,
    };
    db.add_agent(&new, "Answers questions about deals.", o.by_admin(1)).await.unwrap()
}

async fn a_new_agent_keeps_its_description_and_is_audited(db: Db) {
    let o = org(&db).await;
    let a = assistant(&db, &o).await;
    assert_eq!(
        (a.name.as_str(), a.template.as_str(), a.role, a.owner, a.team_copy, a.copy_of),
        ("Sales Assistant", "hand-made", Some(o.sales.id), o.alice.id, None, None)
    );
    assert_eq!(a.description, "Answers questions about deals.");
    assert_eq!(db.agent(a.id).await.unwrap().unwrap(), a);
    assert!(db.directory().await.unwrap().agents.contains(&a));
    // The fixture's agent, made without a description, reads back with an empty one.
    assert_eq!(db.agent(o.agent.id).await.unwrap().unwrap().description, "");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("agent.create", format!("agent:{}", a.id)));
    assert_eq!(entry.actor, Some(o.admin.id));

    let again =
        NewAgent { name: "Sales Assistant".into(), template: "t".into(), role: None, owner: o.bob.id, team_copy: None };
    assert!(matches!(db.add_agent(&again, "", o.by_admin(2)).await, Err(StoreError::Duplicate(_))));
    assert_eq!(db.audit_log(1).await.unwrap()[0].subject, format!("agent:{}", a.id), "a refusal writes nothing");
}

async fn a_team_copy_takes_what_its_agent_holds_once_per_team(db: Db) {
    let o = org(&db).await;
    let a = assistant(&db, &o).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    db.set_agent_toolsets(a.id, &[crm.id], o.by_admin(2)).await.unwrap();
    db.set_agent_clearance(a.id, DataLabel::Confidential, o.by_admin(2)).await.unwrap();
    let east = db.create_team("Sales East", Some(o.sales.id), o.by_admin(2)).await.unwrap();
    assert_eq!(db.team_copy_of(a.id, east.id).await.unwrap(), None);

    let copy = db.copy_agent(a.id, east.id, "Sales Assistant (Sales East)", o.by_admin(3)).await.unwrap();
    assert_eq!(
        (copy.name.as_str(), copy.template.as_str(), copy.role, copy.owner, copy.team_copy, copy.copy_of),
        ("Sales Assistant (Sales East)", "hand-made", Some(o.sales.id), o.alice.id, Some(east.id), Some(a.id))
    );
    assert_eq!(copy.description, a.description);
    assert_eq!(db.agent_access(copy.id).await.unwrap(), Some((DataLabel::Confidential, vec![crm.id])));
    assert_eq!(db.team_copy_of(a.id, east.id).await.unwrap(), Some(copy.clone()));
    assert_eq!(db.team_copy_of(a.id, o.team.id).await.unwrap(), None, "a copy is for its own team only");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("agent.copy", format!("agent:{}", copy.id)));
    assert_eq!(entry.detail, format!("Sales Assistant (Sales East): copy of Sales Assistant for team:{}", east.id));

    // A second copy for the same team is refused, whatever its name; nothing is written.
    let twice = db.copy_agent(a.id, east.id, "Another name", o.by_admin(4)).await;
    assert!(matches!(twice, Err(StoreError::Duplicate(_))), "{twice:?}");
    // A taken name is refused too.
    let taken = db.copy_agent(a.id, o.team.id, "dealbot", o.by_admin(4)).await;
    assert!(matches!(taken, Err(StoreError::Duplicate(_))), "{taken:?}");
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "agent.copy");
    // Another team gets its own copy.
    let deals = db.copy_agent(a.id, o.team.id, "Sales Assistant (Deals)", o.by_admin(5)).await.unwrap();
    assert_eq!(deals.team_copy, Some(o.team.id));
    assert!(matches!(
        db.copy_agent(AgentId(9_999), TeamId(east.id.0), "ghost", o.by_admin(6)).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn toolsets_and_clearance_change_apart(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    db.set_agent_clearance(o.agent.id, DataLabel::Personal, o.by_admin(2)).await.unwrap();
    db.set_agent_toolsets(o.agent.id, &[crm.id, ats.id], o.by_admin(3)).await.unwrap();
    let mut both = vec![crm.id, ats.id];
    both.sort();
    assert_eq!(db.agent_access(o.agent.id).await.unwrap(), Some((DataLabel::Personal, both)), "clearance stays");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.actor), ("agent.toolsets", Some(o.admin.id)));

    db.set_agent_clearance(o.agent.id, DataLabel::Public, o.by_admin(4)).await.unwrap();
    let (cleared, held) = db.agent_access(o.agent.id).await.unwrap().unwrap();
    assert_eq!((cleared, held.len()), (DataLabel::Public, 2), "toolsets stay");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.detail.as_str()), ("agent.clearance", "cleared for public"));

    db.set_agent_toolsets(o.agent.id, &[], o.by_admin(5)).await.unwrap();
    assert_eq!(db.agent_access(o.agent.id).await.unwrap(), Some((DataLabel::Public, vec![])));

    let ghost = AgentId(9_999);
    assert!(matches!(db.set_agent_toolsets(ghost, &[crm.id], o.by_admin(6)).await, Err(StoreError::NotFound(_))));
    assert!(matches!(
        db.set_agent_clearance(ghost, DataLabel::Internal, o.by_admin(6)).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "agent.toolsets", "refusals write nothing");
}

async fn a_private_agent_is_listed_to_its_owner_alone(db: Db) {
    let o = org(&db).await;
    let new = |name: &str, owner| NewAgent {
        name: name.into(),
        template: "hand-made".into(),
        role: None,
        owner,
        team_copy: None,
    };
    let by_alice = Actor { person: Some(o.alice.id), at: o.by_admin(1).at };
    let inbox = db.add_private_agent(&new("Inbox (Alice Chen)", o.alice.id), "Sorts my mail.", by_alice).await.unwrap();
    let notes = db.add_private_agent(&new("Notes (Alice Chen)", o.alice.id), "", by_alice).await.unwrap();
    assert!(inbox.private && notes.private);
    assert_eq!((inbox.owner, inbox.role, inbox.description.as_str()), (o.alice.id, None, "Sorts my mail."));
    assert_eq!(db.agent(inbox.id).await.unwrap().unwrap(), inbox);
    assert_eq!(db.private_agents(o.alice.id).await.unwrap(), [inbox.clone(), notes]);
    assert!(db.private_agents(o.bob.id).await.unwrap().is_empty());
    let listed = db.directory().await.unwrap().agents;
    assert!(listed.iter().all(|a| !a.private) && listed.contains(&o.agent), "the directory lists company agents only");
    assert!(!db.agent(o.agent.id).await.unwrap().unwrap().private);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(entry.action, "agent.create");
    assert_eq!(entry.actor, Some(o.alice.id));
    assert!(entry.detail.contains("private agent of person:"), "{}", entry.detail);
    assert!(matches!(
        db.add_private_agent(&new("Inbox (Alice Chen)", o.alice.id), "", by_alice).await,
        Err(StoreError::Duplicate(_))
    ));
}
