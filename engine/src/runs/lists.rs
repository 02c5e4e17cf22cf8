//! Who's-who toolsets: an admin marks a toolset (a connector) as who's who, and its reference
//! lists (team members, territories, lead sources) are fetched daily, and again when a run meets an
//! id they do not name. Only on a live connector that reads with the company key alone, never
//! under a kill switch; each fetch counts in the connector's hourly limit and is claimed once across
//! servers. Only structured values are kept (`whoswho::keep_entry`).

use super::whoswho::{self, ListEntry};
use super::RunError;
use crate::cards::access::KeyKind;
use crate::cards::source::{Connector, ReadKey, Source, ToolInfo};
use crate::kernel::{Actor, StoreError};
use crate::org::Person;
use crate::Clock;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

crate::port!(
    /// What the who's-who lists read and write: the lists, the connectors they are read through
    /// (within their keys and hourly limits), and the company's zone their fetches are dated in.
    ListPorts: ListStore, crate::cards::store::ConnectorStore, crate::org::store::OrgStore
);

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

/// What a list fetch is counted as in the connector's hourly limit.
pub const FETCH_PURPOSE: &str = "who's who";

/// The refusal a person who is not an admin gets.
pub const ADMIN_ONLY: &str = "Only an admin can mark a toolset as who's who";

/// The longest id a run may ask the lists to be fetched again for.
pub const UNKNOWN_ID_MAX_CHARS: usize = 200;

/// The slot a refetch for an id a run met is claimed in: once per id and hour.
pub fn unknown_id_slot(id: &str, now: DateTime<Utc>) -> String {
    format!("unknown {id} {}", now.format("%Y-%m-%dT%H"))
}

/// The id a refetch's slot was claimed for; `None` for a daily fetch's slot (a date).
pub fn id_of_unknown_id_slot(slot: &str) -> Option<&str> {
    slot.strip_prefix("unknown ")?.rsplit_once(' ').map(|(id, _)| id)
}

/// Fetches and serves the who's-who reference lists.
#[derive(Clone)]
pub struct ReferenceLists {
    store: Arc<dyn ListPorts>,
    clock: Arc<dyn Clock>,
    source: Arc<dyn Source>,
    /// The local date each connector was last logged as skipped, so a connector that may not be
    /// read is logged once a day rather than at every check.
    skipped: Arc<Mutex<HashMap<i64, String>>>,
}

impl ReferenceLists {
    pub fn new(store: Arc<dyn ListPorts>, clock: Arc<dyn Clock>, source: Arc<dyn Source>) -> Self {
        Self { store, clock, source, skipped: Arc::default() }
    }

    /// An admin, acting as themselves, marks a toolset as who's who (or not).
    pub async fn set_whos_who(&self, by: &Person, connector: i64, on: bool) -> Result<(), RunError> {
        if !by.is_admin {
            return Err(RunError::NotAllowed(ADMIN_ONLY.to_string()));
        }
        if self.store.connector(connector).await?.is_none() {
            return Err(RunError::NotFound(format!("There is no connector {connector}")));
        }
        let actor = Actor { person: Some(by.id), at: self.clock.now() };
        self.store.set_whos_who(connector, on, actor).await?;
        Ok(())
    }

    /// Whether a connector's toolset is marked who's who.
    pub async fn is_whos_who(&self, connector: i64) -> Result<bool, RunError> {
        Ok(self.store.whos_who_connectors().await?.contains(&connector))
    }

    /// The daily fetch: each marked connector's lists, once a day across servers. Returns how
    /// many lists were fetched; a connector that may not be read is skipped and logged.
    pub async fn fetch_daily(&self) -> Result<u32, RunError> {
        let today = self.local_date().await?;
        let mut fetched = 0;
        for c in self.marked().await? {
            if let Err(why) = may_fetch(&c) {
                self.log_skip(&c, why, &today);
                continue;
            }
            // Claimed only once the connector may be read, so a kill switch lifted later in the
            // day still lets that day's fetch run.
            if !self.store.claim_list_fetch(c.id, &today, self.clock.now()).await? {
                continue;
            }
            fetched += self.fetch(&c).await?;
        }
        Ok(fetched)
    }

    /// A run met `id`, which no kept entry names: fetch the lists again (claimed once per id and
    /// hour across servers, within the hourly limit). Returns whether a fetch ran.
    pub async fn refetch_for_unknown(&self, id: &str) -> Result<bool, RunError> {
        let id = id.trim();
        if id.is_empty() {
            return Err(RunError::Invalid("Give the id the lists do not name".to_string()));
        }
        if id.chars().count() > UNKNOWN_ID_MAX_CHARS {
            return Err(RunError::Invalid(format!("An id is at most {UNKNOWN_ID_MAX_CHARS} characters")));
        }
        let now = self.clock.now();
        let slot = unknown_id_slot(id, now);
        let today = self.local_date().await?;
        let mut ran = false;
        for c in self.marked().await? {
            if let Err(why) = may_fetch(&c) {
                self.log_skip(&c, why, &today);
                continue;
            }
            if !self.store.claim_list_fetch(c.id, &slot, now).await? {
                continue;
            }
            ran |= self.fetch(&c).await? > 0;
        }
        Ok(ran)
    }

