//! The PostgreSQL backend's KeptCardStore: cards and each person's use of them.

use super::super::{lock, locks};
use super::*;
use crate::store::OrBackend;
use engine::cards::keep::{plan_keep, Keep, KeepFound, KeepPlan, EVICTED};
use engine::cards::select::OPEN_WORK_TERM;
use engine::cards::store::KeptCardStore;

#[async_trait]
impl KeptCardStore for PgStore {
    async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        let card = upsert_in(&mut tx, c).await?;
        tx.commit().await.or_backend()?;
        Ok(card)
    }

    async fn keep_card(&self, keep: &Keep, actor: Actor) -> Result<bool, StoreError> {
        // The person's advisory lock comes first: keeps for one person run one after the other,
        // so none of them decides on a count of cards another is about to change. Then the card's
        // row lock, as `upsert_card` takes it; nothing that locks a card waits on this lock.
        let mut tx = self.pool().begin().await.or_backend()?;
        lock(&mut tx, locks::PERSON_CARDS, keep.person.0).await?;
        let card = upsert_in(&mut tx, &keep.card).await?;
        let existing = card_use_in(&mut tx, keep.person, card.id).await?;
        let found = if existing.is_some() {
            KeepFound { existing, ..Default::default() }
        } else {
            let forgotten_until = sqlx::query_scalar(
                "SELECT until FROM forgotten_records WHERE person_id = $1 AND connector_id = $2 AND kind = $3 \
                 AND record_id = $4 AND lifted_at IS NULL",
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
        let row = sqlx::query(&format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .or_backend()?;
        row.as_ref().map(card_from).transpose()
    }

    async fn remove_card(&self, id: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
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
        // As on SQLite: the named cards from the person's own terms, the ones that may pad only
        // when fewer than `pad_below` are named, then each card with its use. The question's terms
        // go as one array, so the statement is the same whatever their number.
        let rows = sqlx::query(&format!(
            "WITH n AS (SELECT DISTINCT card_id FROM use_terms WHERE person_id = $1 AND term = ANY($2)), \
             k AS (SELECT card_id, bool_or(named) AS named FROM (\
             SELECT card_id, true AS named FROM n \
             UNION ALL SELECT card_id, false FROM use_terms WHERE person_id = $1 AND term = $4 \
             AND (SELECT count(*) FROM n) < $3 \
             UNION ALL SELECT card_id, false FROM card_uses WHERE person_id = $1 AND pinned \
             AND (SELECT count(*) FROM n) < $3) e GROUP BY card_id) \
             SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use, k.named FROM k \
             JOIN card_uses u ON u.person_id = $1 AND u.card_id = k.card_id JOIN cards c ON c.id = k.card_id \
             ORDER BY c.id",
            joined_card_columns()
        ))
        .bind(person.0)
        .bind(terms)
        .bind(i64::from(pad_below))
        .bind(OPEN_WORK_TERM)
        .fetch_all(self.pool())
        .await
        .or_backend()?;
        rows.iter()
            .map(|r| Ok(KeptForQuestion { card: card_from(r)?, usage: use_from(r)?, named: r.get("named") }))
            .collect()
    }

    async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
        card_use_in(&mut *self.pool().acquire().await.or_backend()?, person, card).await
    }

    async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
        save_use_in(&mut *self.pool().acquire().await.or_backend()?, u).await
    }

    async fn remove_use(&self, person: PersonId, card: i64, reason: &str, actor: Actor) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        remove_use_in(&mut tx, person, card, reason, actor).await?;
        tx.commit().await.or_backend()
    }

    async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
        let (kept, pinned): (i64, i64) =
            sqlx::query_as("SELECT COUNT(*), COUNT(*) FILTER (WHERE pinned) FROM card_uses WHERE person_id = $1")
                .bind(person.0)
                .fetch_one(self.pool())
                .await
                .or_backend()?;
        Ok((kept as u32, pinned as u32))
    }
}

