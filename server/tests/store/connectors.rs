//! CardStore, the connector side: connectors, keys, record shapes, settings that remove cards,
//! the hourly read limit, and the per-role, per-person and per-agent settings.

use crate::backends::{at, on_both, org, Db, Org};
use engine::cards::access::{DataLabel, KeyKind};
use engine::cards::source::{Connector, Freshness, KeyMode, RecordShape, ShapeField};
use engine::cards::store::{MyWorkQuery, NewCard, NewConnector, OpenWhen, PrepareSetting};
use engine::org::{AgentId, PersonId};
use engine::store::StoreError;

on_both! {
    a_connector_reads_back_with_its_settings: sqlite_a_connector_reads_back_with_its_settings,
        postgres_a_connector_reads_back_with_its_settings;
    create_connector_refuses_a_taken_name: sqlite_create_connector_refuses_a_taken_name,
        postgres_create_connector_refuses_a_taken_name;
    a_person_key_is_set_and_replaced: sqlite_a_person_key_is_set_and_replaced,
        postgres_a_person_key_is_set_and_replaced;
    a_company_key_is_replaced_or_its_connector_not_found:
        sqlite_a_company_key_is_replaced_or_its_connector_not_found,
        postgres_a_company_key_is_replaced_or_its_connector_not_found;
    shapes_are_saved_and_replaced_per_tool: sqlite_shapes_are_saved_and_replaced_per_tool,
        postgres_shapes_are_saved_and_replaced_per_tool;
    update_connector_changes_only_what_removes_nothing: sqlite_update_connector_changes_only_what_removes_nothing,
        postgres_update_connector_changes_only_what_removes_nothing;
    the_kill_switch_turns_on_and_off: sqlite_the_kill_switch_turns_on_and_off,
        postgres_the_kill_switch_turns_on_and_off;
    keep_cards_off_removes_the_connectors_cards: sqlite_keep_cards_off_removes_the_connectors_cards,
        postgres_keep_cards_off_removes_the_connectors_cards;
    a_key_mode_change_removes_cards_no_tool_reads_with:
        sqlite_a_key_mode_change_removes_cards_no_tool_reads_with,
        postgres_a_key_mode_change_removes_cards_no_tool_reads_with;
    reads_stop_at_the_hourly_limit: sqlite_reads_stop_at_the_hourly_limit, postgres_reads_stop_at_the_hourly_limit;
    racing_reads_never_exceed_the_hourly_limit: sqlite_racing_reads_never_exceed_the_hourly_limit,
        postgres_racing_reads_never_exceed_the_hourly_limit;
    my_work_queries_are_kept_per_role: sqlite_my_work_queries_are_kept_per_role,
        postgres_my_work_queries_are_kept_per_role;
    prepare_my_day_defaults_saves_and_lists_who_turned_it_on:
        sqlite_prepare_my_day_defaults_saves_and_lists_who_turned_it_on,
        postgres_prepare_my_day_defaults_saves_and_lists_who_turned_it_on;
    a_persons_time_zone_is_set_and_cleared: sqlite_a_persons_time_zone_is_set_and_cleared,
        postgres_a_persons_time_zone_is_set_and_cleared;
    agent_access_starts_internal_and_is_replaced: sqlite_agent_access_starts_internal_and_is_replaced,
        postgres_agent_access_starts_internal_and_is_replaced;
    job_runs_remember_the_last_local_date: sqlite_job_runs_remember_the_last_local_date,
        postgres_job_runs_remember_the_last_local_date;
    racing_claims_of_one_day_give_it_to_exactly_one: sqlite_racing_claims_of_one_day_give_it_to_exactly_one,
        postgres_racing_claims_of_one_day_give_it_to_exactly_one;
}

pub fn new_connector(name: &str, key_mode: KeyMode) -> NewConnector {
    NewConnector {
        name: name.into(),
        base_url: format!("https://{name}.example"),
        key_mode,
        ticked: vec!["list_deals".into(), "get_deal".into()],
        label: DataLabel::Internal,
        admits_roles: vec!["sales".into()],
        keep_cards: true,
        facts: engine::cards::source::FactLimits::DEFAULT,
        free_text: Freshness { soft_mins: 30, hard_mins: 720 },
        hourly_limit: 120,
    }
}

