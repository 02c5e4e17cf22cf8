//! A CSV import of people on SQLite: everyone, their invites and one audit row in one IMMEDIATE
//! transaction, written in multi-row INSERTs so that ten thousand people take seconds.

use super::{audit, backend, is_unique_violation, SqliteStore};
use crate::store::OrBackend;
use async_trait::async_trait;
use engine::org::import::{ImportStore, PeopleImport};
use engine::org::PersonId;
use engine::store::{Actor, StoreError};
use sqlx::{QueryBuilder, Row, Sqlite};
use std::collections::HashMap;

/// Rows per INSERT: seven values each stays well under SQLite's 32,766 bound values.
const ROWS: usize = 2_000;

fn taken(e: sqlx::Error) -> StoreError {
    if is_unique_violation(&e) {
        // Another writer took an email between the check and the insert; which one is unknown.
        StoreError::Duplicate(String::new())
    } else {
        backend(e)
    }
}

#[async_trait]
impl ImportStore for SqliteStore {
    async fn import_people(&self, import: &PeopleImport, actor: Actor) -> Result<Vec<PersonId>, StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        for chunk in import.people.chunks(ROWS) {
            let mut q: QueryBuilder<Sqlite> = QueryBuilder::new("SELECT email FROM people WHERE email IN (");
            let mut each = q.separated(", ");
            for p in chunk {
                each.push_bind(&p.email);
            }
            q.push(") LIMIT 1");
            if let Some(email) = q.build_query_scalar::<String>().fetch_optional(&mut *tx).await.or_backend()? {
                return Err(StoreError::Duplicate(email));
            }
        }
        let mut ids: HashMap<String, i64> = HashMap::with_capacity(import.people.len());
        for chunk in import.people.chunks(ROWS) {
            let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(
                "INSERT INTO people (name, email, password_hash, is_admin, main_team_id, role_override_id, created_at) ",
            );
            q.push_values(chunk, |mut row, p| {
                row.push_bind(&p.name)
                    .push_bind(&p.email)
                    .push_bind(&import.password_hash)
                    .push_bind(0_i64)
                    .push_bind(p.main_team.0)
                    .push_bind(p.role_override.map(|r| r.0))
                    .push_bind(actor.at);
            });
            // SQLite returns the new rows in no promised order, so each id is matched by email.
            q.push(" RETURNING id, email");
            for row in q.build().fetch_all(&mut *tx).await.map_err(taken)? {
                ids.insert(row.get("email"), row.get("id"));
            }
        }
        let people: Vec<PersonId> = import
            .people
            .iter()
            .map(|p| ids.get(&p.email).copied().map(PersonId))
            .collect::<Option<_>>()
            .ok_or_else(|| StoreError::Backend("an imported person's id did not come back".to_string()))?;
        for (chunk, chunk_ids) in import.people.chunks(ROWS).zip(people.chunks(ROWS)) {
            let mut q: QueryBuilder<Sqlite> =
                QueryBuilder::new("INSERT INTO invites (person_id, secret_hash, made_by, created_at, expires_at) ");
            q.push_values(chunk.iter().zip(chunk_ids), |mut row, (p, id)| {
                row.push_bind(id.0)
                    .push_bind(&p.invite_hash)
                    .push_bind(actor.person.map(|a| a.0))
                    .push_bind(actor.at)
                    .push_bind(import.invite_expires_at);
            });
            q.build().execute(&mut *tx).await.or_backend()?;
        }
        audit(&mut tx, actor, "people.import", "people", &import.audit_detail).await?;
        tx.commit().await.or_backend()?;
        Ok(people)
    }
}