    /// The kept entries that name the person exactly (by email, or by the ids given).
    pub async fn entries_for(&self, person: &Person, ids: &[String]) -> Result<Vec<ListEntry>, RunError> {
        let mut keys = vec![person.email.clone()];
        for id in ids.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            if !keys.iter().any(|k| k == id) {
                keys.push(id.to_string());
            }
        }
        let found = self.store.list_entries_naming(&keys).await?;
        if found.is_empty() {
            return Ok(found);
        }
        // A toolset unmarked since its last fetch no longer speaks for anyone.
        let marked = self.store.whos_who_connectors().await?;
        Ok(found.into_iter().filter(|e| marked.contains(&e.connector) && whoswho::names(e, person, ids)).collect())
    }

    /// The marked connectors that still exist.
    async fn marked(&self) -> Result<Vec<Connector>, RunError> {
        let mut out = Vec::new();
        for id in self.store.whos_who_connectors().await? {
            match self.store.connector(id).await? {
                Some(c) => out.push(c),
                None => tracing::warn!(connector = id, "a who's-who toolset's connector is gone"),
            }
        }
        Ok(out)
    }

    /// Today's date in the company's zone: the daily fetch's slot.
    async fn local_date(&self) -> Result<String, RunError> {
        let zone: chrono_tz::Tz = self
            .store
            .company()
            .await?
            .map(|c| c.time_zone.as_str().to_string())
            .unwrap_or_else(|| "UTC".into())
            .parse()
            .unwrap_or(chrono_tz::UTC);
        Ok(self.clock.now().with_timezone(&zone).date_naive().to_string())
    }

    fn log_skip(&self, c: &Connector, why: NotFetched, today: &str) {
        let mut skipped = self.skipped.lock().unwrap_or_else(PoisonError::into_inner);
        if skipped.get(&c.id).map(String::as_str) != Some(today) {
            skipped.insert(c.id, today.to_string());
            tracing::info!(connector = c.id, reason = %why, "who's-who lists not fetched");
        }
    }

    /// Fetches each reference list the source lists now, each read within the hourly limit and
    /// with the company key alone. Returns how many lists were kept. A source that fails is
    /// logged; the lists kept before stay.
    async fn fetch(&self, c: &Connector) -> Result<u32, RunError> {
        let Some(company_key) = self.store.company_key(c.id).await? else {
            tracing::info!(connector = c.id, "who's-who lists not fetched: no company key");
            return Ok(0);
        };
        let tools = match self.source.tools(&c.base_url, &company_key).await {
            Ok(tools) => tools,
            Err(e) => {
                tracing::warn!(connector = c.id, error = %e, "who's-who lists not fetched: the tools could not be listed");
                return Ok(0);
            }
        };
        let mut fetched = 0;
        for tool in tools.iter().filter(|t| t.reference && t.access == "read") {
            if reads_with(c, tool) != KeyKind::Company {
                tracing::info!(connector = c.id, tool = %tool.name, "who's-who list not fetched: it reads with people's keys");
                continue;
            }
            let now = self.clock.now();
            if !self.store.claim_read(c.id, FETCH_PURPOSE, now - Duration::hours(1), c.hourly_limit, now).await? {
                tracing::info!(connector = c.id, tool = %tool.name, limit = c.hourly_limit, "who's-who list not fetched: the hourly limit is spent");
                break;
            }
            let answer =
                self.source.call(&c.base_url, Some(&company_key), &ReadKey::Company, &tool.name, &json!({})).await;
            let records = match answer.map(records) {
                Ok(Some(records)) => records,
                Ok(None) => {
                    tracing::warn!(connector = c.id, tool = %tool.name, "who's-who list not kept: the answer holds no records");
                    continue;
                }
                Err(e) => {
                    tracing::warn!(connector = c.id, tool = %tool.name, error = %e, "who's-who list not fetched");
                    continue;
                }
            };
            let at = self.clock.now();
            let entries: Vec<ListEntry> =
                records.iter().map(|r| whoswho::keep_entry(c.id, &c.name, &tool.name, r, at)).collect();
            self.store.save_list(c.id, &tool.name, &entries, at).await?;
            fetched += 1;
        }
        Ok(fetched)
    }
}

