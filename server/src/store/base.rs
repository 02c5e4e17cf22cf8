//! What every backend's store has besides its stores: its pool and keys, the audit log, and the
//! limits of outbound calls.
//!
//! Written once for both backends (see "Written once" in `store`), and expanded in each backend's
//! `mod.rs`, which gives `Pool` besides the usual names.

macro_rules! base_store {
    () => {
        /// A ledger of outbound calls that a limit counts: a connector's reads, or the model calls
        /// that memory's daily cap shares.
        pub(crate) enum CallLedger<'a> {
            ConnectorRead { connector: i64, purpose: &'a str },
            ModelCall { agent: &'a str, purpose: &'a str },
        }

        /// Takes one call from a limit of `limit` calls since `since`. Counting and recording happen
        /// in one write transaction, and on PostgreSQL the ledger's advisory lock is taken before
        /// counting, so two callers (on any server) can never both take the last call.
        pub(crate) async fn claim_call(
            pool: &Pool,
            ledger: CallLedger<'_>,
            since: chrono::DateTime<chrono::Utc>,
            limit: u32,
            at: chrono::DateTime<chrono::Utc>,
        ) -> Result<bool, engine::store::StoreError> {
            let mut tx = begin_write(pool).await?;
            let count = match ledger {
                CallLedger::ConnectorRead { connector, .. } => {
                    lock(&mut tx, locks::CONNECTOR_CALLS, connector).await?;
                    sqlx::query_scalar("SELECT COUNT(*) FROM connector_calls WHERE connector_id = $1 AND at >= $2")
                        .bind(connector)
                        .bind(since)
                }
                CallLedger::ModelCall { .. } => {
                    lock(&mut tx, locks::MODEL_CALLS, 0).await?;
                    sqlx::query_scalar("SELECT COUNT(*) FROM reflect_calls WHERE at >= $1").bind(since)
                }
            };
            let used: i64 = count.fetch_one(&mut *tx).await.or_backend()?;
            if used >= i64::from(limit) {
                return Ok(false);
            }
            let record = match ledger {
                CallLedger::ConnectorRead { connector, purpose } => {
                    sqlx::query("INSERT INTO connector_calls (connector_id, purpose, at) VALUES ($1, $2, $3)")
                        .bind(connector)
                        .bind(purpose)
                }
                CallLedger::ModelCall { agent, purpose } => {
                    sqlx::query("INSERT INTO reflect_calls (agent, purpose, at) VALUES ($1, $2, $3)")
                        .bind(agent)
                        .bind(purpose)
                }
            };
            record.bind(at).execute(&mut *tx).await.or_backend()?;
            tx.commit().await.or_backend()?;
            Ok(true)
        }

        /// Records one change in the audit log, inside the caller's transaction.
        pub(crate) async fn audit(
            conn: &mut Conn,
            actor: engine::store::Actor,
            action: &str,
            subject: &str,
            detail: &str,
        ) -> Result<(), engine::store::StoreError> {
            sqlx::query("INSERT INTO audit_log (at, actor_id, action, subject, detail) VALUES ($1, $2, $3, $4, $5)")
                .bind(actor.at)
                .bind(actor.person.map(|p| p.0))
                .bind(action)
                .bind(subject)
                .bind(detail)
                .execute(conn)
                .await
                .or_backend()?;
            Ok(())
        }

        impl ThisStore {
            pub fn pool(&self) -> &Pool {
                &self.pool
            }

            /// The store that seals and opens connector keys with this key; see `AnyStore::unlock`,
            /// the one way a store gets it after checking it.
            pub(crate) fn with_secrets(self, secrets: std::sync::Arc<crate::secrets::SecretBox>) -> Self {
                Self { secrets: Some(secrets), ..self }
            }

            pub(crate) fn secrets(&self) -> &crate::store::sealing::Secrets {
                &self.secrets
            }

            pub async fn is_empty(&self) -> Result<bool, engine::store::StoreError> {
                let n: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM company").fetch_one(&self.pool).await.or_backend()?;
                Ok(n == 0)
            }
        }
    };
}
pub(crate) use base_store;
