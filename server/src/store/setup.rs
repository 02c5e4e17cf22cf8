//! The first run's setup. The company's one row (`id = 1`) decides a race: on SQLite the IMMEDIATE
//! transaction takes the write lock before it is claimed; on PostgreSQL a second insert waits for the
//! first transaction, then does nothing, and the rows it affected (none) say the company was already
//! made.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! setup_store {
    () => {
        use super::{audit, begin_write, ThisStore};
        use crate::store::{OrBackend, OrDuplicate};
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::setup::{FirstAdmin, SetUp, SetupStore};
        use engine::org::{Company, Person, PersonId};
        use engine::store::{Actor, StoreError};

        #[async_trait]
        impl SetupStore for ThisStore {
            async fn set_up_company(
                &self,
                company: &Company,
                admin: &FirstAdmin,
                at: DateTime<Utc>,
            ) -> Result<SetUp, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let claimed = sqlx::query(
                    "INSERT INTO company (id, name, time_zone, locale, created_at) VALUES (1, $1, $2, $3, $4) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&company.name)
                .bind(company.time_zone.as_str())
                .bind(company.locale.as_str())
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
                .or_duplicate(|| email.clone())?;
                let actor = Actor { person: Some(PersonId(id)), at };
                audit(&mut tx, actor, "company.create", &company.name, company.time_zone.as_str()).await?;
                audit(
                    &mut tx,
                    actor,
                    "person.create",
                    &format!("person:{id}"),
                    &format!("{} (the first admin)", admin.name),
                )
                .await?;
                tx.commit().await.or_backend()?;
                Ok(SetUp::Done(first_admin(id, admin, email)))
            }
        }

        /// The admin as just stored: in no team, with no role of their own, no manager, and present.
        pub(crate) fn first_admin(id: i64, admin: &FirstAdmin, email: String) -> Person {
            Person {
                id: PersonId(id),
                name: admin.name.clone(),
                email,
                is_admin: true,
                main_team: None,
                role_override: None,
                manager: None,
                left_at: None,
            }
        }
    };
}
pub(crate) use setup_store;