/// Why a connector's lists are not fetched, as the log says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum NotFetched {
    #[error("the kill switch is on")]
    Killed,
    #[error("it has no company key")]
    NoCompanyKey,
    #[error("it reads with the acting-for header")]
    ActingFor,
    #[error("it reads with people's own keys")]
    OwnKeys,
}

/// Whether a connector's lists may be fetched at all: live, and reading with the company key alone.
fn may_fetch(c: &Connector) -> Result<(), NotFetched> {
    if c.killed {
        return Err(NotFetched::Killed);
    }
    if !c.has_company_key {
        return Err(NotFetched::NoCompanyKey);
    }
    match c.key_mode.key_kind() {
        KeyKind::Company => Ok(()),
        KeyKind::ActingFor => Err(NotFetched::ActingFor),
        KeyKind::OwnKey => Err(NotFetched::OwnKeys),
    }
}

/// How a reference tool reads: as the connector's tools do, ticked or not, unless an admin set
/// it to people's own keys.
fn reads_with(c: &Connector, tool: &ToolInfo) -> KeyKind {
    c.reads_with(&tool.name).unwrap_or_else(|| {
        if c.own_key_tools.contains(&tool.name) {
            KeyKind::OwnKey
        } else {
            c.key_mode.key_kind()
        }
    })
}

/// A list's records: `{"records": [...]}`, as the connector protocol answers a list, or a bare array.
fn records(answer: Value) -> Option<Vec<Value>> {
    match answer {
        Value::Array(list) => Some(list),
        Value::Object(mut o) => match o.remove("records") {
            Some(Value::Array(list)) => Some(list),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::source::{Freshness, KeyMode};
    use crate::kernel::DataLabel;

    fn connector() -> Connector {
        Connector {
            id: 1,
            name: "Acme ATS".into(),
            base_url: "http://x".into(),
            key_mode: KeyMode::Company,
            own_key_tools: vec![],
            ticked: vec!["list_leads".into()],
            acting: vec![],
            write_targets: vec![],
            label: DataLabel::Internal,
            admits_roles: vec![],
            keep_cards: true,
            facts: crate::cards::facts::FactLimits::DEFAULT,
            free_text: Freshness { soft_mins: 30, hard_mins: 720 },
            hourly_limit: 600,
            killed: false,
            has_company_key: true,
        }
    }

    #[test]
    fn a_refetch_slot_reads_back_its_id_and_a_daily_one_has_none() {
        let at = chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 12, 16, 9, 30, 0).unwrap();
        let slot = unknown_id_slot("+1 (415) 555-0142", at);
        assert_eq!(slot, "unknown +1 (415) 555-0142 2026-12-16T09");
        assert_eq!(id_of_unknown_id_slot(&slot), Some("+1 (415) 555-0142"));
        assert_eq!(id_of_unknown_id_slot("2026-12-16"), None);
    }

    fn tool(name: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: String::new(),
            access: "read".into(),
            bulk: true,
            parameters: Value::Null,
            reference: true,
        }
    }

    #[test]
    fn only_a_live_connector_reading_with_the_company_key_alone_is_fetched() {
        let may_fetch = |c: &Connector| super::may_fetch(c).map_err(|why| why.to_string());
        assert_eq!(may_fetch(&connector()), Ok(()));
        let mut c = connector();
        c.killed = true;
        assert_eq!(may_fetch(&c), Err("the kill switch is on".into()));
        let mut c = connector();
        c.has_company_key = false;
        assert_eq!(may_fetch(&c), Err("it has no company key".into()));
        let mut c = connector();
        c.key_mode = KeyMode::ActingFor;
        assert_eq!(may_fetch(&c), Err("it reads with the acting-for header".into()));
        c.key_mode = KeyMode::OwnKeys;
        assert_eq!(may_fetch(&c), Err("it reads with people's own keys".into()));
    }

    #[test]
    fn a_reference_tool_set_to_own_keys_reads_with_them_ticked_or_not() {
        let mut c = connector();
        assert_eq!(reads_with(&c, &tool("list_territories")), KeyKind::Company);
        c.own_key_tools = vec!["list_territories".into(), "list_leads".into()];
        assert_eq!(reads_with(&c, &tool("list_territories")), KeyKind::OwnKey, "not ticked");
        assert_eq!(reads_with(&c, &tool("list_leads")), KeyKind::OwnKey, "ticked");
        assert_eq!(reads_with(&c, &tool("list_team_members")), KeyKind::Company);
    }

    #[test]
    fn a_lists_records_come_as_the_protocol_answers_them() {
        assert_eq!(records(json!({"records": [{"id": "T-1"}]})), Some(vec![json!({"id": "T-1"})]));
        assert_eq!(records(json!([{"id": "T-1"}])), Some(vec![json!({"id": "T-1"})]));
        assert_eq!(records(json!({"id": "T-1"})), None);
        assert_eq!(records(json!({"records": "none"})), None);
    }
}
