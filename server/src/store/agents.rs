//! The AgentAdminStore: new agents with their description, team copies, and an
//! agent's toolsets and clearance set apart from each other.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! agents_store {
    () => {
        use super::org::{agent_from, AGENT_COLUMNS};
        use super::{audit, backend, begin_write, is_unique_violation, BY_BYTES, Conn, FOR_UPDATE, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::cards::access::DataLabel;
        use engine::org::agents::AgentAdminStore;
        use engine::org::{Agent, AgentId, PersonId, TeamId};
        use engine::store::{Actor, NewAgent, StoreError};

        /// The agent's row, locked until the transaction ends, so changes to one agent never interleave.
        async fn agent_in(conn: &mut Conn, id: AgentId) -> Result<Option<Agent>, StoreError> {
            let row = sqlx::query(&format!("SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1{FOR_UPDATE}"))
                .bind(id.0)
                .fetch_optional(conn)
                .await
                .or_backend()?;
            Ok(row.as_ref().map(agent_from))
        }

        #[async_trait]
        impl AgentAdminStore for ThisStore {
            async fn add_agent(&self, a: &NewAgent, description: &str, actor: Actor) -> Result<Agent, StoreError> {
                self.insert_agent(a, description, false, actor).await
            }

            async fn add_private_agent(&self, a: &NewAgent, description: &str, actor: Actor) -> Result<Agent, StoreError> {
                self.insert_agent(a, description, true, actor).await
            }

            async fn private_agents(&self, owner: PersonId) -> Result<Vec<Agent>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {AGENT_COLUMNS} FROM agents WHERE private AND owner_id = $1 ORDER BY name{BY_BYTES}"
                ))
                .bind(owner.0)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                Ok(rows.iter().map(agent_from).collect())
            }

            async fn team_copy_of(&self, source: AgentId, team: TeamId) -> Result<Option<Agent>, StoreError> {
                let row =
                    sqlx::query(&format!("SELECT {AGENT_COLUMNS} FROM agents WHERE copy_of_id = $1 AND team_copy_id = $2"))
                        .bind(source.0)
                        .bind(team.0)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                Ok(row.as_ref().map(agent_from))
            }

            async fn copy_agent(&self, source: AgentId, team: TeamId, name: &str, actor: Actor) -> Result<Agent, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let from =
                    agent_in(&mut tx, source).await?.ok_or_else(|| StoreError::NotFound(format!("agent:{}", source.0)))?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO agents (name, template, role_id, owner_id, team_copy_id, description, clearance, copy_of_id, \
                     created_at) SELECT $1, template, role_id, owner_id, $2, description, clearance, id, $3 FROM agents WHERE id = $4 \
                     RETURNING id",
                )
                .bind(name)
                .bind(team.0)
                .bind(actor.at)
                .bind(source.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(name.to_string()) } else { backend(e) })?;
                sqlx::query("INSERT INTO agent_toolsets (agent_id, connector_id) SELECT $1, connector_id FROM agent_toolsets WHERE agent_id = $2")
                    .bind(id)
                    .bind(source.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let detail = format!("{name}: copy of {} for team:{}", from.name, team.0);
                audit(&mut tx, actor, "agent.copy", &format!("agent:{id}"), &detail).await?;
                let agent = agent_in(&mut tx, AgentId(id)).await?.ok_or_else(|| StoreError::Backend("copy vanished".into()))?;
                tx.commit().await.or_backend()?;
                Ok(agent)
            }

            async fn set_agent_toolsets(&self, agent: AgentId, toolsets: &[i64], actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                agent_in(&mut tx, agent).await?.ok_or_else(|| StoreError::NotFound(format!("agent:{}", agent.0)))?;
                sqlx::query("DELETE FROM agent_toolsets WHERE agent_id = $1")
                    .bind(agent.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                for t in toolsets {
                    sqlx::query("INSERT INTO agent_toolsets (agent_id, connector_id) VALUES ($1, $2)")
                        .bind(agent.0)
                        .bind(t)
                        .execute(&mut *tx)
                        .await
                        .or_backend()?;
                }
                audit(&mut tx, actor, "agent.toolsets", &format!("agent:{}", agent.0), &format!("holds {toolsets:?}")).await?;
                tx.commit().await.or_backend()
            }

            async fn set_agent_clearance(&self, agent: AgentId, clearance: DataLabel, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let changed = sqlx::query("UPDATE agents SET clearance = $1 WHERE id = $2")
                    .bind(clearance.as_str())
                    .bind(agent.0)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?
                    .rows_affected();
                if changed == 0 {
                    return Err(StoreError::NotFound(format!("agent:{}", agent.0)));
                }
                let detail = format!("cleared for {}", clearance.as_str());
                audit(&mut tx, actor, "agent.clearance", &format!("agent:{}", agent.0), &detail).await?;
                tx.commit().await.or_backend()
            }
        }

        impl ThisStore {
            /// A new agent with its description, company-wide or one person's own, audited in the same
            /// transaction; `Duplicate` when the name is taken.
            async fn insert_agent(
                &self,
                a: &NewAgent,
                description: &str,
                private: bool,
                actor: Actor,
            ) -> Result<Agent, StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO agents (name, template, role_id, owner_id, team_copy_id, description, private, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                )
                .bind(&a.name)
                .bind(&a.template)
                .bind(a.role.map(|r| r.0))
                .bind(a.owner.0)
                .bind(a.team_copy.map(|t| t.0))
                .bind(description)
                .bind(private)
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| if is_unique_violation(&e) { StoreError::Duplicate(a.name.clone()) } else { backend(e) })?;
                let detail = if private {
                    format!("{}; private agent of person:{}", a.name, a.owner.0)
                } else {
                    format!("{}; owner person:{}; role {:?}", a.name, a.owner.0, a.role.map(|r| r.0))
                };
                audit(&mut tx, actor, "agent.create", &format!("agent:{id}"), &detail).await?;
                let agent =
                    agent_in(&mut tx, AgentId(id)).await?.ok_or_else(|| StoreError::Backend("agent vanished".into()))?;
                tx.commit().await.or_backend()?;
                Ok(agent)
            }
        }
    };
}
pub(crate) use agents_store;
