//! Agents' memory_scopes.
//!
//! Written once for both backends (see "Written once" in `store`).

use engine::lessons::scopes::MemoryScope;

/// "personal,team" as stored; an unknown name (none is written) is left out.
pub(crate) fn scopes_from(text: &str) -> Vec<MemoryScope> {
    text.split(',').filter_map(|s| MemoryScope::parse(s.trim())).collect()
}

pub(crate) fn scopes_text(scopes: &[MemoryScope]) -> String {
    scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
}

macro_rules! memory_scopes_store {
    () => {
        use super::{audit, begin_write, ThisStore};
        use crate::store::memory_scopes::{scopes_from, scopes_text};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::lessons::scopes::{scopes_line, MemoryScope, MemoryScopeStore};
        use engine::org::AgentId;
        use engine::store::{Actor, StoreError};

        #[async_trait]
        impl MemoryScopeStore for ThisStore {
            async fn memory_scopes(&self, agent: AgentId) -> Result<Vec<MemoryScope>, StoreError> {
                let text: Option<String> =
                    sqlx::query_scalar("SELECT scopes FROM agent_memory_scopes WHERE agent_id = $1")
                        .bind(agent.0)
                        .fetch_optional(self.pool())
                        .await
                        .or_backend()?;
                Ok(text.as_deref().map(scopes_from).unwrap_or_default())
            }

            async fn set_memory_scopes(
                &self,
                agent: AgentId,
                scopes: &[MemoryScope],
                actor: Actor,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old: Option<String> =
                    sqlx::query_scalar("SELECT scopes FROM agent_memory_scopes WHERE agent_id = $1")
                        .bind(agent.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?;
                sqlx::query(
                    "INSERT INTO agent_memory_scopes (agent_id, scopes) VALUES ($1, $2) \
                     ON CONFLICT (agent_id) DO UPDATE SET scopes = excluded.scopes",
                )
                .bind(agent.0)
                .bind(scopes_text(scopes))
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let was = scopes_line(&old.as_deref().map(scopes_from).unwrap_or_default());
                let detail = format!("{was} → {}", scopes_line(scopes));
                audit(&mut tx, actor, "agent.memory_scopes", &agent.0.to_string(), &detail).await?;
                tx.commit().await.or_backend()
            }
        }
    };
}
pub(crate) use memory_scopes_store;
