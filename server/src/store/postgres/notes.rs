//! A person's private notes on PostgreSQL.

use super::{backend, PgStore};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::org::PersonId;
use engine::runs::notes::{Note, NoteStore};
use engine::store::StoreError;
use sqlx::postgres::PgRow;
use sqlx::Row;

fn note_from(row: &PgRow) -> Note {
    Note {
        id: row.get("id"),
        person: PersonId(row.get("person_id")),
        text: row.get("text"),
        created_at: row.get("created_at"),
    }
}

#[async_trait]
impl NoteStore for PgStore {
    async fn add_note(&self, person: PersonId, text: &str, at: DateTime<Utc>) -> Result<Note, StoreError> {
        let row = sqlx::query(
            "INSERT INTO private_notes (person_id, text, created_at) VALUES ($1, $2, $3) \
             RETURNING id, person_id, text, created_at",
        )
        .bind(person.0)
        .bind(text)
        .bind(at)
        .fetch_one(self.pool())
        .await
        .map_err(backend)?;
        Ok(note_from(&row))
    }

    async fn notes_of(&self, person: PersonId) -> Result<Vec<Note>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, person_id, text, created_at FROM private_notes WHERE person_id = $1 ORDER BY id DESC",
        )
        .bind(person.0)
        .fetch_all(self.pool())
        .await
        .map_err(backend)?;
        Ok(rows.iter().map(note_from).collect())
    }
}