pub async fn connector(db: &Db, o: &Org, name: &str, key_mode: KeyMode) -> Connector {
    db.create_connector(&new_connector(name, key_mode), Some("company-secret"), o.by_admin(1)).await.unwrap()
}

pub fn card(connector: i64, record: &str, read_with: KeyKind, read_as: Option<PersonId>) -> NewCard {
    NewCard {
        connector,
        tool: "list_deals".into(),
        kind: "deal".into(),
        record_id: record.into(),
        version: Some("v1".into()),
        fields: vec![engine::cards::source::CardField {
            name: "stage".into(),
            value: "proposal".into(),
            free_text: false,
        }],
        read_with,
        read_as,
        label_when_read: DataLabel::Internal,
        missing: vec![],
        open_when: None,
        read_at: at(2),
    }
}

async fn a_connector_reads_back_with_its_settings(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let want = new_connector("crm", KeyMode::Company);
    assert_eq!(
        (crm.name.as_str(), crm.base_url.as_str(), crm.key_mode),
        ("crm", "https://crm.example", KeyMode::Company)
    );
    assert_eq!((crm.own_key_tools.clone(), crm.ticked.clone(), crm.acting.clone()), (vec![], want.ticked, vec![]));
    assert_eq!((crm.label, crm.admits_roles.clone(), crm.keep_cards), (DataLabel::Internal, want.admits_roles, true));
    assert_eq!((crm.facts, crm.free_text, crm.hourly_limit), (want.facts, want.free_text, 120));
    assert_eq!((crm.killed, crm.has_company_key), (false, true));
    assert_eq!(db.company_key(crm.id).await.unwrap().as_deref(), Some("company-secret"));

    let mail = db.create_connector(&new_connector("ats", KeyMode::OwnKeys), None, o.by_admin(2)).await.unwrap();
    assert!(!mail.has_company_key);
    assert_eq!(db.company_key(mail.id).await.unwrap(), None);
    assert_eq!(db.connectors().await.unwrap(), [mail.clone(), crm.clone()], "listed by name");
    assert_eq!(db.connector(crm.id).await.unwrap(), Some(crm.clone()));
    assert_eq!(db.connector(9_999).await.unwrap(), None);
    assert_eq!(db.company_key(9_999).await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("connector.create", format!("connector:{}", mail.id)));
    assert_eq!(entry.detail, "ats");
}

async fn create_connector_refuses_a_taken_name(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let again = db.create_connector(&new_connector("crm", KeyMode::OwnKeys), None, o.by_admin(2)).await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    assert_eq!(db.connectors().await.unwrap(), [crm]);
}

async fn a_person_key_is_set_and_replaced(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::OwnKeys).await;
    assert_eq!(db.person_key(c.id, o.alice.id).await.unwrap(), None);
    db.set_person_key(c.id, o.alice.id, "alice-key", o.by_admin(2)).await.unwrap();
    db.set_person_key(c.id, o.alice.id, "alice-new-key", o.by_admin(3)).await.unwrap();
    assert_eq!(db.person_key(c.id, o.alice.id).await.unwrap().as_deref(), Some("alice-new-key"));
    assert_eq!(db.person_key(c.id, o.bob.id).await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("person_key.set", format!("connector:{}", c.id)));
    assert_eq!(entry.detail, format!("person:{}", o.alice.id), "the secret is never audited");
}

