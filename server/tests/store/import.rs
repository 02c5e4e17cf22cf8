//! ImportStore: people imported in one transaction, each with an invite, and one audit row.

use crate::backends::{at, on_both_stores, org, Db};
use chrono::{DateTime, Duration, Utc};
use engine::org::import::{ImportedPerson, PeopleImport};
use engine::org::{PersonId, RoleId, TeamId};
use engine::store::StoreError;
use server::store::AnyStore;

on_both_stores! {
    import_adds_everyone_with_an_invite_and_one_audit_row:
        sqlite_import_adds_everyone_with_an_invite_and_one_audit_row,
        postgres_import_adds_everyone_with_an_invite_and_one_audit_row;
    import_refuses_a_taken_email_and_writes_nothing: sqlite_import_refuses_a_taken_email_and_writes_nothing,
        postgres_import_refuses_a_taken_email_and_writes_nothing;
    import_of_thousands_keeps_each_id_with_its_person: sqlite_import_of_thousands_keeps_each_id_with_its_person,
        postgres_import_of_thousands_keeps_each_id_with_its_person;
}

/// An imported person numbered `n`: "Person n", `pn@acme.test`.
pub(crate) fn person(n: usize, team: TeamId, role: Option<RoleId>) -> ImportedPerson {
    ImportedPerson {
        name: format!("Person {n}"),
        email: format!("p{n}@acme.test"),
        main_team: team,
        role_override: role,
        invite_hash: format!("invite-hash-{n}"),
    }
}

fn import(people: Vec<ImportedPerson>) -> PeopleImport {
    PeopleImport {
        people,
        password_hash: "no-password-matches".into(),
        invite_expires_at: at(7 * 24 * 60),
        audit_detail: "added 2 people from a CSV file; 1 row refused".into(),
    }
}

/// An invite row as the migration shapes it.
#[derive(Debug, PartialEq)]
struct Invite {
    person: i64,
    secret_hash: String,
    made_by: Option<i64>,
    created_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    closed: bool,
}

async fn invites(store: &AnyStore) -> Vec<Invite> {
    let sql = "SELECT person_id, secret_hash, made_by, created_at, expires_at, \
               (used_at IS NOT NULL OR replaced_at IS NOT NULL) AS closed FROM invites ORDER BY person_id";
    macro_rules! read {
        ($pool:expr) => {
            sqlx::query_as::<_, (i64, String, Option<i64>, DateTime<Utc>, DateTime<Utc>, bool)>(sql)
                .fetch_all($pool)
                .await
                .expect("read the invites")
        };
    }
    let rows = match store {
        AnyStore::Sqlite(s) => read!(s.pool()),
        AnyStore::Postgres(s) => read!(s.pool()),
    };
    rows.into_iter()
        .map(|(person, secret_hash, made_by, created_at, expires_at, closed)| Invite {
            person,
            secret_hash,
            made_by,
            created_at,
            expires_at,
            closed,
        })
        .collect()
}

async fn import_adds_everyone_with_an_invite_and_one_audit_row(store: AnyStore) {
    let db: Db = store.shared();
    let o = org(&db).await;
    let before = db.audit_log(100).await.unwrap().len();
    let ids = db
        .import_people(
            &import(vec![person(1, o.team.id, None), person(2, o.team.id, Some(o.support.id))]),
            o.by_admin(5),
        )
        .await
        .unwrap();
    assert_eq!(ids.len(), 2);
    let first = db.person(ids[0]).await.unwrap().expect("the first person");
    assert_eq!((first.name.as_str(), first.email.as_str()), ("Person 1", "p1@acme.test"));
    assert_eq!((first.main_team, first.role_override, first.is_admin), (Some(o.team.id), None, false));
    let second = db.person(ids[1]).await.unwrap().expect("the second person");
    assert_eq!(second.role_override, Some(o.support.id));
    let (_, hash) = db.credentials("P1@acme.test").await.unwrap().expect("their credentials");
    assert_eq!(hash, "no-password-matches");

    let invites = invites(&store).await;
    let expected = |id: PersonId, n: usize| Invite {
        person: id.0,
        secret_hash: format!("invite-hash-{n}"),
        made_by: Some(o.admin.id.0),
        created_at: at(5),
        expires_at: at(7 * 24 * 60),
        closed: false,
    };
    assert_eq!(invites, [expected(ids[0], 1), expected(ids[1], 2)]);

    let audit = db.audit_log(100).await.unwrap();
    assert_eq!(audit.len(), before + 1, "one audit row for the whole import");
    assert_eq!(audit[0].action, "people.import");
    assert_eq!(audit[0].actor, Some(o.admin.id));
    assert_eq!(audit[0].detail, "added 2 people from a CSV file; 1 row refused");
}

async fn import_refuses_a_taken_email_and_writes_nothing(store: AnyStore) {
    let db: Db = store.shared();
    let o = org(&db).await;
    let before = (db.directory().await.unwrap().people.len(), db.audit_log(100).await.unwrap().len());
    let mut taken = person(2, o.team.id, None);
    taken.email = o.bob.email.clone();
    let refused = db.import_people(&import(vec![person(1, o.team.id, None), taken]), o.by_admin(5)).await;
    assert_eq!(refused, Err(StoreError::Duplicate("bob@acme.test".into())));
    let after = (db.directory().await.unwrap().people.len(), db.audit_log(100).await.unwrap().len());
    assert_eq!(after, before, "nobody added and nothing audited");
    assert!(invites(&store).await.is_empty());
    assert!(db.credentials("p1@acme.test").await.unwrap().is_none());

    // Twice in one import is refused by the email's unique key, also writing nothing.
    let twice = import(vec![person(3, o.team.id, None), person(3, o.team.id, None)]);
    let twice = db.import_people(&twice, o.by_admin(6)).await;
    assert!(matches!(twice, Err(StoreError::Duplicate(_))), "{twice:?}");
    assert!(db.credentials("p3@acme.test").await.unwrap().is_none());
    assert!(invites(&store).await.is_empty());
}

async fn import_of_thousands_keeps_each_id_with_its_person(store: AnyStore) {
    let db: Db = store.shared();
    let o = org(&db).await;
    let people: Vec<_> = (0..4_500).map(|n| person(n, o.team.id, None)).collect();
    let ids = db.import_people(&import(people), o.by_admin(1)).await.unwrap();
    assert_eq!(ids.len(), 4_500);
    for n in [0, 1_999, 2_000, 4_499] {
        let p = db.person(ids[n]).await.unwrap().expect("an imported person");
        assert_eq!(p.email, format!("p{n}@acme.test"));
    }
    let invites = invites(&store).await;
    assert_eq!(invites.len(), 4_500);
    let of_last = invites.iter().find(|i| i.person == ids[4_499].0).expect("the last person's invite");
    assert_eq!(of_last.secret_hash, "invite-hash-4499");
    assert!(at(1) + Duration::days(7) > of_last.created_at);
}
