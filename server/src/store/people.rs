//! People an admin adds, their invite links, passwords and the admin flag. A change that could leave
//! no admin takes the admins' lock before counting, so two admins demoting each other at once cannot
//! both pass (on SQLite the IMMEDIATE transaction already excludes them); a link is used under its
//! row's lock, so it is used once.
//!
//! Written once for both backends (see "Written once" in `store`); each gives `LOCK_INVITE`.

macro_rules! people_store {
    () => {
        use super::org::{keep_an_admin, person_from, PERSON_COLUMNS};
        use super::{audit, begin_write, Conn, ThisStore, FOR_UPDATE};
        use crate::store::{OrBackend, OrDuplicate};
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::people::{Invite, NewInvite, PeopleStore, ResetNotice, SessionPerson, PASSWORD_RESET_EVENT};
        use engine::org::{Person, PersonId, RoleId};
        use engine::runs::NewEvent;
        use engine::store::{Actor, NewPerson, StoreError};
        use sqlx::Row;

        async fn insert_invite(
            conn: &mut Conn,
            person: PersonId,
            invite: &NewInvite,
            actor: Actor,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO invites (person_id, secret_hash, made_by, created_at, expires_at) VALUES ($1, $2, $3, \
                 $4, $5)",
            )
            .bind(person.0)
            .bind(&invite.secret_hash)
            .bind(actor.person.map(|p| p.0))
            .bind(actor.at)
            .bind(invite.expires_at)
            .execute(&mut *conn)
            .await
            .or_backend()?;
            let expires = invite.expires_at.format("%Y-%m-%d %H:%M UTC").to_string();
            audit(conn, actor, "person.invite", &format!("person:{}", person.0), &format!("expires {expires}")).await
        }

        #[async_trait]
        impl PeopleStore for ThisStore {
            async fn add_person(
                &self,
                p: &NewPerson,
                role: Option<RoleId>,
                invite: &NewInvite,
                actor: Actor,
            ) -> Result<Person, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let email = p.email.trim().to_lowercase();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO people (name, email, password_hash, is_admin, main_team_id, role_override_id, \
                     created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                )
                .bind(&p.name)
                .bind(&email)
                .bind(&p.password_hash)
                .bind(p.is_admin)
                .bind(p.main_team.map(|t| t.0))
                .bind(role.map(|r| r.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_duplicate(|| email.clone())?;
                audit(&mut tx, actor, "person.create", &format!("person:{id}"), &p.name).await?;
                insert_invite(&mut tx, PersonId(id), invite, actor).await?;
                tx.commit().await.or_backend()?;
                Ok(Person {
                    id: PersonId(id),
                    name: p.name.clone(),
                    email,
                    is_admin: p.is_admin,
                    main_team: p.main_team,
                    role_override: role,
                    manager: None,
                    left_at: None,
                })
            }

            async fn reset_password(
                &self,
                person: PersonId,
                unusable_hash: &str,
                invite: &NewInvite,
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The update locks the person's row: a link being used for them waits, then sees the reset.
                let email: Option<String> = sqlx::query_scalar(
                    "UPDATE people SET password_hash = $1, session_generation = session_generation + 1 \
                     WHERE id = $2 AND left_at IS NULL RETURNING email",
                )
                .bind(unusable_hash)
                .bind(person.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(email) = email else {
                    return Err(StoreError::NotFound(format!("person {} who has not left", person.0)));
                };
                let replaced = sqlx::query(
                    "UPDATE invites SET replaced_at = $1 WHERE person_id = $2 AND used_at IS NULL AND replaced_at IS \
                     NULL",
                )
                .bind(actor.at)
                .bind(person.0)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let detail = format!("sessions ended, {} older link(s) replaced", replaced.rows_affected());
                audit(&mut tx, actor, "person.password_reset", &format!("person:{}", person.0), &detail).await?;
                insert_invite(&mut tx, person, invite, actor).await?;
                if let Some(by) = actor.person {
                    sqlx::query(
                        "INSERT INTO password_reset_notices (person_id, reset_by, reset_at) VALUES ($1, $2, $3)",
                    )
                    .bind(person.0)
                    .bind(by.0)
                    .bind(actor.at)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                }
                let event = NewEvent { name: PASSWORD_RESET_EVENT.into(), state: Some(email), ..NewEvent::default() };
                super::runs::insert_event(&mut tx, &event, actor.at).await?;
                tx.commit().await.or_backend()?;
                Ok(())
            }

            async fn invite(&self, secret_hash: &str) -> Result<Option<Invite>, StoreError> {
                let row = sqlx::query(
                    "SELECT i.person_id, p.name, p.email, p.left_at, i.created_at, i.expires_at, i.used_at, \
                     i.replaced_at \
                     FROM invites i JOIN people p ON p.id = i.person_id WHERE i.secret_hash = $1",
                )
                .bind(secret_hash)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|r| Invite {
                    person: PersonId(r.get("person_id")),
                    name: r.get("name"),
                    email: r.get("email"),
                    created_at: r.get("created_at"),
                    expires_at: r.get("expires_at"),
                    used_at: r.get("used_at"),
                    replaced_at: r.get("replaced_at"),
                    person_left: r.get::<Option<DateTime<Utc>>, _>("left_at").is_some(),
                }))
            }

            async fn use_invite(
                &self,
                secret_hash: &str,
                password_hash: &str,
                at: DateTime<Utc>,
            ) -> Result<Option<Person>, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // Both rows locked in the order a reset takes them (person first), so neither waits on the
                // other in a circle; the link is then checked as it stands after any racing use or reset.
                let row = sqlx::query(&format!(
                    "SELECT i.id, i.person_id, i.expires_at, i.used_at, i.replaced_at, p.left_at \
                     FROM invites i JOIN people p ON p.id = i.person_id WHERE i.secret_hash = $1{LOCK_INVITE}"
                ))
                .bind(secret_hash)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(row) = row else { return Ok(None) };
                // Decided here, under the lock, not by comparing times in SQL (SQLite keeps them as text).
                let open = row.get::<Option<DateTime<Utc>>, _>("used_at").is_none()
                    && row.get::<Option<DateTime<Utc>>, _>("replaced_at").is_none()
                    && row.get::<Option<DateTime<Utc>>, _>("left_at").is_none()
                    && at < row.get::<DateTime<Utc>, _>("expires_at");
                if !open {
                    return Ok(None);
                }
                let person: i64 = row.get("person_id");
                sqlx::query("UPDATE invites SET used_at = $1 WHERE id = $2")
                    .bind(at)
                    .bind(row.get::<i64, _>("id"))
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let row = sqlx::query(&format!(
                    "UPDATE people SET password_hash = $1 WHERE id = $2 RETURNING {PERSON_COLUMNS}"
                ))
                .bind(password_hash)
                .bind(person)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let actor = Actor { person: Some(PersonId(person)), at };
                audit(&mut tx, actor, "person.invite_used", &format!("person:{person}"), "password set").await?;
                tx.commit().await.or_backend()?;
                Ok(Some(person_from(&row)))
            }

            async fn change_password(
                &self,
                person: PersonId,
                password_hash: &str,
                actor: Actor,
            ) -> Result<i64, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let generation: Option<i64> = sqlx::query_scalar(
                    "UPDATE people SET password_hash = $1, session_generation = session_generation + 1 \
                     WHERE id = $2 AND left_at IS NULL RETURNING session_generation",
                )
                .bind(password_hash)
                .bind(person.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(generation) = generation else {
                    return Err(StoreError::NotFound(format!("person {} who has not left", person.0)));
                };
                audit(&mut tx, actor, "person.password", &format!("person:{}", person.0), "other sessions ended")
                    .await?;
                tx.commit().await.or_backend()?;
                Ok(generation)
            }

            async fn set_admin(&self, person: PersonId, admin: bool, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                if !admin {
                    keep_an_admin(&mut tx, person).await?;
                }
                let was: Option<bool> = sqlx::query_scalar(&format!(
                    "SELECT is_admin FROM people WHERE id = $1 AND left_at IS NULL{FOR_UPDATE}"
                ))
                .bind(person.0)
                .fetch_optional(&mut *tx)
                .await
                .or_backend()?;
                let Some(was) = was else {
                    return Err(StoreError::NotFound(format!("person {} who has not left", person.0)));
                };
                sqlx::query("UPDATE people SET is_admin = $1 WHERE id = $2")
                    .bind(admin)
                    .bind(person.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let yes_no = |b: bool| if b { "yes" } else { "no" };
                let detail = format!("{} -> {}", yes_no(was), yes_no(admin));
                audit(&mut tx, actor, "person.admin", &format!("person:{}", person.0), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(())
            }

            async fn person_with_generation(&self, person: PersonId) -> Result<Option<SessionPerson>, StoreError> {
                // Every signed-in page reads this once; whether a reset notice waits comes in the
                // same statement (the notices' partial index answers it), so no page reads the
                // notices unless one does.
                let row = sqlx::query(&format!(
                    "SELECT {PERSON_COLUMNS}, session_generation, EXISTS (SELECT 1 FROM password_reset_notices n \
                     WHERE n.person_id = people.id AND n.shown_at IS NULL) AS reset_notice_waiting \
                     FROM people WHERE id = $1"
                ))
                .bind(person.0)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|r| SessionPerson {
                    person: person_from(&r),
                    generation: r.get("session_generation"),
                    reset_notice_waiting: r.get("reset_notice_waiting"),
                }))
            }

            async fn take_reset_notice(
                &self,
                person: PersonId,
                at: DateTime<Utc>,
            ) -> Result<Option<ResetNotice>, StoreError> {
                // Every signed-in page asks: a plain read first, so only the rare page with a notice writes.
                let waiting: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM password_reset_notices WHERE person_id = $1 AND shown_at IS NULL LIMIT 1",
                )
                .bind(person.0)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                if waiting.is_none() {
                    return Ok(None);
                }
                let mut tx = begin_write(self.pool()).await?;
                // The update takes the waiting rows' locks: a second page read at once finds them shown.
                let shown = sqlx::query(
                    "UPDATE password_reset_notices SET shown_at = $1 WHERE person_id = $2 AND shown_at IS NULL \
                     RETURNING id, reset_by, reset_at",
                )
                .bind(at)
                .bind(person.0)
                .fetch_all(&mut *tx)
                .await
                .or_backend()?;
                let Some(newest) = shown.iter().max_by_key(|r| r.get::<i64, _>("id")) else {
                    return Ok(None);
                };
                let by: String = sqlx::query_scalar("SELECT name FROM people WHERE id = $1")
                    .bind(newest.get::<i64, _>("reset_by"))
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                let notice = ResetNotice { by, at: newest.get("reset_at") };
                tx.commit().await.or_backend()?;
                Ok(Some(notice))
            }
        }
    };
}
pub(crate) use people_store;