async fn a_company_key_is_replaced_or_its_connector_not_found(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = db.create_connector(&new_connector("ats", KeyMode::OwnKeys), None, o.by_admin(2)).await.unwrap();
    db.set_company_key(crm.id, "company-rotated", o.by_admin(3)).await.unwrap();
    db.set_company_key(ats.id, "ats-imported", o.by_admin(4)).await.unwrap();
    assert_eq!(db.company_key(crm.id).await.unwrap().as_deref(), Some("company-rotated"));
    assert_eq!(db.company_key(ats.id).await.unwrap().as_deref(), Some("ats-imported"));
    assert!(db.connector(ats.id).await.unwrap().unwrap().has_company_key, "a connector without a key now has one");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.subject.clone(), entry.at),
        ("connector.company_key", format!("connector:{}", ats.id), at(4))
    );
    assert!(!entry.detail.contains("ats-imported"), "the audit never holds the key: {}", entry.detail);

    let missing = db.set_company_key(9_999, "nobody", o.by_admin(5)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    assert_eq!(db.audit_log(1).await.unwrap()[0].action, "connector.company_key", "a refused write is not audited");
    assert_eq!(db.company_key(crm.id).await.unwrap().as_deref(), Some("company-rotated"));
}

async fn shapes_are_saved_and_replaced_per_tool(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let shape = |tool: &str, kind: &str| RecordShape {
        connector: c.id,
        tool: tool.into(),
        kind: kind.into(),
        id_field: "id".into(),
        version_field: Some("updated".into()),
        fields: vec![ShapeField::new("stage", false), ShapeField::new("notes", true)],
        get_tool: "get_deal".into(),
        confirmed: false,
    };
    let open = OpenWhen { field: "stage".into(), values: vec!["proposal".into(), "negotiation".into()] };
    db.save_shape(&shape("list_tickets", "ticket"), None, o.by_admin(2)).await.unwrap();
    db.save_shape(&shape("list_deals", "deal"), Some(&open), o.by_admin(3)).await.unwrap();
    assert_eq!(db.shapes(c.id).await.unwrap(), [shape("list_deals", "deal"), shape("list_tickets", "ticket")]);
    assert_eq!(db.open_when(c.id, "list_deals").await.unwrap(), Some(open));
    assert_eq!(db.open_when(c.id, "list_tickets").await.unwrap(), None);
    assert_eq!(db.open_when(c.id, "no_such_tool").await.unwrap(), None);

    let confirmed = RecordShape { confirmed: true, version_field: None, ..shape("list_deals", "opportunity") };
    db.save_shape(&confirmed, None, o.by_admin(4)).await.unwrap();
    assert_eq!(db.shapes(c.id).await.unwrap(), [confirmed, shape("list_tickets", "ticket")]);
    assert_eq!(db.open_when(c.id, "list_deals").await.unwrap(), None, "saving without it clears it");
    assert_eq!(db.shapes(9_999).await.unwrap(), []);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.detail.as_str()), ("shape.save", "list_deals"));
}

async fn update_connector_changes_only_what_removes_nothing(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let changed = Connector {
        ticked: vec!["list_deals".into()],
        acting: vec!["update_deal".into()],
        write_targets: vec![engine::cards::source::WriteTarget {
            tool: "update_deal".into(),
            kind: "deal".into(),
            id_argument: "deal_id".into(),
        }],
        label: DataLabel::Confidential,
        admits_roles: vec![],
        facts: engine::cards::source::FactLimits {
            reference: Freshness { soft_mins: 50, hard_mins: 500 },
            state: Freshness { soft_mins: 5, hard_mins: 50 },
            moving: Freshness { soft_mins: 2, hard_mins: 20 },
        },
        free_text: Freshness { soft_mins: 1, hard_mins: 10 },
        hourly_limit: 30,
        // Not settings this call changes: they stay as they are.
        name: "renamed".into(),
        key_mode: KeyMode::OwnKeys,
        keep_cards: false,
        killed: true,
        ..c.clone()
    };
    db.update_connector(&changed, o.by_admin(2)).await.unwrap();
    let now = db.connector(c.id).await.unwrap().unwrap();
    let want = Connector { name: c.name.clone(), key_mode: c.key_mode, keep_cards: true, killed: false, ..changed };
    assert_eq!(now, want);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.detail.as_str()),
        (
            "connector.settings",
            "ticked list_deals; acting update_deal (update_deal changes a deal named by deal_id); label confidential; \
             admits everyone; limit 30/h"
        )
    );
}

