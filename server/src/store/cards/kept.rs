//! The SQLite backend's KeptCardStore: cards and each person's use of them.

use super::*;
use engine::cards::store::KeptCardStore;

#[async_trait]
impl KeptCardStore for SqliteStore {
    async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.map_err(backend)?;
        let existing: Option<(i64, String)> = sqlx::query_as(
            "SELECT id, fields FROM cards WHERE connector_id = ? AND kind = ? AND record_id = ? AND read_with = ? \
             AND COALESCE(read_as, 0) = ?",
        )
        .bind(c.connector)
        .bind(&c.kind)
        .bind(&c.record_id)
        .bind(c.read_with.as_str())
        .bind(c.read_as.map(|p| p.0).unwrap_or(0))
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        let id = match existing {
            Some((id, stored)) => {
                let stored: Vec<CardField> = serde_json::from_str(&stored).map_err(|_| bad("card fields"))?;
                let after = after_read(&stored, c);
                sqlx::query(
                    "UPDATE cards SET tool = ?, version = ?, fields = ?, not_returned = ?, label_when_read = ?, \
                     open_work = ?, read_at = ? WHERE id = ?",
                )
                .bind(&c.tool)
                .bind(&c.version)
                .bind(to_json(&after.fields))
                .bind(to_json(&after.not_returned))
                .bind(c.label_when_read.as_str())
                .bind(i64::from(after.open_work))
                .bind(c.read_at)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
                id
            }
            None => {
                let after = after_read(&[], c);
                sqlx::query_scalar(
                    "INSERT INTO cards (connector_id, tool, kind, record_id, version, fields, not_returned, read_with, \
                     read_as, label_when_read, open_work, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
                     RETURNING id",
                )
                .bind(c.connector)
                .bind(&c.tool)
                .bind(&c.kind)
                .bind(&c.record_id)
                .bind(&c.version)
                .bind(to_json(&after.fields))
                .bind(to_json(&after.not_returned))
                .bind(c.read_with.as_str())
                .bind(c.read_as.map(|p| p.0))
                .bind(c.label_when_read.as_str())
                .bind(i64::from(after.open_work))
                .bind(c.read_at)
                .fetch_one(&mut *tx)
                .await
                .map_err(backend)?
            }
        };
        tx.commit().await.map_err(backend)?;
        self.card(id).await?.ok_or_else(|| StoreError::NotFound(format!("card {id}")))
    }

    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError> {
        let row = sqlx::query(&format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        row.as_ref().map(card_from).transpose()
    }

    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.map_err(backend)?;
        delete_card(&mut tx, id).await?;
        audit(&mut tx, actor, "card.remove", &format!("card:{id}"), reason).await?;
        tx.commit().await.map_err(backend)
    }

    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
        let cols = CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {cols}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
             JOIN cards c ON c.id = u.card_id WHERE u.person_id = ? ORDER BY c.id"
        ))
        .bind(person.0)
        .fetch_all(self.pool())
        .await
        .map_err(backend)?;
        rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
    }

    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        let row = sqlx::query("SELECT * FROM card_uses WHERE person_id = ? AND card_id = ?")
            .bind(person.0)
            .bind(card)
            .fetch_optional(self.pool())
            .await
            .map_err(backend)?;
        row.as_ref().map(use_from).transpose()
    }

    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO card_uses (person_id, card_id, summary, pinned, last_use) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (person_id, card_id) DO UPDATE SET summary = excluded.summary, pinned = excluded.pinned, \
             last_use = excluded.last_use",
        )
        .bind(u.person.0)
        .bind(u.card)
        .bind(to_json(&u.summary))
        .bind(i64::from(u.pinned))
        .bind(u.last_use)
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.map_err(backend)?;
        let gone = sqlx::query("DELETE FROM card_uses WHERE person_id = ? AND card_id = ?")
            .bind(person.0)
            .bind(card)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        if gone.rows_affected() > 0 {
            audit(
                &mut tx,
                actor,
                "card_use.remove",
                &format!("person:{}", person.0),
                &format!("card:{card}: {reason}"),
            )
            .await?;
        }
        tx.commit().await.map_err(backend)
    }

    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        let (kept, pinned): (i64, Option<i64>) =
            sqlx::query_as("SELECT COUNT(*), SUM(pinned) FROM card_uses WHERE person_id = ?")
                .bind(person.0)
                .fetch_one(self.pool())
                .await
                .map_err(backend)?;
        Ok((kept as u32, pinned.unwrap_or(0) as u32))
    }
}
