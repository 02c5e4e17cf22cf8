//! A person's list of threads (the Ask page) in one statement: each thread with its agent's name,
//! its first message's time and whether a run of it is still working, read by correlated lookups
//! on the (thread_id, id) indexes of messages and runs, so the list costs one round trip however
//! many threads it shows.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! thread_lines_store {
    () => {
        use super::ThisStore;
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::org::{AgentId, PersonId};
        use engine::runs::store::ThreadListStore;
        use engine::runs::{ThreadId, ThreadLine};
        use engine::store::StoreError;
        use sqlx::Row;

        #[async_trait]
        impl ThreadListStore for ThisStore {
            async fn thread_lines(&self, person: PersonId, limit: u32) -> Result<Vec<ThreadLine>, StoreError> {
                // "Working" is what a thread's page says: a run running, or an answer being
                // checked (`Run::checking`).
                sqlx::query(
                    "SELECT t.id, t.agent_id, t.title, a.name AS agent_name, \
                     (SELECT m.at FROM messages m WHERE m.thread_id = t.id ORDER BY m.id LIMIT 1) AS asked_at, \
                     EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id \
                     AND (r.state = 'running' OR r.check_state = 'checking')) AS working \
                     FROM threads t LEFT JOIN agents a ON a.id = t.agent_id \
                     WHERE t.person_id = $1 ORDER BY t.id DESC LIMIT $2",
                )
                .bind(person.0)
                .bind(i64::from(limit))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(|row| {
                    Ok(ThreadLine {
                        id: ThreadId(row.try_get("id").or_backend()?),
                        agent: AgentId(row.try_get("agent_id").or_backend()?),
                        agent_name: row.try_get("agent_name").or_backend()?,
                        title: row.try_get("title").or_backend()?,
                        asked_at: row.try_get("asked_at").or_backend()?,
                        working: row.try_get("working").or_backend()?,
                    })
                })
                .collect()
            }
        }
    };
}
pub(crate) use thread_lines_store;
