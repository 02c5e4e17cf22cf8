//! Lessons: what a person, a team or the company has learnt, with their states and evidence.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! lessons_store {
    () => {
        use super::{audit, begin_write, in_list, list, Conn, DbRow, ThisStore, FOR_UPDATE};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::cards::access::DataLabel;
        use engine::lessons::states::NOBODY_CONFIRMED;
        use engine::lessons::{Claim, Lesson, LessonScope, LessonState, LessonStore, NewLesson, WrittenBy};
        use engine::org::{PersonId, TeamId};
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        pub(crate) const COLUMNS: &str =
            "id, person_id, scope, team_id, agent_id, text, evidence, label, checked_at, source_version, \
             valid_from, valid_to, claim_record, claim_field, claim_value, state, state_at, state_reason, confirmed, \
             supersedes, written_by, created_at, partner, match_terms";

        fn bad(what: &str) -> StoreError {
            StoreError::Backend(format!("a stored lesson has a bad {what}"))
        }

        pub(crate) fn lesson_from(row: &DbRow) -> Result<Lesson, StoreError> {
            let scope: String = row.get("scope");
            let claim =
                match (row.get::<Option<String>, _>("claim_record"), row.get::<Option<String>, _>("claim_field")) {
                    (Some(record), Some(field)) => Some(Claim { record, field, value: row.get("claim_value") }),
                    _ => None,
                };
            Ok(Lesson {
                id: row.get("id"),
                person: PersonId(row.get("person_id")),
                scope: LessonScope::from_stored(&scope, row.get("team_id"), row.get("agent_id"), row.get("partner"))
                    .ok_or_else(|| bad("scope"))?,
                text: row.get("text"),
                evidence: serde_json::from_str(row.get("evidence")).map_err(|_| bad("evidence"))?,
                label: DataLabel::parse(row.get("label")).ok_or_else(|| bad("label"))?,
                checked_at: row.get("checked_at"),
                source_version: row.get("source_version"),
                valid_from: row.get("valid_from"),
                valid_to: row.get("valid_to"),
                claim,
                state: LessonState::parse(row.get("state")).ok_or_else(|| bad("state"))?,
                state_at: row.get("state_at"),
                state_reason: row.get("state_reason"),
                confirmed: row.get("confirmed"),
                supersedes: row.get("supersedes"),
                written_by: WrittenBy::parse(row.get("written_by")).ok_or_else(|| bad("writer"))?,
                created_at: row.get("created_at"),
                terms: row
                    .get::<Option<String>, _>("match_terms")
                    .and_then(|t| engine::lessons::select::LessonTerms::from_stored(&t)),
            })
        }

        async fn insert(conn: &mut Conn, l: &NewLesson, supersedes: Option<i64>) -> Result<Lesson, StoreError> {
            let row = sqlx::query(&format!(
                "INSERT INTO lessons (person_id, scope, team_id, agent_id, text, evidence, label, checked_at, \
                 source_version, valid_from, claim_record, claim_field, claim_value, state, state_at, confirmed, supersedes, \
                 written_by, created_at, partner, match_terms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) \
                 RETURNING {COLUMNS}"
            ))
            .bind(l.person.0)
            .bind(l.scope.stored_kind())
            .bind(l.scope.team().map(|t| t.0))
            .bind(l.scope.agent().map(|a| a.0))
            .bind(&l.text)
            .bind(serde_json::to_string(&l.evidence).map_err(|_| bad("evidence"))?)
            .bind(l.label.as_str())
            .bind(l.checked_at)
            .bind(&l.source_version)
            .bind(l.at)
            .bind(l.claim.as_ref().map(|c| c.record.as_str()))
            .bind(l.claim.as_ref().map(|c| c.field.as_str()))
            .bind(l.claim.as_ref().map(|c| c.value.as_str()))
            .bind(l.state.as_str())
            .bind(l.at)
            .bind(l.confirmed)
            .bind(supersedes)
            .bind(l.written_by.as_str())
            .bind(l.at)
            .bind(l.scope == LessonScope::Partner)
            .bind(engine::lessons::select::LessonTerms::of(&l.text).to_stored())
            .fetch_one(&mut *conn)
            .await
            .or_backend()?;
            lesson_from(&row)
        }

        #[async_trait]
        impl LessonStore for ThisStore {
            async fn add_lesson(&self, lesson: &NewLesson, actor: Actor) -> Result<Lesson, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let l = insert(&mut tx, lesson, None).await?;
                audit(&mut tx, actor, "lesson.keep", &l.ref_id(), l.scope.kind()).await?;
                tx.commit().await.or_backend()?;
                Ok(l)
            }

            async fn lesson(&self, id: i64) -> Result<Option<Lesson>, StoreError> {
                let row = sqlx::query(&format!("SELECT {COLUMNS} FROM lessons WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                row.as_ref().map(lesson_from).transpose()
            }

            async fn lessons_of(&self, person: PersonId) -> Result<Vec<Lesson>, StoreError> {
                let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM lessons WHERE person_id = $1 ORDER BY id DESC"))
                    .bind(person.0)
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?;
                rows.iter().map(lesson_from).collect()
            }

            async fn lessons_for_run(&self, person: PersonId, teams: &[TeamId]) -> Result<Vec<Lesson>, StoreError> {
                let teams: Vec<i64> = teams.iter().map(|t| t.0).collect();
                let rows = sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM lessons WHERE state = 'accepted' AND ((scope IN ('personal', 'agent') AND \
                     person_id = $1) \
                     OR scope = 'company' OR (scope = 'team' AND {})) ORDER BY id DESC",
                    in_list("team_id", 2)
                ))
                .bind(person.0)
                .bind(list(&teams))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(lesson_from).collect()
            }

            async fn supersede_lesson(
                &self,
                old: &Lesson,
                new: &NewLesson,
                reason: &str,
                actor: Actor,
            ) -> Result<Lesson, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let closed = sqlx::query(
                    "UPDATE lessons SET state = 'superseded', state_at = $1, state_reason = $2, valid_to = $3 \
                     WHERE id = $4 AND state = $5",
                )
                .bind(new.at)
                .bind(reason)
                .bind(new.at)
                .bind(old.id)
                .bind(old.state.as_str())
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if closed.rows_affected() == 0 {
                    return Err(StoreError::Changed { current: 0 });
                }
                let l = insert(&mut tx, new, Some(old.id)).await?;
                audit(&mut tx, actor, "lesson.supersede", &old.ref_id(), &format!("{reason}: {}", l.ref_id())).await?;
                tx.commit().await.or_backend()?;
                Ok(l)
            }

            async fn waiting_lessons(&self) -> Result<Vec<Lesson>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM lessons WHERE state = 'waiting' AND scope IN ('team', 'company') ORDER BY id"
                ))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(lesson_from).collect()
            }

            async fn decide_lesson(&self, id: i64, accept: bool, actor: Actor) -> Result<Lesson, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let (state, reason) = if accept { ("accepted", "accepted") } else { ("declined", "declined") };
                let row = sqlx::query(&format!(
                    "UPDATE lessons SET state = $1, state_at = $2, state_reason = $3, confirmed = ($4 OR confirmed), \
                     valid_to = CASE WHEN $4 THEN valid_to ELSE $2 END WHERE id = $5 AND state = 'waiting' RETURNING {COLUMNS}"
                ))
                .bind(state)
                .bind(actor.at)
                .bind(reason)
                .bind(accept)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(row) = row else { return Err(StoreError::Changed { current: 0 }) };
                let l = lesson_from(&row)?;
                audit(&mut tx, actor, &format!("lesson.{state}"), &l.ref_id(), l.scope.kind()).await?;
                tx.commit().await.or_backend()?;
                Ok(l)
            }

            async fn forget_lesson(&self, id: i64, actor: Actor) -> Result<u32, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The lesson, then each version it replaced, newest first.
                let mut chain = Vec::new();
                let mut next = Some(id);
                while let Some(at) = next.filter(|i| !chain.contains(i)) {
                    let row: Option<Option<i64>> =
                        sqlx::query_scalar(&format!("SELECT supersedes FROM lessons WHERE id = $1{FOR_UPDATE}"))
                            .bind(at)
                            .fetch_optional(&mut *tx)
                            .await
                            .or_backend()?;
                    let Some(replaced) = row else { break };
                    chain.push(at);
                    next = replaced;
                }
                for gone in &chain {
                    // A later version that replaced a forgotten one stays, without the link to it.
                    sqlx::query("UPDATE lessons SET supersedes = NULL WHERE supersedes = $1")
                        .bind(gone)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                    sqlx::query("DELETE FROM lessons WHERE id = $1").bind(gone).execute(&mut *tx).await.or_backend()?;
                }
                if !chain.is_empty() {
                    audit(
                        &mut tx,
                        actor,
                        "lesson.forget",
                        &format!("lesson:{id}"),
                        &format!("{} versions", chain.len()),
                    )
                    .await?;
                }
                tx.commit().await.or_backend()?;
                Ok(chain.len() as u32)
            }

            async fn lessons_claiming(&self, record_id: &str) -> Result<Vec<Lesson>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM lessons WHERE state IN ('accepted', 'waiting') \
                     AND (lower(claim_record) = lower($1) OR lower(claim_record) LIKE '% ' || lower($1)) ORDER BY id"
                ))
                .bind(record_id)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(lesson_from).collect()
            }

            async fn mark_lesson(
                &self,
                id: i64,
                from: LessonState,
                to: LessonState,
                reason: &str,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let done = sqlx::query(
                    "UPDATE lessons SET state = $1, state_at = $2, state_reason = $3 WHERE id = $4 AND state = $5",
                )
                .bind(to.as_str())
                .bind(actor.at)
                .bind(reason)
                .bind(id)
                .bind(from.as_str())
                .execute(&mut *tx)
                .await
                .or_backend()?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::Changed { current: 0 });
                }
                audit(&mut tx, actor, &format!("lesson.{}", to.as_str()), &format!("lesson:{id}"), reason).await?;
                tx.commit().await.or_backend()
            }

            async fn expire_lessons(
                &self,
                person: PersonId,
                cutoff: DateTime<Utc>,
                now: DateTime<Utc>,
            ) -> Result<u32, StoreError> {
                let done = sqlx::query(
                    "UPDATE lessons SET state = 'expired', state_at = $1, state_reason = $2, valid_to = $1 \
                     WHERE person_id = $3 AND state IN ('accepted', 'waiting') AND NOT confirmed AND valid_from <= $4",
                )
                .bind(now)
                .bind(NOBODY_CONFIRMED)
                .bind(person.0)
                .bind(cutoff)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(done.rows_affected() as u32)
            }
        }
    };
}
pub(crate) use lessons_store;