async fn the_kill_switch_turns_on_and_off(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    db.set_killed(c.id, true, o.by_admin(2)).await.unwrap();
    assert!(db.connector(c.id).await.unwrap().unwrap().killed);
    db.set_killed(c.id, false, o.by_admin(3)).await.unwrap();
    assert!(!db.connector(c.id).await.unwrap().unwrap().killed);
    let audit = db.audit_log(2).await.unwrap();
    let seen: Vec<_> = audit.iter().map(|e| (e.action.as_str(), e.detail.as_str())).collect();
    assert_eq!(seen, [("connector.kill_switch", "off"), ("connector.kill_switch", "on")]);
}

async fn keep_cards_off_removes_the_connectors_cards(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    let a = db.upsert_card(&card(crm.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let b = db.upsert_card(&card(crm.id, "D-2", KeyKind::ActingFor, Some(o.alice.id))).await.unwrap();
    let other = db.upsert_card(&card(ats.id, "D-1", KeyKind::Company, None)).await.unwrap();
    for id in [a.id, b.id, other.id] {
        db.save_use(&crate::cards::use_of(o.alice.id, id, false)).await.unwrap();
    }
    assert_eq!(db.set_keep_cards(crm.id, false, o.by_admin(2)).await.unwrap(), 2);
    assert!(!db.connector(crm.id).await.unwrap().unwrap().keep_cards);
    assert_eq!((db.card(a.id).await.unwrap(), db.card(b.id).await.unwrap()), (None, None));
    assert_eq!(db.card_use(o.alice.id, a.id).await.unwrap(), None, "their uses went with them");
    assert_eq!(db.card(other.id).await.unwrap(), Some(other.clone()));
    assert_eq!(db.counts(o.alice.id).await.unwrap(), (1, 0));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.detail.as_str()),
        ("connector.keep_cards", "keep cards off; 2 cards removed")
    );

    assert_eq!(db.set_keep_cards(crm.id, true, o.by_admin(3)).await.unwrap(), 0);
    assert!(db.connector(crm.id).await.unwrap().unwrap().keep_cards);
    assert_eq!(db.audit_log(1).await.unwrap()[0].detail, "keep cards on; 0 cards removed");
}

async fn a_key_mode_change_removes_cards_no_tool_reads_with(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let company = db.upsert_card(&card(c.id, "D-1", KeyKind::Company, None)).await.unwrap();
    let own = db.upsert_card(&card(c.id, "D-2", KeyKind::OwnKey, Some(o.alice.id))).await.unwrap();
    let acting = db.upsert_card(&card(c.id, "D-3", KeyKind::ActingFor, Some(o.bob.id))).await.unwrap();

    let removed = db.set_key_mode(c.id, KeyMode::ActingFor, &["get_deal".into()], o.by_admin(2)).await.unwrap();
    assert_eq!(removed, 1, "list_deals reads acting for, get_deal with own keys: company cards go");
    let now = db.connector(c.id).await.unwrap().unwrap();
    assert_eq!((now.key_mode, now.own_key_tools), (KeyMode::ActingFor, vec!["get_deal".to_string()]));
    assert_eq!(db.card(company.id).await.unwrap(), None);
    assert_eq!(db.card(own.id).await.unwrap(), Some(own));
    assert_eq!(db.card(acting.id).await.unwrap(), Some(acting.clone()));
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(
        (entry.action.as_str(), entry.detail.as_str()),
        ("connector.key_mode", "key mode acting_for; 1 cards removed")
    );

    assert_eq!(db.set_key_mode(c.id, KeyMode::Company, &[], o.by_admin(3)).await.unwrap(), 2);
    assert_eq!(db.card(acting.id).await.unwrap(), None);
}

