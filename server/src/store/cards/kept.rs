//! The KeptCardStore: cards and each person's use of them.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `upsert_in` and
//! `kept_for_question`, which differ in what each database can do in one statement.

macro_rules! kept_store {
    () => {
        use super::*;
        use crate::store::OrBackend;
        use engine::cards::keep::{plan_keep, Keep, KeepFound, KeepPlan, EVICTED};
        use engine::cards::select::OPEN_WORK_TERM;
        use engine::cards::store::KeptCardStore;

        #[async_trait]
        impl KeptCardStore for ThisStore {
            async fn upsert_card(&self, c: &NewCard) -> Result<Card, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let card = upsert_in(&mut tx, c).await?;
                tx.commit().await.or_backend()?;
                Ok(card)
            }

            async fn keep_card(&self, keep: &Keep, actor: Actor) -> Result<bool, StoreError> {
                // The person's advisory lock comes first: keeps for one person run one after the other,
                // so none of them decides on a count of cards another is about to change. Then the card's
                // row lock, as `upsert_card` takes it; nothing that locks a card waits on this lock.
                let mut tx = begin_write(self.pool()).await?;
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
                let mut tx = begin_write(self.pool()).await?;
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
                kept_for_question(self, person, terms, pad_below).await
            }

            async fn card_use(&self, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
                card_use_in(&mut *self.pool().acquire().await.or_backend()?, person, card).await
            }

            async fn save_use(&self, u: &CardUse) -> Result<(), StoreError> {
                save_use_in(&mut *self.pool().acquire().await.or_backend()?, u).await
            }

            async fn remove_use(
                &self,
                person: PersonId,
                card: i64,
                reason: &str,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                remove_use_in(&mut tx, person, card, reason, actor).await?;
                tx.commit().await.or_backend()
            }

            async fn counts(&self, person: PersonId) -> Result<(u32, u32), StoreError> {
                let (kept, pinned): (i64, i64) = sqlx::query_as(
                    "SELECT COUNT(*), COUNT(*) FILTER (WHERE pinned) FROM card_uses WHERE person_id = $1",
                )
                .bind(person.0)
                .fetch_one(self.pool())
                .await
                .or_backend()?;
                Ok((kept as u32, pinned as u32))
            }
        }

        /// Inserts the card, or updates the one with the same identity, keeping what `after_read` says.
        async fn kept_in(conn: &mut Conn, person: PersonId) -> Result<Vec<(Card, CardUse)>, StoreError> {
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

        async fn card_use_in(conn: &mut Conn, person: PersonId, card: i64) -> Result<Option<CardUse>, StoreError> {
            let row = sqlx::query("SELECT * FROM card_uses WHERE person_id = $1 AND card_id = $2")
                .bind(person.0)
                .bind(card)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            row.as_ref().map(use_from).transpose()
        }

        async fn save_use_in(conn: &mut Conn, u: &CardUse) -> Result<(), StoreError> {
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
            conn: &mut Conn,
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
                audit(
                    conn,
                    actor,
                    "card_use.remove",
                    &format!("person:{}", person.0),
                    &format!("card:{card}: {reason}"),
                )
                .await?;
            }
            Ok(())
        }
    };
}
pub(crate) use kept_store;
