//! Sealed connector keys: the key check, the sealing of plain keys at start-up and the rotation to a
//! new key, each in one transaction that first takes the keys' lock (`lock_keys`), so that two
//! servers starting at once, or a rotation, never interleave with a key being written.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! secrets_store {
    () => {
        use super::{audit, begin_write, Conn, ThisStore, FOR_SHARE};
        use crate::secrets::{Place, SecretBox};
        use crate::store::sealing::{reseal, seal_plain, Sealed, StoredKey};
        use crate::store::OrBackend;
        use chrono::{DateTime, Utc};
        use engine::store::{Actor, StoreError};

        /// The key check, locked against a rotation until the transaction ends.
        pub(crate) async fn key_check(conn: &mut Conn) -> Result<Option<String>, StoreError> {
            sqlx::query_scalar(&format!("SELECT sealed FROM secret_key_check WHERE id = 1{FOR_SHARE}"))
                .fetch_optional(conn)
                .await
                .or_backend()
        }

        async fn stored_keys(conn: &mut Conn) -> Result<Vec<StoredKey>, StoreError> {
            let company: Vec<(i64, String)> =
                sqlx::query_as("SELECT id, company_key FROM connectors WHERE company_key IS NOT NULL ORDER BY id")
                    .fetch_all(&mut *conn)
                    .await
                    .or_backend()?;
            let people: Vec<(i64, i64, String)> = sqlx::query_as(
                "SELECT connector_id, person_id, secret FROM person_keys ORDER BY connector_id, person_id",
            )
            .fetch_all(&mut *conn)
            .await
            .or_backend()?;
            let company = company
                .into_iter()
                .map(|(connector, value)| StoredKey { place: Place::CompanyKey { connector }, value });
            let people = people
                .into_iter()
                .map(|(connector, person, value)| StoredKey { place: Place::PersonKey { connector, person }, value });
            Ok(company.chain(people).collect())
        }

        async fn write_keys(conn: &mut Conn, keys: &[StoredKey]) -> Result<(), StoreError> {
            for k in keys {
                let query = match k.place {
                    Place::CompanyKey { connector } => {
                        sqlx::query("UPDATE connectors SET company_key = $1 WHERE id = $2")
                            .bind(&k.value)
                            .bind(connector)
                    }
                    Place::PersonKey { connector, person } => {
                        sqlx::query("UPDATE person_keys SET secret = $1 WHERE connector_id = $2 AND person_id = $3")
                            .bind(&k.value)
                            .bind(connector)
                            .bind(person)
                    }
                    // None is a connector key: the check and the erasure key are written apart, a flash
                    // lives in a browser.
                    Place::KeyCheck | Place::FlashCookie | Place::ErasureKey => continue,
                };
                query.execute(&mut *conn).await.or_backend()?;
            }
            Ok(())
        }

        async fn write_check(conn: &mut Conn, sealed: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO secret_key_check (id, sealed, sealed_at) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed, sealed_at = excluded.sealed_at",
            )
            .bind(sealed)
            .bind(at)
            .execute(conn)
            .await
            .or_backend()?;
            Ok(())
        }

        /// The erasure key (once an erasure made it) opened with the old key and sealed with the
        /// new one; refused, with everything else, if it does not open.
        async fn reseal_erasure_key(conn: &mut Conn, old: &SecretBox, new: &SecretBox) -> Result<(), StoreError> {
            let stored: Option<String> = sqlx::query_scalar("SELECT sealed FROM erasure_key WHERE id = 1")
                .fetch_optional(&mut *conn)
                .await
                .or_backend()?;
            let Some(stored) = stored else { return Ok(()) };
            let row = StoredKey { place: Place::ErasureKey, value: stored };
            for k in reseal(vec![row], old, new)? {
                sqlx::query("UPDATE erasure_key SET sealed = $1 WHERE id = 1")
                    .bind(&k.value)
                    .execute(&mut *conn)
                    .await
                    .or_backend()?;
            }
            Ok(())
        }

        impl ThisStore {
            pub async fn key_check_exists(&self) -> Result<bool, StoreError> {
                let check: Option<String> = sqlx::query_scalar("SELECT sealed FROM secret_key_check WHERE id = 1")
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()?;
                Ok(check.is_some())
            }

            pub(crate) async fn seal_at_rest(
                &self,
                sealer: &SecretBox,
                at: DateTime<Utc>,
            ) -> Result<Sealed, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_keys(&mut tx).await?;
                let sealed_before = match key_check(&mut tx).await? {
                    Some(check) if !sealer.opens_check(&check) => return Ok(Sealed::WrongKey),
                    Some(_) => true,
                    None => false,
                };
                let sealed = seal_plain(stored_keys(&mut tx).await?, sealed_before, sealer);
                write_keys(&mut tx, &sealed).await?;
                if !sealed_before {
                    write_check(&mut tx, &sealer.seal_check(), at).await?;
                }
                if !sealed.is_empty() {
                    let detail = format!("sealed {} connector key(s) kept in plain text", sealed.len());
                    audit(&mut tx, Actor { person: None, at }, "secret.seal", "connector_keys", &detail).await?;
                }
                tx.commit().await.or_backend()?;
                Ok(Sealed::Done(sealed.len() as u32))
            }

            pub(crate) async fn reseal_all(
                &self,
                old: &SecretBox,
                new: &SecretBox,
                at: DateTime<Utc>,
            ) -> Result<Sealed, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                lock_keys(&mut tx).await?;
                if !key_check(&mut tx).await?.is_some_and(|c| old.opens_check(&c)) {
                    return Ok(Sealed::WrongKey);
                }
                let resealed = reseal(stored_keys(&mut tx).await?, old, new)?;
                write_keys(&mut tx, &resealed).await?;
                reseal_erasure_key(&mut tx, old, new).await?;
                write_check(&mut tx, &new.seal_check(), at).await?;
                let detail = format!("re-sealed {} connector key(s) under a new secret key", resealed.len());
                audit(&mut tx, Actor { person: None, at }, "secret.rotate", "connector_keys", &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(Sealed::Done(resealed.len() as u32))
            }
        }
    };
}
pub(crate) use secrets_store;
