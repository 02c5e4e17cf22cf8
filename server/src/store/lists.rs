//! Who's-who toolsets and their reference lists.
//!
//! Written once for both backends (see "Written once" in `store`).

macro_rules! lists_store {
    () => {
        use super::{audit, begin_write, in_list, list, lock, locks, DbRow, ThisStore, FOR_UPDATE};
        use crate::store::run_rows::{entry_keys, from_json, json, lookup_keys};
        use crate::store::OrBackend;
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use engine::runs::whoswho::ListEntry;
        use engine::store::{Actor, ListStore, StoreError};
        use sqlx::Row;

        /// Entries of marked connectors only: unmarking a toolset takes its lists out of every slice.
        const ENTRY_SELECT: &str = "SELECT e.id, e.connector_id, c.name AS source, e.list, e.entry_id, e.kept_values, \
             e.names, e.fetched_at FROM list_entries e JOIN connectors c ON c.id = e.connector_id AND c.whos_who";

        fn entry_from(row: &DbRow) -> Result<ListEntry, StoreError> {
            Ok(ListEntry {
                connector: row.get("connector_id"),
                source: row.get("source"),
                list: row.get("list"),
                id: row.get("entry_id"),
                values: from_json("list entry values", row.get("kept_values"))?,
                names: from_json("list entry names", row.get("names"))?,
                fetched_at: row.get("fetched_at"),
            })
        }

        fn on_off(on: bool) -> &'static str {
            if on {
                "on"
            } else {
                "off"
            }
        }

        #[async_trait]
        impl ListStore for ThisStore {
            async fn set_whos_who(&self, connector: i64, on: bool, actor: Actor) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                let old: Option<bool> =
                    sqlx::query_scalar(&format!("SELECT whos_who FROM connectors WHERE id = $1{FOR_UPDATE}"))
                        .bind(connector)
                        .fetch_optional(&mut *tx)
                        .await
                        .or_backend()?;
                let Some(old) = old else {
                    return Err(StoreError::NotFound(format!("connector:{connector}")));
                };
                sqlx::query("UPDATE connectors SET whos_who = $1 WHERE id = $2")
                    .bind(on)
                    .bind(connector)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                let detail = format!("{} -> {}", on_off(old), on_off(on));
                audit(&mut tx, actor, "connector.whos_who", &format!("connector:{connector}"), &detail).await?;
                tx.commit().await.or_backend()
            }

            async fn whos_who_connectors(&self) -> Result<Vec<i64>, StoreError> {
                sqlx::query_scalar("SELECT id FROM connectors WHERE whos_who ORDER BY id")
                    .fetch_all(self.pool())
                    .await
                    .or_backend()
            }

            async fn save_list(
                &self,
                connector: i64,
                list: &str,
                entries: &[ListEntry],
                fetched_at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = begin_write(self.pool()).await?;
                // Racing saves of one list wait on each other here (on SQLite, at the IMMEDIATE begin), so
                // the last one wins whole rather than the two mixing. The new fetch replaces the old one:
                // an entry no longer returned goes.
                lock(&mut tx, locks::LIST_SAVES, connector).await?;
                sqlx::query(
                    "DELETE FROM list_entry_keys WHERE list_entry_id IN \
                     (SELECT id FROM list_entries WHERE connector_id = $1 AND list = $2)",
                )
                .bind(connector)
                .bind(list)
                .execute(&mut *tx)
                .await
                .or_backend()?;
                sqlx::query("DELETE FROM list_entries WHERE connector_id = $1 AND list = $2")
                    .bind(connector)
                    .bind(list)
                    .execute(&mut *tx)
                    .await
                    .or_backend()?;
                for entry in entries {
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO list_entries (connector_id, list, entry_id, kept_values, names, fetched_at) \
                         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    )
                    .bind(connector)
                    .bind(list)
                    .bind(&entry.id)
                    .bind(json(&entry.values)?)
                    .bind(json(&entry.names)?)
                    .bind(fetched_at)
                    .fetch_one(&mut *tx)
                    .await
                    .or_backend()?;
                    for key in entry_keys(entry) {
                        sqlx::query("INSERT INTO list_entry_keys (key, list_entry_id) VALUES ($1, $2)")
                            .bind(key)
                            .bind(id)
                            .execute(&mut *tx)
                            .await
                            .or_backend()?;
                    }
                }
                tx.commit().await.or_backend()
            }

            async fn list_entries(&self) -> Result<Vec<ListEntry>, StoreError> {
                sqlx::query(&format!("{ENTRY_SELECT} ORDER BY e.id"))
                    .fetch_all(self.pool())
                    .await
                    .or_backend()?
                    .iter()
                    .map(entry_from)
                    .collect()
            }

            async fn list_entries_naming(&self, keys: &[String]) -> Result<Vec<ListEntry>, StoreError> {
                let keys = lookup_keys(keys);
                if keys.is_empty() {
                    return Ok(Vec::new());
                }
                sqlx::query(&format!(
                    "{ENTRY_SELECT} WHERE e.id IN (SELECT list_entry_id FROM list_entry_keys WHERE {}) ORDER BY e.id",
                    in_list("key", 1)
                ))
                .bind(list(&keys))
                .fetch_all(self.pool())
                .await
                .or_backend()?
                .iter()
                .map(entry_from)
                .collect()
            }

            async fn claim_list_fetch(
                &self,
                connector: i64,
                slot: &str,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                // One statement: of racing claims, the primary key lets exactly one insert.
                let done = sqlx::query(
                    "INSERT INTO list_fetch_claims (connector_id, slot, claimed_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (connector_id, slot) DO NOTHING",
                )
                .bind(connector)
                .bind(slot)
                .bind(at)
                .execute(self.pool())
                .await
                .or_backend()?;
                Ok(done.rows_affected() == 1)
            }
        }
    };
}
pub(crate) use lists_store;
