//! OrgStore: the company, roles, teams, people, agents, their settings, leaving, and the audit log.

use crate::backends::{actor, company, new_person, on_both, org, slug, Db};
use engine::org::{AgentId, PersonId, RoleId, TeamId};
use engine::store::{NewAgent, StoreError};

on_both! {
    company_is_created_once: sqlite_company_is_created_once, postgres_company_is_created_once;
    directory_lists_everything_by_name: sqlite_directory_lists_everything_by_name,
        postgres_directory_lists_everything_by_name;
    lookups_find_what_was_created: sqlite_lookups_find_what_was_created, postgres_lookups_find_what_was_created;
    lookups_of_missing_rows_find_nothing: sqlite_lookups_of_missing_rows_find_nothing,
        postgres_lookups_of_missing_rows_find_nothing;
    credentials_match_email_case_insensitively: sqlite_credentials_match_email_case_insensitively,
        postgres_credentials_match_email_case_insensitively;
    create_role_refuses_a_taken_slug_or_name: sqlite_create_role_refuses_a_taken_slug_or_name,
        postgres_create_role_refuses_a_taken_slug_or_name;
    create_team_refuses_a_taken_name: sqlite_create_team_refuses_a_taken_name,
        postgres_create_team_refuses_a_taken_name;
    create_person_refuses_a_taken_email: sqlite_create_person_refuses_a_taken_email,
        postgres_create_person_refuses_a_taken_email;
    create_agent_refuses_a_taken_name: sqlite_create_agent_refuses_a_taken_name,
        postgres_create_agent_refuses_a_taken_name;
    setters_change_the_row_and_audit_old_and_new: sqlite_setters_change_the_row_and_audit_old_and_new,
        postgres_setters_change_the_row_and_audit_old_and_new;
    setters_refuse_a_missing_row: sqlite_setters_refuse_a_missing_row, postgres_setters_refuse_a_missing_row;
    audit_log_is_newest_first_and_limited: sqlite_audit_log_is_newest_first_and_limited,
        postgres_audit_log_is_newest_first_and_limited;
    a_password_hash_is_replaced_for_a_present_person_only: sqlite_a_password_hash_is_replaced_for_a_present_person_only,
        postgres_a_password_hash_is_replaced_for_a_present_person_only;
    mark_left_revokes_tokens_and_bars_sign_in: sqlite_mark_left_revokes_tokens_and_bars_sign_in,
        postgres_mark_left_revokes_tokens_and_bars_sign_in;
    mark_left_refuses_a_missing_or_departed_person: sqlite_mark_left_refuses_a_missing_or_departed_person,
        postgres_mark_left_refuses_a_missing_or_departed_person;
}

async fn company_is_created_once(db: Db) {
    assert_eq!(db.company().await.unwrap(), None);
    db.create_company(&company(), actor(None, 0)).await.unwrap();
    assert_eq!(db.company().await.unwrap(), Some(company()));
    let again = db.create_company(&company(), actor(None, 1)).await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    let audit = db.audit_log(10).await.unwrap();
    assert_eq!(audit.len(), 1, "the refused second company is not audited: {audit:?}");
    assert_eq!(audit[0].action, "company.create");
    assert_eq!(audit[0].subject, "Acme");
    assert_eq!(audit[0].detail, "Europe/Berlin");
}

async fn directory_lists_everything_by_name(db: Db) {
    let o = org(&db).await;
    let dir = db.directory().await.unwrap();
    let people: Vec<_> = dir.people.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(people, ["Ada Admin", "Alice", "Bob"]);
    assert_eq!(dir.people[1], o.alice);
    let roles: Vec<_> = dir.roles.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(roles, ["Sales", "Support"]);
    assert_eq!(dir.roles[0], o.sales);
    assert_eq!(dir.teams, [o.team]);
    assert_eq!(dir.agents, [o.agent]);
}