async fn reads_stop_at_the_hourly_limit(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    let since = at(0);
    assert!(db.claim_read(crm.id, "refresh", at(-90), 3, at(-61)).await.unwrap(), "an hour and more ago");
    for i in 0..3 {
        assert!(db.claim_read(crm.id, "read", since, 3, at(i)).await.unwrap(), "read {i}");
    }
    assert!(!db.claim_read(crm.id, "read", since, 3, at(4)).await.unwrap(), "the limit is spent");
    assert!(db.claim_read(ats.id, "read", since, 3, at(4)).await.unwrap(), "each connector has its own limit");
    assert!(db.claim_read(crm.id, "read", since, 4, at(5)).await.unwrap(), "a refused read was not counted");
    assert!(!db.claim_read(crm.id, "read", since, 4, at(6)).await.unwrap());
}

async fn racing_reads_never_exceed_the_hourly_limit(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::Company).await;
    let claims: Vec<_> = (0..24)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.claim_read(c.id, "read", at(0), 5, at(1)).await })
        })
        .collect();
    let mut granted = 0;
    for claim in claims {
        granted += u32::from(claim.await.unwrap().unwrap());
    }
    assert_eq!(granted, 5);
    assert!(!db.claim_read(c.id, "read", at(0), 5, at(2)).await.unwrap());
}

async fn my_work_queries_are_kept_per_role(db: Db) {
    let o = org(&db).await;
    let c = connector(&db, &o, "crm", KeyMode::ActingFor).await;
    let q = |label: &str| MyWorkQuery {
        id: 0,
        role: o.sales.id,
        connector: c.id,
        tool: "list_deals".into(),
        arguments: r#"{"owner":"{me}"}"#.into(),
        label: label.into(),
    };
    let first = db.add_my_work_query(&q("My deals"), o.by_admin(2)).await.unwrap();
    let second = db.add_my_work_query(&q("My renewals"), o.by_admin(3)).await.unwrap();
    assert_ne!(first.id, second.id);
    assert_eq!(first, MyWorkQuery { id: first.id, ..q("My deals") });
    assert_eq!(db.my_work_queries(o.sales.id).await.unwrap(), [first, second]);
    assert_eq!(db.my_work_queries(o.support.id).await.unwrap(), []);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("my_work.add", format!("role:{}", o.sales.id)));
    assert_eq!(entry.detail, "My renewals");
}

async fn prepare_my_day_defaults_saves_and_lists_who_turned_it_on(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.prepare_setting(o.alice.id).await.unwrap(), PrepareSetting::default());
    assert_eq!(db.prepare_enabled().await.unwrap(), []);
    let on = PrepareSetting { enabled: true, at_time: "07:45".into(), last_local_date: None };
    db.save_prepare_setting(o.bob.id, &on).await.unwrap();
    db.save_prepare_setting(o.alice.id, &PrepareSetting { at_time: "09:00".into(), ..on.clone() }).await.unwrap();
    db.save_prepare_setting(o.admin.id, &PrepareSetting { enabled: false, ..on.clone() }).await.unwrap();
    let ran = PrepareSetting { last_local_date: Some("2026-11-30".into()), ..on.clone() };
    db.save_prepare_setting(o.bob.id, &ran).await.unwrap();

    assert_eq!(db.prepare_setting(o.bob.id).await.unwrap(), ran);
    assert!(!db.prepare_setting(o.admin.id).await.unwrap().enabled);
    let mut want = vec![(o.alice.id, PrepareSetting { at_time: "09:00".into(), ..on }), (o.bob.id, ran)];
    want.sort_by_key(|(p, _)| *p);
    assert_eq!(db.prepare_enabled().await.unwrap(), want);
}

async fn a_persons_time_zone_is_set_and_cleared(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.person_time_zone(o.alice.id).await.unwrap(), None);
    db.set_person_time_zone(o.alice.id, Some("Asia/Kolkata"), o.by_admin(2)).await.unwrap();
    assert_eq!(db.person_time_zone(o.alice.id).await.unwrap().as_deref(), Some("Asia/Kolkata"));
    assert_eq!(db.person_time_zone(o.bob.id).await.unwrap(), None);
    db.set_person_time_zone(o.alice.id, None, o.by_admin(3)).await.unwrap();
    assert_eq!(db.person_time_zone(o.alice.id).await.unwrap(), None);
    assert_eq!(db.person_time_zone(PersonId(9_999)).await.unwrap(), None);
    let audit = db.audit_log(2).await.unwrap();
    let seen: Vec<_> = audit.iter().map(|e| (e.action.as_str(), e.detail.as_str())).collect();
    assert_eq!(seen, [("person.time_zone", "company's"), ("person.time_zone", "Asia/Kolkata")]);
}

