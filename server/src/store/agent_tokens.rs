//! Company agents' tokens for outside agents, and which token started which external run.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! agent_tokens_store {
    () => {
        use super::{audit, begin_write, ThisStore, FOR_UPDATE};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::org::{AgentId, PersonId};
        use engine::runs::agent_tokens::{AgentToken, AgentTokenStore, LiveAgentToken};
        use engine::runs::RunId;
        use engine::store::{Actor, StoreError};
        use sqlx::Row;

        const TOKEN_COLUMNS: &str = "id, agent_id, name, made_by, made_at, last_used_at, revoked_at, revoked_by";

        fn token_row(r: &super::DbRow) -> AgentToken {
            AgentToken {
                id: r.get("id"),
                agent: AgentId(r.get("agent_id")),
                name: r.get("name"),
                made_by: r.get::<Option<i64>, _>("made_by").map(PersonId),
                made_at: r.get("made_at"),
                last_used_at: r.get("last_used_at"),
                revoked_at: r.get("revoked_at"),
                revoked_by: r.get::<Option<i64>, _>("revoked_by").map(PersonId),
            }
        }

        #[async_trait]
        impl AgentTokenStore for ThisStore {
            async fn make_agent_token(
                &self,
                agent: AgentId,
                name: &str,
                secret_hash: &str,
                live_limit: u32,
                actor: Actor,
            ) -> Result<Option<AgentToken>, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // The agent's row is held while counting, so two makers never both take the last
                // place.
                let held: Option<i64> = sqlx::query_scalar(&format!("SELECT id FROM agents WHERE id = $1{FOR_UPDATE}"))
                    .bind(agent.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .or_backend()?;
                if held.is_none() {
                    return Err(StoreError::NotFound(format!("agent:{agent}")));
                }
                let live: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM agent_run_tokens WHERE agent_id = $1 AND revoked_at IS NULL",
                )
                .bind(agent.0)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                if live >= i64::from(live_limit) {
                    return Ok(None);
                }
                let row = sqlx::query(&format!(
                    "INSERT INTO agent_run_tokens (agent_id, name, secret_hash, made_by, made_at) \
                     VALUES ($1, $2, $3, $4, $5) RETURNING {TOKEN_COLUMNS}"
                ))
                .bind(agent.0)
                .bind(name)
                .bind(secret_hash)
                .bind(actor.person.map(|p| p.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let made = token_row(&row);
                let detail = format!("token:{} {name}", made.id);
                audit(&mut tx, actor, "agent.token_made", &agent.0.to_string(), &detail).await?;
                tx.commit().await.or_backend()?;
                Ok(Some(made))
            }

            async fn agent_tokens_of(&self, agent: AgentId, limit: u32) -> Result<Vec<AgentToken>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {TOKEN_COLUMNS} FROM agent_run_tokens WHERE agent_id = $1 ORDER BY id DESC LIMIT $2"
                ))
                .bind(agent.0)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows.iter().map(token_row).collect())
            }

            async fn revoke_agent_token_of(&self, agent: AgentId, id: i64, actor: Actor) -> Result<bool, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let n = sqlx::query(
                    "UPDATE agent_run_tokens SET revoked_at = $1, revoked_by = $2 \
                     WHERE id = $3 AND agent_id = $4 AND revoked_at IS NULL",
                )
                .bind(actor.at)
                .bind(actor.person.map(|p| p.0))
                .bind(id)
                .bind(agent.0)
                .execute(&mut *tx)
                .await
                .or_backend()?
                .rows_affected();
                if n == 0 {
                    return Ok(false);
                }
                audit(&mut tx, actor, "agent.token_revoked", &agent.0.to_string(), &format!("token:{id}")).await?;
                tx.commit().await.or_backend()?;
                Ok(true)
            }

            async fn live_agent_token(
                &self,
                secret_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<LiveAgentToken>, StoreError> {
                let row: Option<(i64, i64)> = sqlx::query_as(
                    "UPDATE agent_run_tokens SET last_used_at = $1 WHERE secret_hash = $2 AND revoked_at IS NULL \
                     RETURNING id, agent_id",
                )
                .bind(now)
                .bind(secret_hash)
                .fetch_optional(self.pool())
                .await
                .or_backend()?;
                Ok(row.map(|(id, agent)| LiveAgentToken { id, agent: AgentId(agent) }))
            }

            async fn bind_token_run(&self, run: RunId, token: i64) -> Result<(), StoreError> {
                sqlx::query("INSERT INTO agent_token_runs (run_id, token_id) VALUES ($1, $2)")
                    .bind(run.0)
                    .bind(token)
                    .execute(self.pool())
                    .await
                    .or_backend()?;
                Ok(())
            }

            async fn token_of_run(&self, run: RunId) -> Result<Option<i64>, StoreError> {
                sqlx::query_scalar("SELECT token_id FROM agent_token_runs WHERE run_id = $1")
                    .bind(run.0)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()
            }
        }
    };
}

pub(crate) use agent_tokens_store;
