//! List snapshots.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! snapshots_store {
    () => {
        use super::{backend, begin_write, is_unique_violation, DbRow, ThisStore};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use engine::cards::snapshots::{ListSnapshot, NewSnapshot, SnapshotStore};
        use engine::org::PersonId;
        use engine::store::StoreError;
        use sqlx::Row;

        /// How often a keep that raced another tries again.
        const KEEP_TRIES: u32 = 16;

        const COLUMNS: &str = "id, person_id, connector_id, tool, arguments, asked, records, taken_at";

        fn snapshot_from(row: &DbRow) -> Result<ListSnapshot, StoreError> {
            let bad = |col: &str, e: serde_json::Error| StoreError::Backend(format!("list_snapshots.{col}: {e}"));
            Ok(ListSnapshot {
                id: row.get("id"),
                person: PersonId(row.get("person_id")),
                connector: row.get("connector_id"),
                tool: row.get("tool"),
                arguments: serde_json::from_str(&row.get::<String, _>("arguments")).map_err(|e| bad("arguments", e))?,
                asked: row.get("asked"),
                records: serde_json::from_str(&row.get::<String, _>("records")).map_err(|e| bad("records", e))?,
                taken_at: row.get("taken_at"),
            })
        }

        #[async_trait]
        impl SnapshotStore for ThisStore {
            async fn keep_snapshot(&self, s: &NewSnapshot) -> Result<ListSnapshot, StoreError> {
                // Servers keeping the same list at once: the one whose insert meets another's open
                // snapshot tries again, and closes it.
                let mut tries = 0;
                loop {
                    match self.keep_snapshot_once(s).await {
                        Err(Retry::Race) if tries < KEEP_TRIES => tries += 1,
                        done => return done.map_err(Retry::into_store),
                    }
                }
            }

            async fn snapshots_of(&self, person: PersonId) -> Result<Vec<ListSnapshot>, StoreError> {
                let rows = sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM list_snapshots WHERE person_id = $1 AND closed_at IS NULL ORDER BY id DESC"
                ))
                .bind(person.0)
                .fetch_all(self.pool())
                .await
                .or_backend()?;
                rows.iter().map(snapshot_from).collect()
            }
        }

        enum Retry {
            Race,
            Store(StoreError),
        }

        impl From<StoreError> for Retry {
            fn from(e: StoreError) -> Self {
                Retry::Store(e)
            }
        }

        impl Retry {
            fn into_store(self) -> StoreError {
                match self {
                    Retry::Race => StoreError::Backend("a list snapshot was kept twice at once".into()),
                    Retry::Store(e) => e,
                }
            }
        }

        impl ThisStore {
            async fn keep_snapshot_once(&self, s: &NewSnapshot) -> Result<ListSnapshot, Retry> {
                let arguments = s.arguments.to_string();
                let records = serde_json::to_string(&s.records).or_backend()?;
                let mut tx = begin_write(self.pool()).await?;
                sqlx::query(
                    "UPDATE list_snapshots SET closed_at = $1, closed_reason = 'superseded' \
                     WHERE person_id = $2 AND connector_id = $3 AND tool = $4 AND (arguments = $5 OR asked = $6) AND closed_at IS NULL",
                )
                .bind(s.taken_at)
                .bind(s.person.0)
                .bind(s.connector)
                .bind(&s.tool)
                .bind(&arguments)
                .bind(&s.asked)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                let row = sqlx::query(&format!(
                    "INSERT INTO list_snapshots (person_id, connector_id, tool, arguments, asked, records, taken_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {COLUMNS}"
                ))
                .bind(s.person.0)
                .bind(s.connector)
                .bind(&s.tool)
                .bind(&arguments)
                .bind(&s.asked)
                .bind(&records)
                .bind(s.taken_at)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| if is_unique_violation(&e) { Retry::Race } else { Retry::Store(backend(e)) })?;
                tx.commit().await.or_backend()?;
                Ok(snapshot_from(&row)?)
            }
        }
    };
}
pub(crate) use snapshots_store;
