//! What Draft from what exists reads: agents' playbooks, connectors' notes for agents
//! and accepted company lessons.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! draft_sources_store {
    () => {
        use super::lessons::{lesson_from, COLUMNS};
        use super::{audit, begin_write, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::learning::draft::DraftSourceStore;
        use engine::lessons::Lesson;
        use engine::org::AgentId;
        use engine::store::{Actor, StoreError};

        impl ThisStore {
            async fn newest_text(&self, table: &str, key: &str, id: i64) -> Result<Option<String>, StoreError> {
                sqlx::query_scalar(&format!("SELECT text FROM {table} WHERE {key} = $1 ORDER BY id DESC LIMIT 1"))
                    .bind(id)
                    .fetch_optional(self.pool())
                    .await
                    .or_backend()
            }

            async fn save_text(&self, table: &str, key: &str, id: i64, text: &str, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let row: i64 = sqlx::query_scalar(&format!(
                    "INSERT INTO {table} ({key}, text, saved_by, saved_at) VALUES ($1, $2, $3, $4) RETURNING id"
                ))
                .bind(id)
                .bind(text)
                .bind(actor.person.map(|p| p.0))
                .bind(actor.at)
                .fetch_one(&mut *tx)
                .await
                .or_backend()?;
                let chars = text.chars().count();
                audit(&mut tx, actor, &format!("{table}.save"), &id.to_string(), &format!("version {row}, {chars} characters"))
                    .await?;
                tx.commit().await.or_backend()
            }
        }

        #[async_trait]
        impl DraftSourceStore for ThisStore {
            async fn playbook(&self, agent: AgentId) -> Result<Option<String>, StoreError> {
                self.newest_text("agent_playbooks", "agent_id", agent.0).await
            }

            async fn save_playbook(&self, agent: AgentId, text: &str, actor: Actor) -> Result<(), StoreError> {
                self.save_text("agent_playbooks", "agent_id", agent.0, text, actor).await
            }

            async fn connector_notes(&self, connector: i64) -> Result<Option<String>, StoreError> {
                self.newest_text("connector_notes", "connector_id", connector).await
            }

            async fn save_connector_notes(&self, connector: i64, text: &str, actor: Actor) -> Result<(), StoreError> {
                self.save_text("connector_notes", "connector_id", connector, text, actor).await
            }

            async fn accepted_company_lessons(&self) -> Result<Vec<Lesson>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM lessons WHERE scope = 'company' AND NOT partner AND state = 'accepted' ORDER BY id"
                ))
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(lesson_from).collect()
            }
        }
    };
}
pub(crate) use draft_sources_store;