/// Inserts the card, or updates the one with the same identity, keeping what `after_read` says.
async fn upsert_in(conn: &mut PgConnection, c: &NewCard) -> Result<Card, StoreError> {
    // The stored fields are read under a row lock, so two reads of one record meet them one
    // after the other (`after_read` keeps what a read left out). When no card exists yet, the
    // insert's conflict target is the expression index `cards_identity`: of two first reads
    // racing, the second inserts nothing and goes round once more, finding the first's card.
    for _ in 0..2 {
        let existing: Option<(i64, String)> = sqlx::query_as(
            "SELECT id, fields FROM cards WHERE connector_id = $1 AND kind = $2 AND record_id = $3 \
             AND read_with = $4 AND COALESCE(read_as, 0) = $5 FOR UPDATE",
        )
        .bind(c.connector)
        .bind(&c.kind)
        .bind(&c.record_id)
        .bind(c.read_with.as_str())
        .bind(c.read_as.map(|p| p.0).unwrap_or(0))
        .fetch_optional(&mut *conn)
        .await
        .or_backend()?;
        let row = match existing {
            Some((id, stored)) => {
                let stored: Vec<CardField> = serde_json::from_str(&stored).map_err(|_| bad("card fields"))?;
                let after = after_read(&stored, c);
                // `read_as` is part of the identity, so it never changes.
                sqlx::query(&format!(
                    "UPDATE cards SET tool = $1, version = $2, fields = $3, not_returned = $4, \
                     label_when_read = $5, open_work = $6, read_at = $7 WHERE id = $8 RETURNING {CARD_COLUMNS}"
                ))
                .bind(&c.tool)
                .bind(&c.version)
                .bind(to_json(&after.fields))
                .bind(to_json(&after.not_returned))
                .bind(c.label_when_read.as_str())
                .bind(after.open_work)
                .bind(c.read_at)
                .bind(id)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            }
            None => {
                let after = after_read(&[], c);
                sqlx::query(&format!(
                    "INSERT INTO cards (connector_id, tool, kind, record_id, version, fields, not_returned, \
                     read_with, read_as, label_when_read, open_work, read_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                     ON CONFLICT (connector_id, kind, record_id, read_with, (COALESCE(read_as, 0))) DO NOTHING \
                     RETURNING {CARD_COLUMNS}"
                ))
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
                .bind(after.open_work)
                .bind(c.read_at)
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?
            }
        };
        if let Some(row) = row {
            let card = card_from(&row)?;
            super::terms::write_terms(conn, card.id, &card.record_id, &card.fields, card.open_work).await?;
            return Ok(card);
        }
    }
    Err(StoreError::Backend(format!("card {} {} kept by neither insert nor update", c.kind, c.record_id)))
}

async fn kept_in(conn: &mut PgConnection, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {}, u.person_id, u.card_id, u.summary, u.pinned, u.last_use FROM card_uses u \
         JOIN cards c ON c.id = u.card_id WHERE u.person_id = $1 ORDER BY c.id",
        joined_card_columns()
    ))
    .bind(person.0)
    .fetch_all(conn)
    .await
    .or_backend()?;
    rows.iter().map(|r| Ok((card_from(r)?, use_from(r)?))).collect()
}

async fn card_use_in(conn: &mut PgConnection, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
    let row = sqlx::query("SELECT * FROM card_uses WHERE person_id = $1 AND card_id = $2")
        .bind(person.0)
        .bind(card)
        .fetch_optional(conn)
        .await
        .or_backend()?;
    row.as_ref().map(use_from).transpose()
}

async fn save_use_in(conn: &mut PgConnection, u: &CardUse) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO card_uses (person_id, card_id, summary, pinned, last_use) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (person_id, card_id) DO UPDATE SET summary = excluded.summary, pinned = excluded.pinned, \
         last_use = excluded.last_use",
    )
    .bind(u.person.0)
    .bind(u.card)
    .bind(to_json(&u.summary))
    .bind(u.pinned)
    .bind(u.last_use)
    .execute(conn)
    .await
    .or_backend()?;
    Ok(())
}

/// Removes one person's use of a card, audited when there was one to remove.
async fn remove_use_in(
    conn: &mut PgConnection,
    person: PersonId,
    card: i64,
    reason: &str,
    actor: Actor,
) -> Result<(), StoreError> {
    // The delete locks the row, so of two concurrent removals only one sees it and audits it.
    let gone = sqlx::query("DELETE FROM card_uses WHERE person_id = $1 AND card_id = $2")
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