async fn lookups_find_what_was_created(db: Db) {
    let o = org(&db).await;
    assert_eq!(db.person(o.alice.id).await.unwrap(), Some(o.alice.clone()));
    assert_eq!(o.alice.email, "alice@acme.test");
    assert_eq!(o.alice.main_team, Some(o.team.id));
    assert!(db.person(o.admin.id).await.unwrap().unwrap().is_admin);
    assert_eq!(db.role(&slug("support")).await.unwrap(), Some(o.support.clone()));
    assert_eq!(db.role_by_id(o.sales.id).await.unwrap(), Some(o.sales.clone()));
    assert_eq!(o.sales.company_core_limit, 2_000);
    assert_eq!(db.team(o.team.id).await.unwrap(), Some(o.team.clone()));
    assert_eq!(o.team.role, Some(o.sales.id));
    assert_eq!(o.team.lead, None);
    assert_eq!(db.team_with_role(o.team.id).await.unwrap(), Some((o.team.clone(), Some(o.sales.clone()))));
    let roleless = db.create_team("Ops", None, o.by_admin(1)).await.unwrap();
    assert_eq!(db.team_with_role(roleless.id).await.unwrap(), Some((roleless, None)));
    assert_eq!(db.agent(o.agent.id).await.unwrap(), Some(o.agent.clone()));
}

async fn lookups_of_missing_rows_find_nothing(db: Db) {
    org(&db).await;
    assert_eq!(db.person(PersonId(9_999)).await.unwrap(), None);
    assert_eq!(db.role(&slug("finance")).await.unwrap(), None);
    assert_eq!(db.role_by_id(RoleId(9_999)).await.unwrap(), None);
    assert_eq!(db.team(TeamId(9_999)).await.unwrap(), None);
    assert_eq!(db.team_with_role(TeamId(9_999)).await.unwrap(), None);
    assert_eq!(db.agent(AgentId(9_999)).await.unwrap(), None);
    assert_eq!(db.credentials("nobody@acme.test").await.unwrap(), None);
}

async fn credentials_match_email_case_insensitively(db: Db) {
    let system = actor(None, 0);
    let carol = db.create_person(&new_person("Carol", "  Carol@Acme.TEST "), system).await.unwrap();
    assert_eq!(carol.email, "carol@acme.test", "emails are stored trimmed and lower-case");
    let (found, hash) = db.credentials("CAROL@acme.test").await.unwrap().expect("found by email");
    assert_eq!(found, carol);
    assert_eq!(hash, "hash-of-Carol");
}

async fn create_role_refuses_a_taken_slug_or_name(db: Db) {
    let system = actor(None, 0);
    db.create_role(&slug("sales"), "Sales", 2_000, system).await.unwrap();
    let same_slug = db.create_role(&slug("sales"), "Selling", 2_000, system).await;
    assert!(matches!(same_slug, Err(StoreError::Duplicate(_))), "{same_slug:?}");
    let same_name = db.create_role(&slug("selling"), "SALES", 2_000, system).await;
    assert!(matches!(same_name, Err(StoreError::Duplicate(_))), "names clash ignoring case: {same_name:?}");
    assert_eq!(db.directory().await.unwrap().roles.len(), 1);
    let audit = db.audit_log(10).await.unwrap();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!((audit[0].action.as_str(), audit[0].subject.as_str()), ("role.create", "role:sales"));
}

async fn create_team_refuses_a_taken_name(db: Db) {
    let system = actor(None, 0);
    let team = db.create_team("Deals", None, system).await.unwrap();
    assert_eq!(team.role, None);
    let again = db.create_team("Deals", None, system).await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    assert_eq!(db.directory().await.unwrap().teams, [team]);
}

async fn create_person_refuses_a_taken_email(db: Db) {
    let system = actor(None, 0);
    db.create_person(&new_person("Alice", "alice@acme.test"), system).await.unwrap();
    let again = db.create_person(&new_person("Other Alice", "ALICE@acme.test"), system).await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    assert_eq!(db.directory().await.unwrap().people.len(), 1);
}

