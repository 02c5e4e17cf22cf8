//! The SQLite backend's KeptCardStore: cards and each person's use of them.

use super::*;
use crate::store::OrBackend;
use engine::cards::keep::{plan_keep, Keep, KeepFound, KeepPlan, EVICTED};
use engine::cards::select::OPEN_WORK_TERM;
use engine::cards::store::KeptCardStore;

#[async_trait]
impl KeptCardStore for SqliteStore {
    async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        let card = upsert_in(&mut tx, c).await?;
        tx.commit().await.or_backend()?;
        Ok(card)
    }

    async fn keep_card(&self, keep: &Keep, actor: Actor) -> Result<bool, StoreError> {
        // One IMMEDIATE transaction: no other writer runs between reading the person's cards and
        // saving the use, so racing reads neither make two uses nor go over the cap.
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        let card = upsert_in(&mut tx, &keep.card).await?;
        let existing = card_use_in(&mut tx, keep.person, card.id).await?;
        let found = if existing.is_some() {
            KeepFound { existing, ..Default::default() }
        } else {
            let forgotten_until = sqlx::query_scalar(
                "SELECT until FROM forgotten_records WHERE person_id = ? AND connector_id = ? AND kind = ? \
                 AND record_id = ? AND lifted_at IS NULL",
            )
            .bind(keep.person.0)
            .bind(card.connector)
            .bind(&card.kind)
            .bind(&card.record_id)
            .fetch_optional(&mut *tx)
            .await
            .or_backend()?;
            KeepFound { existing, forgotten_until, kept: kept_in(&mut tx, keep.person).await? }
        };
        let kept = match plan_keep(keep, &card, found) {
            KeepPlan::Save { card_use, evict } => {
                if let Some(evicted) = evict {
                    remove_use_in(&mut tx, keep.person, evicted, EVICTED, actor).await?;
                }
                save_use_in(&mut tx, &card_use).await?;
                true
            }
            KeepPlan::KeptOut | KeepPlan::Outranked => false,
        };
        tx.commit().await.or_backend()?;
        Ok(kept)
    }

    async fn card(&self, id: i64) -> Result<Option<Card>, StoreError> {
        card_in(&mut *self.pool().acquire().await.or_backend()?, id).await
    }

    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        delete_card(&mut tx, id).await?;
        audit(&mut tx, actor, "card.remove", &format!("card:{id}"), reason).await?;
        tx.commit().await.or_backend()
    }

    async fn kept(&self, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
        kept_in(&mut *self.pool().acquire().await.or_backend()?, person).await
    }

    async fn kept_for_question(
        &self,
        person: PersonId,
        terms: &[String],
        pad_below: u32,
    ) -> Result<Vec<KeptForQuestion>, StoreError> {
        // The named cards first, once, from the person's own terms (`use_terms`): a probe per
        // term of the question. The cards that may pad only when few are named: the pinned ones by
        // their index, the open-work ones by their term. Then each of those cards with its use, so
        // a run reads a few dozen rows, not all 300.
        let named = if terms.is_empty() {
            "SELECT NULL AS card_id WHERE 0".to_string()
        } else {
            format!(
                "SELECT DISTINCT card_id FROM use_terms WHERE person_id = ? AND term IN ({})",
                vec!["?"; terms.len()].join(", ")
            )
        };
        let cols = CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "WITH n AS ({named}), k AS (SELECT card_id, max(named) AS named FROM (\
             SELECT card_id, 1 AS named FROM n \
             UNION ALL SELECT card_id, 0 FROM use_terms WHERE person_id = ? AND term = ? \
             AND (SELECT count(*) FROM n) < ? \
             UNION ALL SELECT card_id, 0 FROM card_uses WHERE person_id = ? AND pinned \
             AND (SELECT count(*) FROM n) < ?) GROUP BY card_id) \
             SELECT {cols}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use, k.named FROM k \
             JOIN card_uses u ON u.person_id = ? AND u.card_id = k.card_id JOIN cards c ON c.id = k.card_id"
        );
        let mut q = sqlx::query(&sql);
        if !terms.is_empty() {
            q = q.bind(person.0);
            for t in terms {
                q = q.bind(t);
            }
        }
        let rows = q
            .bind(person.0)
            .bind(OPEN_WORK_TERM)
            .bind(i64::from(pad_below))
            .bind(person.0)
            .bind(i64::from(pad_below))
            .bind(person.0)
            .fetch_all(self.pool())
            .await
            .or_backend()?;
        let mut kept = rows
            .iter()
            .map(|r| {
                Ok(KeptForQuestion { card: card_from(r)?, usage: use_from(r)?, named: r.get::<i64, _>("named") != 0 })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        // Ordered here rather than by SQLite's sorter, which copies each wide row once more.
        kept.sort_by_key(|k| k.card.id);
        Ok(kept)
    }

    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        card_use_in(&mut *self.pool().acquire().await.or_backend()?, person, card).await
    }

    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
        save_use_in(&mut *self.pool().acquire().await.or_backend()?, u).await
    }

    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await.or_backend()?;
        remove_use_in(&mut tx, person, card, reason, actor).await?;
        tx.commit().await.or_backend()
    }

    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        let (kept, pinned): (i64, Option<i64>) =
            sqlx::query_as("SELECT COUNT(*), SUM(pinned) FROM card_uses WHERE person_id = ?")
                .bind(person.0)
                .fetch_one(self.pool())
                .await
                .or_backend()?;
        Ok((kept as u32, pinned.unwrap_or(0) as u32))
    }
}

