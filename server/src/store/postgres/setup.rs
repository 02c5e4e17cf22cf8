//! The first run's setup on PostgreSQL, mirroring `store::setup`. The company's primary key
//! (`id = 1`) decides a race: a second insert waits for the first transaction, then does nothing,
//! and the rows it affected (none) say the company was already made.

use super::{audit, backend, is_unique_violation, PgStore};
use crate::store::sqlite::setup::first_admin;
use crate::store::OrBackend;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use engine::org::setup::{FirstAdmin, SetUp, SetupStore};
use engine::org::{Company, PersonId};
use engine::store::{Actor, StoreError};

#[async_trait]
impl SetupStore for PgStore {
    async fn set_up_company(
        &self,
        company: &Company,
        admin: &FirstAdmin,
        at: DateTime<Utc>,
    ) -> Result<SetUp, StoreError> {
        let mut tx = self.pool().begin().await.or_backend()?;
        let claimed = sqlx::query(
            "INSERT INTO company (id, name, time_zone, created_at) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&company.name)
        .bind(company.time_zone.as_str())
        .bind(at)
        .execute(&mut *tx)
        .await
        .or_backend()?
        .rows_affected();
        if claimed == 0 {
            // Dropping the transaction rolls it back: it wrote nothing.
            return Ok(SetUp::AlreadySetUp);
        }
        let email = admin.email.trim().to_lowercase();
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO people (name, email, password_hash, is_admin, created_at) \
             VALUES ($1, $2, $3, TRUE, $4) RETURNING id",
        )
        .bind(&admin.name)
        .bind(&email)
        .bind(&admin.password_hash)
        .bind(at)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(email.clone()) } else { backend(e) })?;
        let actor = Actor { person: Some(PersonId(id)), at };
        audit(&mut tx, actor, "company.create", &company.name, company.time_zone.as_str()).await?;
        audit(&mut tx, actor, "person.create", &format!("person:{id}"), &format!("{} (the first admin)", admin.name))
            .await?;
        tx.commit().await.or_backend()?;
        Ok(SetUp::Done(first_admin(id, admin, email)))
    }
}