async fn create_agent_refuses_a_taken_name(db: Db) {
    let o = org(&db).await;
    let again = db
        .create_agent(
            &NewAgent { name: "dealbot".into(), template: "t".into(), role: None, owner: o.bob.id, team_copy: None },
            o.by_admin(1),
        )
        .await;
    assert!(matches!(again, Err(StoreError::Duplicate(_))), "{again:?}");
    assert_eq!(db.directory().await.unwrap().agents, [o.agent]);
}

async fn setters_change_the_row_and_audit_old_and_new(db: Db) {
    let o = org(&db).await;
    db.set_team_role(o.team.id, Some(o.support.id), o.by_admin(1)).await.unwrap();
    db.set_team_lead(o.team.id, Some(o.alice.id), o.by_admin(2)).await.unwrap();
    db.set_person_role(o.bob.id, Some(o.support.id), o.by_admin(3)).await.unwrap();
    db.set_agent_role(o.agent.id, None, o.by_admin(4)).await.unwrap();
    db.set_company_core_limit(o.sales.id, 4_000, o.by_admin(5)).await.unwrap();

    let team = db.team(o.team.id).await.unwrap().unwrap();
    assert_eq!((team.role, team.lead), (Some(o.support.id), Some(o.alice.id)));
    assert_eq!(db.person(o.bob.id).await.unwrap().unwrap().role_override, Some(o.support.id));
    assert_eq!(db.agent(o.agent.id).await.unwrap().unwrap().role, None);
    assert_eq!(db.role_by_id(o.sales.id).await.unwrap().unwrap().company_core_limit, 4_000);

    let audit = db.audit_log(5).await.unwrap();
    let seen: Vec<_> =
        audit.iter().map(|e| (e.action.as_str(), e.subject.clone(), e.detail.clone(), e.actor, e.at)).collect();
    let (t, b, a, r) = (o.team.id, o.bob.id, o.agent.id, o.sales.id);
    let who = Some(o.admin.id);
    assert_eq!(
        seen,
        [
            ("role.company_core_limit", format!("role:{r}"), "2000 -> 4000".to_string(), who, o.by_admin(5).at),
            ("agent.role", format!("agent:{a}"), format!("{r} -> none"), who, o.by_admin(4).at),
            ("person.role", format!("person:{b}"), format!("none -> {}", o.support.id), who, o.by_admin(3).at),
            ("team.lead", format!("team:{t}"), format!("none -> {}", o.alice.id), who, o.by_admin(2).at),
            ("team.role", format!("team:{t}"), format!("{r} -> {}", o.support.id), who, o.by_admin(1).at),
        ]
    );
}

async fn setters_refuse_a_missing_row(db: Db) {
    let o = org(&db).await;
    let before = db.audit_log(100).await.unwrap().len();
    let by = o.by_admin(1);
    let results = [
        db.set_team_role(TeamId(9_999), None, by).await,
        db.set_team_lead(TeamId(9_999), Some(o.alice.id), by).await,
        db.set_person_role(PersonId(9_999), Some(o.sales.id), by).await,
        db.set_agent_role(AgentId(9_999), None, by).await,
        db.set_company_core_limit(RoleId(9_999), 3_000, by).await,
    ];
    for r in results {
        assert!(matches!(r, Err(StoreError::NotFound(_))), "{r:?}");
    }
    assert_eq!(db.audit_log(100).await.unwrap().len(), before, "a refusal audits nothing");
}

async fn audit_log_is_newest_first_and_limited(db: Db) {
    org(&db).await;
    let all = db.audit_log(100).await.unwrap();
    let actions: Vec<_> = all.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "agent.create",
            "person.create",
            "person.create",
            "person.create",
            "team.create",
            "role.create",
            "role.create",
            "company.create"
        ]
    );
    assert_eq!(all[0].detail, "dealbot");
    assert!(all.iter().all(|e| e.actor.is_none()));
    assert_eq!(db.audit_log(2).await.unwrap(), all[..2]);
}

