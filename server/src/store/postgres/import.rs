//! A CSV import of people on PostgreSQL, mirroring `store::import`: one transaction, each table
//! written by one INSERT from arrays. Two imports racing for one email are kept apart by the
//! email's unique key: the second's insert fails and its whole transaction rolls back.

use super::{audit, backend, is_unique_violation, PgStore};
use crate::store::OrBackend;
use async_trait::async_trait;
use engine::org::import::{ImportStore, PeopleImport};
use engine::org::PersonId;
use engine::store::{Actor, StoreError};
use sqlx::Row;
use std::collections::HashMap;

#[async_trait]
impl ImportStore for PgStore {
    async fn import_people(&self, import: &PeopleImport, actor: Actor) -> Result<Vec<PersonId>, StoreError> {
        let emails: Vec<&str> = import.people.iter().map(|p| p.email.as_str()).collect();
        let mut tx = self.pool().begin().await.or_backend()?;
        let already: Option<String> = sqlx::query_scalar("SELECT email FROM people WHERE email = ANY($1) LIMIT 1")
            .bind(&emails)
            .fetch_optional(&mut *tx)
            .await
            .or_backend()?;
        if let Some(email) = already {
            return Err(StoreError::Duplicate(email));
        }
        let names: Vec<&str> = import.people.iter().map(|p| p.name.as_str()).collect();
        let teams: Vec<i64> = import.people.iter().map(|p| p.main_team.0).collect();
        let roles: Vec<Option<i64>> = import.people.iter().map(|p| p.role_override.map(|r| r.0)).collect();
        let rows = sqlx::query(
            "INSERT INTO people (name, email, password_hash, is_admin, main_team_id, role_override_id, created_at) \
             SELECT n, e, $3, FALSE, t, r, $6 FROM UNNEST($1::text[], $2::text[], $4::bigint[], $5::bigint[]) \
             AS u(n, e, t, r) RETURNING id, email",
        )
        .bind(&names)
        .bind(&emails)
        .bind(&import.password_hash)
        .bind(&teams)
        .bind(&roles)
        .bind(actor.at)
        .fetch_all(&mut *tx)
        .await
        .map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(String::new()) } else { backend(e) })?;
        let ids: HashMap<String, i64> = rows.iter().map(|r| (r.get("email"), r.get("id"))).collect();
        let people: Vec<i64> = import
            .people
            .iter()
            .map(|p| ids.get(&p.email).copied())
            .collect::<Option<_>>()
            .ok_or_else(|| StoreError::Backend("an imported person's id did not come back".to_string()))?;
        let hashes: Vec<&str> = import.people.iter().map(|p| p.invite_hash.as_str()).collect();
        sqlx::query(
            "INSERT INTO invites (person_id, secret_hash, made_by, created_at, expires_at) \
             SELECT p, h, $3, $4, $5 FROM UNNEST($1::bigint[], $2::text[]) AS u(p, h)",
        )
        .bind(&people)
        .bind(&hashes)
        .bind(actor.person.map(|a| a.0))
        .bind(actor.at)
        .bind(import.invite_expires_at)
        .execute(&mut *tx)
        .await
        .or_backend()?;
        audit(&mut tx, actor, "people.import", "people", &import.audit_detail).await?;
        tx.commit().await.or_backend()?;
        Ok(people.into_iter().map(PersonId).collect())
    }
}
