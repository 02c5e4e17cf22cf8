//! Who's-who toolsets: an admin marks a toolset (a connector) as who's who, and its reference
//! lists (team members, territories, lead sources) are fetched daily, and again when a run meets an
//! id they do not name. Only on a live connector that reads with the company key alone, never
//! under a kill switch; each fetch counts in the connector's hourly limit and is claimed once across
//! servers. Only structured values are kept (`whoswho::keep_entry`).

use super::whoswho::ListEntry;
use super::RunError;
use crate::cards::source::Source;
use crate::org::Person;
use crate::store::{Actor, Store, StoreError};
use crate::Clock;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

#[async_trait]
pub trait ListStore: Send + Sync {
    /// Marks or unmarks a connector's toolset as who's who, audited.
    async fn set_whos_who(&self, connector: i64, on: bool, actor: Actor) -> Result<(), StoreError>;
    /// The connectors marked who's who.
    async fn whos_who_connectors(&self) -> Result<Vec<i64>, StoreError>;
    /// Replaces one list's kept entries with a new fetch, in one write.
    async fn save_list(
        &self,
        connector: i64,
        list: &str,
        entries: &[ListEntry],
        fetched_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Every kept entry of the marked connectors' lists.
    async fn list_entries(&self) -> Result<Vec<ListEntry>, StoreError>;
    /// Kept entries that name `key` (an email or an id), for one person's slice.
    async fn list_entries_naming(&self, keys: &[String]) -> Result<Vec<ListEntry>, StoreError>;
    /// Claims a fetch of a connector's lists once across servers for `slot` (a date, or a
    /// refetch's id): true for exactly one caller.
    async fn claim_list_fetch(&self, connector: i64, slot: &str, at: DateTime<Utc>) -> Result<bool, StoreError>;
}

/// Fetches and serves the who's-who reference lists.
#[derive(Clone)]
pub struct ReferenceLists {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    source: Arc<dyn Source>,
}

impl ReferenceLists {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, source: Arc<dyn Source>) -> Self {
        Self { store, clock, source }
    }

    /// An admin, acting as themselves, marks a toolset as who's who (or not).
    pub async fn set_whos_who(&self, by: &Person, connector: i64, on: bool) -> Result<(), RunError> {
        todo!("lists helper {} {connector} {on} {}", by.id, self.clock.now())
    }

    /// The daily fetch: each marked connector's lists, once a day across servers. Returns how
    /// many lists were fetched; a connector that may not be read is skipped and logged.
    pub async fn fetch_daily(&self) -> Result<u32, RunError> {
        todo!("lists helper {}", self.source.tools("", "").await.is_ok())
    }

    /// A run met `id`, which no kept entry names: fetch the lists again (claimed once per id and
    /// hour across servers, within the hourly limit). Returns whether a fetch ran.
    pub async fn refetch_for_unknown(&self, id: &str) -> Result<bool, RunError> {
        todo!("lists helper {id}")
    }

    /// The kept entries that name the person exactly (by email, or by the ids given).
    pub async fn entries_for(&self, person: &Person, ids: &[String]) -> Result<Vec<ListEntry>, RunError> {
        let mut keys: Vec<String> = ids.iter().map(|i| i.to_lowercase()).collect();
        keys.push(person.email.to_lowercase());
        let entries = self.store.list_entries_naming(&keys).await?;
        Ok(entries.into_iter().filter(|e| super::whoswho::names(e, person, ids)).collect())
    }
}