async fn mark_left_revokes_tokens_and_bars_sign_in(db: Db) {
    let o = org(&db).await;
    let by = o.by_admin(1);
    db.create_api_token(o.alice.id, "laptop", "alice-secret-1", by).await.unwrap();
    db.create_api_token(o.alice.id, "ci", "alice-secret-2", by).await.unwrap();
    db.create_api_token(o.bob.id, "laptop", "bob-secret", by).await.unwrap();
    let until = by.at + chrono::Duration::days(90);
    db.create_agent_token("dealbot", o.alice.id, "runner", "bot-secret", by.at, until).await.unwrap();
    assert!(db.credentials("alice@acme.test").await.unwrap().is_some());

    let gone = db.mark_left(o.alice.id, o.by_admin(2)).await.unwrap();
    assert_eq!(gone.tokens, 3, "two API tokens and the bot token she made: {gone:?}");

    let alice = db.person(o.alice.id).await.unwrap().expect("her row stays");
    assert_eq!(alice.left_at, Some(o.by_admin(2).at));
    assert_eq!(db.credentials("alice@acme.test").await.unwrap(), None);
    assert_eq!(db.person_by_token("alice-secret-1", o.by_admin(3).at).await.unwrap(), None);
    assert!(db.agent_token("bot-secret").await.unwrap().expect("the token").revoked_at.is_some());
    assert!(db.api_tokens(o.alice.id).await.unwrap().iter().all(|t| t.revoked_at == Some(o.by_admin(2).at)));
    let bob = db.person_by_token("bob-secret", o.by_admin(3).at).await.unwrap();
    assert_eq!(bob.map(|p| p.id), Some(o.bob.id), "others keep their tokens");

    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!(entry.action, "person.left");
    assert_eq!(entry.subject, format!("person:{}", o.alice.id));
    assert_eq!(entry.detail, "3 tokens revoked, 0 uses and 0 cards removed");
}

async fn mark_left_refuses_a_missing_or_departed_person(db: Db) {
    let o = org(&db).await;
    let missing = db.mark_left(PersonId(9_999), o.by_admin(1)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    db.mark_left(o.bob.id, o.by_admin(2)).await.unwrap();
    let twice = db.mark_left(o.bob.id, o.by_admin(3)).await;
    assert!(matches!(twice, Err(StoreError::NotFound(_))), "{twice:?}");
    assert_eq!(db.person(o.bob.id).await.unwrap().unwrap().left_at, Some(o.by_admin(2).at), "the first date stays");
}

async fn a_password_hash_is_replaced_for_a_present_person_only(db: Db) {
    let o = org(&db).await;
    db.set_password_hash(o.alice.id, "new-hash", actor(None, 5)).await.unwrap();
    assert_eq!(db.credentials("alice@acme.test").await.unwrap().unwrap().1, "new-hash");
    assert_eq!(db.credentials("bob@acme.test").await.unwrap().unwrap().1, "hash-of-Bob", "only hers");
    let entry = &db.audit_log(1).await.unwrap()[0];
    assert_eq!((entry.action.as_str(), entry.subject.clone()), ("person.password", format!("person:{}", o.alice.id.0)));
    assert!(!entry.detail.contains("new-hash"), "the hash is not audited");
    let missing = db.set_password_hash(PersonId(9_999), "x", actor(None, 6)).await;
    assert!(matches!(missing, Err(StoreError::NotFound(_))), "{missing:?}");
    db.mark_left(o.bob.id, actor(None, 7)).await.unwrap();
    let gone = db.set_password_hash(o.bob.id, "x", actor(None, 8)).await;
    assert!(matches!(gone, Err(StoreError::NotFound(_))), "{gone:?}");
}