/// Inserts the card, or updates the one with the same identity, keeping what `after_read` says.
async fn upsert_in(conn: &mut SqliteConnection, c: &NewCard) -> Result<Card, StoreError> {
    let existing: Option<(i64, String)> = sqlx::query_as(
        "SELECT id, fields FROM cards WHERE connector_id = ? AND kind = ? AND record_id = ? AND read_with = ? \
         AND COALESCE(read_as, 0) = ?",
    )
    .bind(c.connector)
    .bind(&c.kind)
    .bind(&c.record_id)
    .bind(c.read_with.as_str())
    .bind(c.read_as.map(|p| p.0).unwrap_or(0))
    .fetch_optional(&mut *conn)
    .await
    .or_backend()?;
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
            .execute(&mut *conn)
            .await
            .or_backend()?;
            if after.fields != stored {
                super::terms::write_terms(conn, id, &c.record_id, &after.fields, after.open_work).await?;
            }
            id
        }
        None => {
            let after = after_read(&[], c);
            let id: i64 = sqlx::query_scalar(
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
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            super::terms::write_terms(conn, id, &c.record_id, &after.fields, after.open_work).await?;
            id
        }
    };
    card_in(conn, id).await?.ok_or_else(|| StoreError::NotFound(format!("card {id}")))
}

async fn card_in(conn: &mut SqliteConnection, id: i64) -> Result<Option<Card>, StoreError> {
    let row = sqlx::query(&format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = ?"))
        .bind(id)
        .fetch_optional(conn)
        .await
        .or_backend()?;
    row.as_ref().map(card_from).transpose()
}

async fn kept_in(conn: &mut SqliteConnection, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
    let cols = CARD_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
    let rows = sqlx::query(&format!(
        "SELECT {cols}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
         JOIN cards c ON c.id = u.card_id WHERE u.person_id = ? ORDER BY c.id"
    ))
    .bind(person.0)
    .fetch_all(conn)
    .await
    .or_backend()?;
    rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
}

async fn card_use_in(conn: &mut SqliteConnection, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
    let row = sqlx::query("SELECT * FROM card_uses WHERE person_id = ? AND card_id = ?")
        .bind(person.0)
        .bind(card)
        .fetch_optional(conn)
        .await
        .or_backend()?;
    row.as_ref().map(use_from).transpose()
}

async fn save_use_in(conn: &mut SqliteConnection, u: &CardUse) -> Result<(), StoreError> {
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
    .execute(conn)
    .await
    .or_backend()?;
    Ok(())
}

/// Removes one person's use of a card, audited when there was one to remove.
async fn remove_use_in(
    conn: &mut SqliteConnection,
    person: PersonId,
    card: i64,
    reason: &str,
    actor: Actor,
) -> Result<(), StoreError> {
    let gone = sqlx::query("DELETE FROM card_uses WHERE person_id = ? AND card_id = ?")
        .bind(person.0)
        .bind(card)
        .execute(&mut *conn)
        .await
        .or_backend()?;
    if gone.rows_affected() > 0 {
        audit(conn, actor, "card_use.remove", &format!("person:{}", person.0), &format!("card:{card}: {reason}"))
            .await?;
    }
    Ok(())
}