async fn agent_access_starts_internal_and_is_replaced(db: Db) {
    let o = org(&db).await;
    let crm = connector(&db, &o, "crm", KeyMode::Company).await;
    let ats = connector(&db, &o, "ats", KeyMode::Company).await;
    assert_eq!(db.agent_access(o.agent.id).await.unwrap(), Some((DataLabel::Internal, vec![])));
    db.set_agent_access(o.agent.id, DataLabel::Confidential, &[crm.id, ats.id], o.by_admin(2)).await.unwrap();
    let mut both = vec![crm.id, ats.id];
    both.sort();
    assert_eq!(db.agent_access(o.agent.id).await.unwrap(), Some((DataLabel::Confidential, both)));
    db.set_agent_access(o.agent.id, DataLabel::Public, &[ats.id], o.by_admin(3)).await.unwrap();
    assert_eq!(db.agent_access(o.agent.id).await.unwrap(), Some((DataLabel::Public, vec![ats.id])));
    assert_eq!(db.agent_access(AgentId(9_999)).await.unwrap(), None);
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("agent.access", format!("agent:{}", o.agent.id)));
    assert_eq!(entry.detail, format!("cleared for public; holds [{}]", ats.id));
}

async fn job_runs_remember_the_last_local_date(db: Db) {
    assert_eq!(db.job_last_run("forgetting").await.unwrap(), None);
    assert!(db.claim_job_run("forgetting", "2026-11-29").await.unwrap(), "the first claim of a day");
    assert!(!db.claim_job_run("forgetting", "2026-11-29").await.unwrap(), "the same day again");
    assert!(db.claim_job_run("forgetting", "2026-11-30").await.unwrap(), "the next day");
    assert!(db.claim_job_run("prepare", "2026-11-28").await.unwrap(), "each job its own");
    assert_eq!(db.job_last_run("forgetting").await.unwrap().as_deref(), Some("2026-11-30"));
    assert_eq!(db.job_last_run("prepare").await.unwrap().as_deref(), Some("2026-11-28"));
}

/// Several servers on one database each find the daily job due: one runs it.
async fn racing_claims_of_one_day_give_it_to_exactly_one(db: Db) {
    let o = org(&db).await;
    let claims = (0..16).map(|_| {
        let db = db.clone();
        tokio::spawn(async move { db.claim_job_run("forgetting", "2026-12-01").await.unwrap() })
    });
    let won = futures_count(claims).await;
    assert_eq!(won, 1, "one claim of the day wins");

    let mut setting = PrepareSetting { enabled: true, ..PrepareSetting::default() };
    setting.last_local_date = Some("2026-11-30".into());
    db.save_prepare_setting(o.alice.id, &setting).await.unwrap();
    let claims = (0..16).map(|_| {
        let db = db.clone();
        let alice = o.alice.id;
        tokio::spawn(async move { db.claim_prepare(alice, "2026-12-01").await.unwrap() })
    });
    assert_eq!(futures_count(claims).await, 1, "one Prepare my day for the day");
    assert!(!db.claim_prepare(o.alice.id, "2026-12-01").await.unwrap());
    assert!(db.claim_prepare(o.alice.id, "2026-12-02").await.unwrap());
    assert!(!db.claim_prepare(o.bob.id, "2026-12-01").await.unwrap(), "no setting, nothing to claim");
    let kept = db.prepare_setting(o.alice.id).await.unwrap();
    assert_eq!((kept.enabled, kept.last_local_date.as_deref()), (true, Some("2026-12-02")));
}

async fn futures_count(claims: impl Iterator<Item = tokio::task::JoinHandle<bool>>) -> usize {
    let mut won = 0;
    for c in claims.collect::<Vec<_>>() {
        won += usize::from(c.await.unwrap());
    }
    won
}
