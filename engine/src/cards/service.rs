//! Person memory's operations: keeping cards from reads made as a person, listing, pinning,
//! forgetting and refreshing them, the admin's switches, Prepare my day and the forgetting job.

use super::access::{decide, Decision, KeyKind, Reader};
use super::activation::{admit, rank_score, use_weight, Admission, Use, UseSummary, CARD_CAP};
use super::select::CardField;
use super::source::{keep_fields, Connector, KeyMode, ReadKey, RecordShape, Source, SourceError};
use super::store::{Card, CardUse, MyWorkQuery, NewCard, PrepareSetting};
use crate::clock::Clock;
use crate::org::{Person, PersonId, RoleSource};
use crate::store::{Actor, Store, StoreError};
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

pub const FORGET_DAYS: i64 = 30;
/// Prepare my day runs within this long after the chosen time, once per local day.
pub const PREPARE_WINDOW_MINS: i64 = 120;
/// The forgetting job runs from this hour in the company's zone.
pub const FORGETTING_HOUR: u32 = 2;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}")]
    Invalid(String),
    #[error("Something went wrong on our side; nothing was changed. Try again.")]
    Internal(String),
}

fn internal(e: StoreError) -> MemoryError {
    MemoryError::Internal(e.to_string())
}

/// One line of "What I'm working on".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardView {
    pub card: i64,
    pub kind: String,
    pub record_id: String,
    pub source: String,
    /// "lead · Acme ATS · read 2 h ago"
    pub line: String,
    pub fields: Vec<CardField>,
    /// Fields the last read from the source did not return: shown with their stored value, as
    /// unknown.
    pub not_returned: Vec<String>,
    pub pinned: bool,
    pub open_work: bool,
    pub class: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    pub name: String,
    pub before: String,
    pub after: String,
}

/// What Refresh found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefreshOutcome {
    Changed(Vec<FieldChange>),
    NoChange,
    /// Gone at the source: the card was removed.
    Gone(String),
    NotChecked(String),
}

impl RefreshOutcome {
    pub fn sentence(&self) -> String {
        match self {
            RefreshOutcome::Changed(changes) => format!(
                "changed: {}",
                changes
                    .iter()
                    .map(|c| format!("{} ({} → {})", c.name, c.before, c.after))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            RefreshOutcome::NoChange => "no change".to_string(),
            RefreshOutcome::Gone(source) => format!("no longer at {source}"),
            RefreshOutcome::NotChecked(why) => format!("not checked: {why}"),
        }
    }
}

/// Why a read was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadRefusal {
    Killed(String),
    Limit(String, u32),
    NeedsOwnKey(String),
    NoCompanyKey(String),
    /// The connector's toolset does not admit the person: they could not fetch it themselves.
    NotAdmitted(String),
    /// Whether they are admitted could not be decided; the sentence is already safe to show.
    Undecided(String),
}

impl std::fmt::Display for ReadRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadRefusal::Killed(s) => write!(f, "{s} is switched off"),
            ReadRefusal::Limit(s, n) => write!(f, "{s}'s hourly limit of {n} reads is spent"),
            ReadRefusal::NeedsOwnKey(s) => write!(f, "{s} reads with your own key, and you have not given one"),
            ReadRefusal::NoCompanyKey(s) => write!(f, "{s} has no company key"),
            ReadRefusal::NotAdmitted(s) => write!(f, "{s} does not admit your role"),
            ReadRefusal::Undecided(why) => write!(f, "{why}"),
        }
    }
}

pub fn age_words(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let mins = (now - at).num_minutes().max(0);
    match mins {
        0 => "just now".to_string(),
        1..=59 => format!("{mins} min ago"),
        60..=2879 => format!("{} h ago", mins / 60),
        _ => format!("{} days ago", mins / 1440),
    }
}

/// How a record comes to be kept: by a read, weighed by how many records it returned, or by the
/// person pinning back a record they forgot.
#[derive(Debug, Clone, Copy)]
enum Keeping {
    Read(f64),
    PinBack,
}

type DraftCache = Arc<std::sync::Mutex<std::collections::HashMap<(i64, String), (DateTime<Utc>, Vec<RecordShape>)>>>;

#[derive(Clone)]
pub struct PersonMemory {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    source: Arc<dyn Source>,
    models: Option<Arc<dyn crate::persona::model::Models>>,
    drafts: DraftCache,
}

/// A connector's setup sheet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sheet {
    pub connector: Connector,
    /// The read tools the source lists, or why they could not be listed.
    pub read_tools: Result<Vec<super::source::ToolInfo>, String>,
    pub shapes: Vec<RecordShape>,
    /// Drafts made in the last 10 minutes, not yet confirmed.
    pub drafts: Vec<RecordShape>,
    pub queries: Vec<(String, MyWorkQuery)>,
    pub roles: Vec<(i64, String)>,
}

/// Asking again for the same tools within this long answers the drafts already made.
pub const DRAFT_REUSE_MINS: i64 = 10;

impl PersonMemory {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, source: Arc<dyn Source>) -> Self {
        Self { store, clock, source, models: None, drafts: Default::default() }
    }

    /// Drafts record shapes with the configured model, falling back to plain rules.
    pub fn with_models(mut self, models: Arc<dyn crate::persona::model::Models>) -> Self {
        self.models = Some(models);
        self
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    fn actor(&self, person: Option<PersonId>) -> Actor {
        Actor { person, at: self.now() }
    }

    async fn connector(&self, id: i64) -> Result<Connector, MemoryError> {
        self.store
            .connector(id)
            .await
            .map_err(internal)?
            .ok_or_else(|| MemoryError::NotFound("There is no such connector".into()))
    }

    async fn role_slug(&self, person: &Person) -> Result<Option<String>, MemoryError> {
        let dir = self.store.directory().await.map_err(internal)?;
        let role = match person.department_role(&dir.teams) {
            RoleSource::Own(r) | RoleSource::FromTeam(r) => Some(r),
            RoleSource::None => None,
        };
        Ok(role.and_then(|r| dir.role(r)).map(|r| r.slug.as_str().to_string()))
    }

    async fn reader(&self, person: &Person) -> Result<Reader, MemoryError> {
        Ok(Reader { person: person.id, role: self.role_slug(person).await?, work_for: Some(person.id) })
    }

    /// The key a tool reads with now, for this person; or why no read may be made. Every read
    /// made as a person comes here, so a toolset that does not admit them reads nothing for them.
    async fn key_for(&self, c: &Connector, tool: &str, person: &Person) -> Result<(KeyKind, ReadKey), ReadRefusal> {
        let reader = self.reader(person).await.map_err(|e| {
            tracing::error!(error = ?e, "could not read the directory to decide a read");
            ReadRefusal::Undecided(e.to_string())
        })?;
        if !super::access::admits(&c.admits_roles, &reader) {
            return Err(ReadRefusal::NotAdmitted(c.name.clone()));
        }
        let kind = c.reads_with(tool).unwrap_or(c.key_mode.key_kind());
        let key = match kind {
            KeyKind::Company => ReadKey::Company,
            KeyKind::ActingFor => ReadKey::ActingFor(person.email.clone()),
            KeyKind::OwnKey => match self.store.person_key(c.id, person.id).await {
                Ok(Some(k)) => ReadKey::OwnKey(k),
                _ => return Err(ReadRefusal::NeedsOwnKey(c.name.clone())),
            },
        };
        Ok((kind, key))
    }

    /// Every read goes through the kill switch and the hourly limit.
    async fn call(
        &self,
        c: &Connector,
        key: &ReadKey,
        tool: &str,
        args: &Value,
        purpose: &str,
    ) -> Result<Result<Value, SourceError>, ReadRefusal> {
        if c.killed {
            return Err(ReadRefusal::Killed(c.name.clone()));
        }
        let company_key = self.store.company_key(c.id).await.ok().flatten();
        if !matches!(key, ReadKey::OwnKey(_)) && company_key.is_none() {
            return Err(ReadRefusal::NoCompanyKey(c.name.clone()));
        }
        let now = self.now();
        let claimed = self.store.claim_read(c.id, purpose, now - Duration::hours(1), c.hourly_limit, now).await;
        if !matches!(claimed, Ok(true)) {
            return Err(ReadRefusal::Limit(c.name.clone(), c.hourly_limit));
        }
        Ok(self.source.call(&c.base_url, company_key.as_deref(), key, tool, args).await)
    }

    /// Reads with a tool as the person and keeps what its confirmed shape keeps. Returns how many
    /// records were kept; a tool with no confirmed shape keeps nothing.
    pub async fn read_as(
        &self,
        person: &Person,
        connector: i64,
        tool: &str,
        args: &Value,
        purpose: &str,
    ) -> Result<usize, String> {
        let c = self.connector(connector).await.map_err(|e| e.to_string())?;
        if c.reads_with(tool).is_none() {
            return Err(format!("{tool} is not a ticked read tool of {}", c.name));
        }
        let (kind, key) = self.key_for(&c, tool, person).await.map_err(|r| r.to_string())?;
        let value = match self.call(&c, &key, tool, args, purpose).await.map_err(|r| r.to_string())? {
            Ok(v) => v,
            Err(e) => return Err(format!("{}: {e}", c.name)),
        };
        let shapes = self.store.shapes(c.id).await.map_err(|e| e.to_string())?;
        let Some(shape) = shapes.into_iter().find(|s| s.tool == tool && s.confirmed) else { return Ok(0) };
        let records: Vec<Value> = match value.get("records").and_then(Value::as_array) {
            Some(list) => list.clone(),
            None => vec![value],
        };
        let weight = use_weight(records.len());
        let mut kept = 0;
        for r in &records {
            if self.keep(person, &c, &shape, kind, r, Keeping::Read(weight)).await.map_err(|e| e.to_string())? {
                kept += 1;
            }
        }
        Ok(kept)
    }

    async fn keep(
        &self,
        person: &Person,
        c: &Connector,
        shape: &RecordShape,
        kind: KeyKind,
        record: &Value,
        how: Keeping,
    ) -> Result<bool, MemoryError> {
        let (weight, pin_back) = match how {
            Keeping::Read(weight) => (weight, false),
            Keeping::PinBack => (1.0, true),
        };
        if !c.keep_cards {
            return Ok(false);
        }
        let Some(read) = keep_fields(shape, record) else { return Ok(false) };
        let record_id = read.id;
        let now = self.now();
        let read_as = kind.is_personal().then_some(person.id);
        let open_when = self.store.open_when(c.id, &shape.tool).await.map_err(internal)?;
        let card = self
            .store
            .upsert_card(&NewCard {
                connector: c.id,
                tool: shape.tool.clone(),
                kind: shape.kind.clone(),
                record_id: record_id.clone(),
                version: read.version,
                fields: read.fields,
                missing: read.missing,
                read_with: kind,
                read_as,
                label_when_read: c.label,
                open_when,
                read_at: now,
            })
            .await
            .map_err(internal)?;
        let existing = self.store.card_use(person.id, card.id).await.map_err(internal)?;
        let is_new = existing.is_none();
        if is_new && !pin_back {
            let forgotten =
                self.store.forgotten_until(person.id, c.id, &shape.kind, &record_id).await.map_err(internal)?;
            if forgotten.is_some_and(|until| until > now) {
                return Ok(false);
            }
        }
        let mut u = existing.unwrap_or(CardUse {
            person: person.id,
            card: card.id,
            summary: UseSummary::default(),
            pinned: false,
            last_use: now,
        });
        u.summary.record(Use { at: now, weight });
        u.last_use = now;
        u.pinned |= pin_back;
        // A pinned card never needs to outrank anything: pins sit above the cap's contest.
        if is_new && !u.pinned {
            // A new card gets in only when it outranks the weakest kept one; pinned cards stay.
            let new_score = rank_score(u.summary.activation(now), u.pinned, card.open_work);
            let others: Vec<(Card, CardUse)> =
                self.store.kept(person.id).await.map_err(internal)?.into_iter().filter(|(_, u)| !u.pinned).collect();
            let (kept, pinned) = self.store.counts(person.id).await.map_err(internal)?;
            let room = (CARD_CAP as u32).saturating_sub(pinned) as usize;
            let scores: Vec<f64> =
                others.iter().map(|(c, u)| rank_score(u.summary.activation(now), u.pinned, c.open_work)).collect();
            debug_assert_eq!(others.len() as u32 + pinned, kept);
            match admit(&scores, room, new_score) {
                Admission::Admit => {}
                Admission::AdmitEvicting(i) => self
                    .store
                    .remove_use(person.id, others[i].0.id, "outranked by a new card", self.actor(None))
                    .await
                    .map_err(internal)?,
                Admission::Refuse => return Ok(false),
            }
        }
        self.store.save_use(&u).await.map_err(internal)?;
        Ok(true)
    }

    /// Decides each of the person's kept cards now, for them and (in a run) the agent, without
    /// carrying anything out.
    async fn decided(
        &self,
        person: &Person,
        agent: Option<&super::access::RunningAgent>,
    ) -> Result<Vec<(Card, CardUse, Connector, Decision)>, MemoryError> {
        let reader = self.reader(person).await?;
        let connectors = self.store.connectors().await.map_err(internal)?;
        let mut out = Vec::new();
        for (card, u) in self.store.kept(person.id).await.map_err(internal)? {
            let Some(c) = connectors.iter().find(|c| c.id == card.connector) else { continue };
            let decision = decide(&card.origin(), &c.toolset_now(&card.tool), &reader, agent);
            out.push((card, u, c.clone(), decision));
        }
        Ok(out)
    }

    /// As `decided`, and carries out what must go: a card no tool may keep any more is removed;
    /// a use whose person is no longer admitted goes. Returns what may be shown, with its
    /// connector and class.
    async fn settle(
        &self,
        person: &Person,
        agent: Option<&super::access::RunningAgent>,
    ) -> Result<Vec<(Card, CardUse, Connector, super::access::DataLabel)>, MemoryError> {
        let mut shown = Vec::new();
        for (card, u, c, decision) in self.decided(person, agent).await? {
            match decision {
                Decision::Remove => self
                    .store
                    .remove_card(card.id, &removal_reason(&c, &card), self.actor(None))
                    .await
                    .map_err(internal)?,
                Decision::DropUse => self
                    .store
                    .remove_use(person.id, card.id, &format!("no longer admitted to {}", c.name), self.actor(None))
                    .await
                    .map_err(internal)?,
                Decision::Hide(_) => {}
                Decision::Show(class) => shown.push((card, u, c, class)),
            }
        }
        Ok(shown)
    }

    /// "What I'm working on": the cards kept for the person's own work, strongest first, each
    /// decided now. Cards and uses that must go are removed here too.
    pub async fn my_cards(&self, person: &Person) -> Result<Vec<CardView>, MemoryError> {
        let shown = self.settle(person, None).await?;
        Ok(self.views(shown))
    }

    /// What `my_cards` would show, changing nothing: a card or use that must go is left out here
    /// and left in place for the next read that may write. For the read-only command line.
    pub async fn my_cards_read_only(&self, person: &Person) -> Result<Vec<CardView>, MemoryError> {
        let shown = self
            .decided(person, None)
            .await?
            .into_iter()
            .filter_map(|(card, u, c, d)| match d {
                Decision::Show(class) => Some((card, u, c, class)),
                _ => None,
            })
            .collect();
        Ok(self.views(shown))
    }

    fn views(&self, shown: Vec<(Card, CardUse, Connector, super::access::DataLabel)>) -> Vec<CardView> {
        let now = self.now();
        let mut out: Vec<(f64, CardView)> = shown
            .into_iter()
            .map(|(card, u, c, class)| {
                let score = rank_score(u.summary.activation(now), u.pinned, card.open_work);
                let view = CardView {
                    card: card.id,
                    line: format!("{} · {} · read {}", card.kind, c.name, age_words(card.read_at, now)),
                    kind: card.kind,
                    record_id: card.record_id,
                    source: c.name,
                    fields: card.fields,
                    not_returned: card.not_returned,
                    pinned: u.pinned,
                    open_work: card.open_work,
                    class: class.as_str().to_string(),
                };
                (score, view)
            })
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.card.cmp(&b.1.card)));
        out.into_iter().map(|(_, v)| v).collect()
    }

    /// The cards for a question in a run acting for `person`: each decided now for the person and
    /// the agent, ranked by the person's use, then selected (at most 25, made up to 10 with pinned
    /// and open work; free text only when the question names it).
    pub async fn select_for(
        &self,
        person: &Person,
        question: &str,
        agent: Option<&super::access::RunningAgent>,
    ) -> Result<super::select::Selection, MemoryError> {
        let now = self.now();
        let shown = self.settle(person, agent).await?;
        let candidates: Vec<_> = shown
            .iter()
            .map(|(card, u, _, _)| super::select::Candidate {
                card_id: card.id,
                score: rank_score(u.summary.activation(now), u.pinned, card.open_work),
                record_id: card.record_id.clone(),
                fields: card.fields.clone(),
                pinned: u.pinned,
                open_work: card.open_work,
            })
            .collect();
        let mut selection = super::select::select_cards(question, &candidates);
        for s in &mut selection.cards {
            if let Some((card, _, c, _)) = shown.iter().find(|(card, ..)| card.id == s.card_id) {
                s.freshness = c.freshness(card.read_at, now, s.fields.iter().any(|f| f.free_text));
            }
        }
        Ok(selection)
    }

    /// A company agent as the access decision sees it: the toolsets it holds and its clearance.
    pub async fn running_agent(&self, agent: crate::org::AgentId) -> Result<super::access::RunningAgent, MemoryError> {
        let (cleared_for, holds_toolsets) = self
            .store
            .agent_access(agent)
            .await
            .map_err(internal)?
            .ok_or_else(|| MemoryError::NotFound("There is no such agent".into()))?;
        Ok(super::access::RunningAgent { holds_toolsets, cleared_for })
    }

    /// Per company agent, in words: "Holds Acme ATS · cleared for internal data".
    pub async fn access_lines(&self) -> Result<Vec<(i64, String)>, MemoryError> {
        let dir = self.store.directory().await.map_err(internal)?;
        let connectors = self.store.connectors().await.map_err(internal)?;
        let mut out = Vec::new();
        for a in &dir.agents {
            let r = self.running_agent(a.id).await?;
            let names: Vec<String> =
                connectors.iter().filter(|c| r.holds_toolsets.contains(&c.id)).map(|c| c.name.clone()).collect();
            let holds = if names.is_empty() { "no toolsets".to_string() } else { names.join(", ") };
            out.push((a.id.0, format!("Holds {holds} · cleared for {} data", r.cleared_for.as_str())));
        }
        Ok(out)
    }

    /// An admin, or the agent's owner, sets what it holds and what it is cleared for.
    pub async fn set_agent_access(
        &self,
        by: &Person,
        agent: crate::org::AgentId,
        clearance: super::access::DataLabel,
        toolsets: &[i64],
    ) -> Result<(), MemoryError> {
        let a = self
            .store
            .agent(agent)
            .await
            .map_err(internal)?
            .ok_or_else(|| MemoryError::NotFound("There is no such agent".into()))?;
        if !(by.is_admin || a.owner == by.id) {
            return Err(MemoryError::NotAllowed("Only an admin or the agent's owner can change what it holds".into()));
        }
        let actor = Actor { person: Some(by.id), at: self.now() };
        self.store.set_agent_access(agent, clearance, toolsets, actor).await.map_err(internal)
    }

    /// Prepare my day's form: checks the time and the zone before writing either.
    pub async fn save_prepare(
        &self,
        person: &Person,
        enabled: bool,
        at_time: &str,
        zone: &str,
    ) -> Result<(), MemoryError> {
        NaiveTime::parse_from_str(at_time.trim(), "%H:%M")
            .map_err(|_| MemoryError::Invalid("Give the time as HH:MM, for example 08:30".to_string()))?;
        if !zone.trim().is_empty() {
            crate::org::TimeZoneName::parse(zone).map_err(|e| MemoryError::Invalid(e.to_string()))?;
        }
        self.set_time_zone(person, zone).await?;
        self.set_prepare(person, enabled, at_time).await
    }

    /// The person's own zone, if they set one.
    pub async fn own_zone(&self, person: &Person) -> Result<Option<String>, MemoryError> {
        self.store.person_time_zone(person.id).await.map_err(internal)
    }

    async fn own_use(&self, person: &Person, card: i64) -> Result<(Card, CardUse), MemoryError> {
        let not_yours = || MemoryError::NotFound("You keep no such card".to_string());
        let u = self.store.card_use(person.id, card).await.map_err(internal)?.ok_or_else(not_yours)?;
        let c = self.store.card(card).await.map_err(internal)?.ok_or_else(not_yours)?;
        Ok((c, u))
    }

    pub async fn pin(&self, person: &Person, card: i64, pinned: bool) -> Result<(), MemoryError> {
        let (_, mut u) = self.own_use(person, card).await?;
        u.pinned = pinned;
        self.store.save_use(&u).await.map_err(internal)
    }

    /// Removes the card from the person's memory and keeps the record out for 30 days.
    pub async fn forget(&self, person: &Person, card: i64) -> Result<(), MemoryError> {
        let (c, _) = self.own_use(person, card).await?;
        let actor = self.actor(Some(person.id));
        self.store.forget(person.id, &c, self.now() + Duration::days(FORGET_DAYS), actor).await.map_err(internal)
    }

    /// Reads the card again from its source, as the person and with the key it was kept with.
    pub async fn refresh(&self, person: &Person, card: i64) -> Result<RefreshOutcome, MemoryError> {
        let (card, _) = self.own_use(person, card).await?;
        let c = self.connector(card.connector).await?;
        let shape = self.store.shapes(c.id).await.map_err(internal)?.into_iter().find(|s| s.tool == card.tool);
        let Some(shape) = shape else {
            return Ok(RefreshOutcome::NotChecked(format!("{} no longer has a shape for {}", c.name, card.tool)));
        };
        let get_tool = shape.get_tool.clone();
        let now_kind = c.reads_with(&get_tool);
        if now_kind != Some(card.read_with) {
            return Ok(RefreshOutcome::NotChecked(format!(
                "reading it again would need another key than the one it was kept with ({})",
                card.read_with.as_str().replace('_', " ")
            )));
        }
        if card.read_with.is_personal() && card.read_as != Some(person.id) {
            return Ok(RefreshOutcome::NotChecked("it was read as someone else".into()));
        }
        let key = match self.key_for(&c, &get_tool, person).await {
            Ok((_, k)) => k,
            Err(r) => return Ok(RefreshOutcome::NotChecked(r.to_string())),
        };
        let args = serde_json::json!({ shape.id_field.clone(): card.record_id });
        let result = match self.call(&c, &key, &get_tool, &args, "refresh").await {
            Ok(r) => r,
            Err(refusal) => return Ok(RefreshOutcome::NotChecked(refusal.to_string())),
        };
        match result {
            Ok(record) => {
                let Some(read) = keep_fields(&shape, &record) else {
                    return Ok(RefreshOutcome::NotChecked(format!("{} answered a record without its id", c.name)));
                };
                // Only what the source returned can change; a field it left out is unknown.
                let changes: Vec<FieldChange> = read
                    .fields
                    .iter()
                    .filter_map(|f| {
                        let before =
                            card.fields.iter().find(|o| o.name == f.name).map(|o| o.value.clone()).unwrap_or_default();
                        (before != f.value).then(|| FieldChange {
                            name: f.name.clone(),
                            before,
                            after: f.value.clone(),
                        })
                    })
                    .collect();
                let open_when = self.store.open_when(c.id, &shape.tool).await.map_err(internal)?;
                self.store
                    .upsert_card(&NewCard {
                        connector: c.id,
                        tool: card.tool.clone(),
                        kind: card.kind.clone(),
                        record_id: card.record_id.clone(),
                        version: read.version,
                        open_when,
                        fields: read.fields,
                        missing: read.missing,
                        read_with: card.read_with,
                        read_as: card.read_as,
                        label_when_read: card.label_when_read.max(c.label),
                        read_at: self.now(),
                    })
                    .await
                    .map_err(internal)?;
                Ok(if changes.is_empty() { RefreshOutcome::NoChange } else { RefreshOutcome::Changed(changes) })
            }
            Err(SourceError::NotFound) => {
                let reason = format!("gone at {}", c.name);
                self.store.remove_card(card.id, &reason, self.actor(Some(person.id))).await.map_err(internal)?;
                Ok(RefreshOutcome::Gone(c.name.clone()))
            }
            Err(SourceError::Forbidden) => {
                // They lost access at the source: their place on the card goes. The record may
                // well still exist, so nothing says it is gone.
                let reason = format!("{} refused their read", c.name);
                self.store
                    .remove_use(person.id, card.id, &reason, self.actor(Some(person.id)))
                    .await
                    .map_err(internal)?;
                Ok(RefreshOutcome::NotChecked(refused_read(&c)))
            }
            // A source that is down never removes anything.
            Err(e) => Ok(RefreshOutcome::NotChecked(format!("{}: {e}", c.name))),
        }
    }

    /// A new connector, read with the company key until an admin says otherwise. The key is
    /// checked against the source's tool list, then stored and never shown again.
    pub async fn create_connector(
        &self,
        admin: &Person,
        name: &str,
        base_url: &str,
        company_key: &str,
    ) -> Result<Connector, MemoryError> {
        Self::admin(admin)?;
        let (name, base_url, key) = (name.trim(), base_url.trim().trim_end_matches('/'), company_key.trim());
        if name.is_empty() || name.chars().count() > 60 {
            return Err(MemoryError::Invalid("Give the connector a name of at most 60 characters".into()));
        }
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(MemoryError::Invalid("The base URL starts with http:// or https://".into()));
        }
        if key.is_empty() {
            return Err(MemoryError::Invalid("Enter the company key; it is stored and never shown again".into()));
        }
        match self.source.tools(base_url, key).await {
            Ok(_) => {}
            Err(SourceError::Unauthorized) | Err(SourceError::Forbidden) => {
                return Err(MemoryError::Invalid(format!("{base_url} refused that key; nothing was saved")))
            }
            Err(e) => return Err(MemoryError::Invalid(format!("{base_url}: {e}; nothing was saved"))),
        }
        let new = super::store::NewConnector {
            name: name.into(),
            base_url: base_url.into(),
            key_mode: KeyMode::Company,
            ticked: vec![],
            label: super::access::DataLabel::Internal,
            admits_roles: vec![],
            keep_cards: true,
            structured: super::source::Freshness { soft_mins: 60, hard_mins: 24 * 60 },
            free_text: super::source::Freshness { soft_mins: 30, hard_mins: 12 * 60 },
            hourly_limit: 600,
        };
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.create_connector(&new, Some(key), actor).await.map_err(|e| match e {
            StoreError::Duplicate(_) => MemoryError::Invalid(format!("There is already a connector called {name}")),
            e => internal(e),
        })
    }

    /// The connectors that read with people's own keys, and whether this person gave theirs.
    pub async fn own_key_connectors(&self, person: &Person) -> Result<Vec<(i64, String, bool)>, MemoryError> {
        let mut out = Vec::new();
        for c in self.store.connectors().await.map_err(internal)? {
            if c.key_kinds_in_use().contains(&KeyKind::OwnKey) {
                let has = self.store.person_key(c.id, person.id).await.map_err(internal)?.is_some();
                out.push((c.id, c.name, has));
            }
        }
        Ok(out)
    }

    /// A person's own key for a connector: stored, never shown again.
    pub async fn set_own_key(&self, person: &Person, connector: i64, key: &str) -> Result<(), MemoryError> {
        let c = self.connector(connector).await?;
        let key = key.trim();
        if key.is_empty() {
            return Err(MemoryError::Invalid(format!("Enter your key for {}", c.name)));
        }
        let actor = Actor { person: Some(person.id), at: self.now() };
        self.store.set_person_key(c.id, person.id, key, actor).await.map_err(internal)
    }

    pub async fn connectors(&self, admin: &Person) -> Result<Vec<Connector>, MemoryError> {
        Self::admin(admin)?;
        self.store.connectors().await.map_err(internal)
    }

    fn draft_key(c: &Connector) -> (i64, String) {
        let mut t = c.ticked.clone();
        t.sort();
        (c.id, t.join(","))
    }

    fn fresh_drafts(&self, c: &Connector) -> Option<Vec<RecordShape>> {
        let now = self.now();
        let cache = self.drafts.lock().ok()?;
        cache
            .get(&Self::draft_key(c))
            .filter(|(at, _)| now - *at < Duration::minutes(DRAFT_REUSE_MINS))
            .map(|(_, d)| d.clone())
    }

    pub async fn sheet(&self, admin: &Person, id: i64) -> Result<Sheet, MemoryError> {
        Self::admin(admin)?;
        let c = self.connector(id).await?;
        let read_tools = match self.store.company_key(id).await.map_err(internal)? {
            Some(key) => self
                .source
                .tools(&c.base_url, &key)
                .await
                .map(|t| t.into_iter().filter(|t| t.access == "read").collect())
                .map_err(|e| format!("{}: {e}", c.name)),
            None => Err(format!("{} has no company key", c.name)),
        };
        let dir = self.store.directory().await.map_err(internal)?;
        let mut queries = Vec::new();
        for r in &dir.roles {
            for q in self.store.my_work_queries(r.id).await.map_err(internal)? {
                if q.connector == id {
                    queries.push((r.name.clone(), q));
                }
            }
        }
        Ok(Sheet {
            shapes: self.store.shapes(id).await.map_err(internal)?,
            drafts: self.fresh_drafts(&c).unwrap_or_default(),
            roles: dir.roles.iter().map(|r| (r.id.0, r.name.clone())).collect(),
            connector: c,
            read_tools,
            queries,
        })
    }

    /// Saves the sheet's settings. Moving the key mode or turning Keep cards off removes what
    /// must go at once; the returned sentence says how much.
    pub async fn save_settings(&self, admin: &Person, new: &Connector) -> Result<String, MemoryError> {
        Self::admin(admin)?;
        let old = self.connector(new.id).await?;
        if new.structured.soft_mins > new.structured.hard_mins || new.free_text.soft_mins > new.free_text.hard_mins {
            return Err(MemoryError::Invalid("A soft limit cannot be longer than its hard limit".to_string()));
        }
        if new.hourly_limit == 0 {
            return Err(MemoryError::Invalid("The hourly limit must be at least 1 read".to_string()));
        }
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.update_connector(new, actor).await.map_err(internal)?;
        let mut removed = 0;
        if old.key_mode != new.key_mode || old.own_key_tools != new.own_key_tools || old.ticked != new.ticked {
            removed +=
                self.store.set_key_mode(new.id, new.key_mode, &new.own_key_tools, actor).await.map_err(internal)?;
        }
        if old.keep_cards != new.keep_cards {
            removed += self.store.set_keep_cards(new.id, new.keep_cards, actor).await.map_err(internal)?;
        }
        if old.killed != new.killed {
            self.store.set_killed(new.id, new.killed, actor).await.map_err(internal)?;
        }
        Ok(match removed {
            0 => format!("Saved {}", new.name),
            n => format!("Saved {}; {n} card{} removed at once", new.name, if n == 1 { " was" } else { "s were" }),
        })
    }

    /// Calls each ticked read tool once with the company key and drafts what it returns. Returns
    /// the drafts and whether they were the ones already made in the last 10 minutes.
    pub async fn draft_shapes(&self, admin: &Person, id: i64) -> Result<(Vec<RecordShape>, bool), MemoryError> {
        Self::admin(admin)?;
        let c = self.connector(id).await?;
        if let Some(d) = self.fresh_drafts(&c) {
            return Ok((d, true));
        }
        let listed = match self.store.company_key(id).await.map_err(internal)? {
            Some(key) => self.source.tools(&c.base_url, &key).await.unwrap_or_default(),
            None => Vec::new(),
        };
        let mut ticked: Vec<&String> = c.ticked.iter().collect();
        // Lists first, so a get tool can be sampled with an id a list returned.
        ticked.sort_by_key(|t| !(t.starts_with("list_") || t.starts_with("search_")));
        let mut ids: std::collections::HashMap<String, String> = Default::default();
        let mut drafts = Vec::new();
        for tool in ticked {
            let info = listed.iter().find(|t| &t.name == tool);
            let required: Vec<String> = info
                .and_then(|t| t.parameters.as_object())
                .map(|p| {
                    p.iter()
                        .filter(|(_, v)| v.get("required").and_then(Value::as_bool) == Some(true))
                        .map(|(k, _)| k.clone())
                        .collect()
                })
                .unwrap_or_default();
            let mut args = serde_json::Map::new();
            let kind = super::draft::kind_of(tool);
            for r in &required {
                let v = match r.as_str() {
                    "id" => match ids.get(&kind) {
                        Some(id) => id.clone(),
                        None => continue,
                    },
                    _ => "a".to_string(),
                };
                args.insert(r.clone(), Value::String(v));
            }
            if required.iter().any(|r| !args.contains_key(r)) {
                continue;
            }
            let sample = match self.call(&c, &ReadKey::Company, tool, &Value::Object(args), "draft").await {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    tracing::info!(tool, error = %e, "no sample for a draft");
                    continue;
                }
                Err(refusal) => return Err(MemoryError::Invalid(refusal.to_string())),
            };
            let Some(shape) = self.draft_one(&c, tool, &sample).await else { continue };
            if let Some(rec) = super::draft::first_record(&sample) {
                if let Some(id) = rec.get(&shape.id_field).and_then(Value::as_str) {
                    ids.insert(shape.kind.clone(), id.to_string());
                }
            }
            drafts.push(shape);
        }
        if let Ok(mut cache) = self.drafts.lock() {
            cache.insert(Self::draft_key(&c), (self.now(), drafts.clone()));
        }
        Ok((drafts, false))
    }

    async fn draft_one(&self, c: &Connector, tool: &str, sample: &Value) -> Option<RecordShape> {
        use crate::persona::model::ModelChoice;
        if let Some(models) = &self.models {
            if let ModelChoice::Use(m) = models.resolve("cheap") {
                match m.chat(super::draft::DRAFT_SYSTEM, &super::draft::draft_prompt(tool, sample)).await {
                    Ok(reply) => {
                        if let Some(s) = super::draft::read_model_draft(&reply, c.id, tool, &c.ticked, sample) {
                            return Some(s);
                        }
                        tracing::info!(tool, "the model's draft was unusable; drafting by rules");
                    }
                    Err(e) => tracing::warn!(tool, error = %e, "the draft model failed; drafting by rules"),
                }
            }
        }
        super::draft::draft_by_rules(c.id, tool, &c.ticked, sample)
    }

    /// An admin confirms (or edits, then confirms) a shape.
    pub async fn confirm_shape(&self, admin: &Person, shape: &RecordShape) -> Result<(), MemoryError> {
        Self::admin(admin)?;
        let c = self.connector(shape.connector).await?;
        if c.reads_with(&shape.tool).is_none() {
            return Err(MemoryError::Invalid(format!("{} is not a ticked read tool of {}", shape.tool, c.name)));
        }
        if shape.kind.trim().is_empty() || shape.id_field.trim().is_empty() || shape.fields.is_empty() {
            return Err(MemoryError::Invalid(
                "A shape needs a kind, an id field and at least one field to keep".into(),
            ));
        }
        let open = self.store.open_when(c.id, &shape.tool).await.map_err(internal)?;
        let confirmed = RecordShape { confirmed: true, ..shape.clone() };
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.save_shape(&confirmed, open.as_ref(), actor).await.map_err(internal)
    }

    /// A role's "my work" query, checked when saved (and again each time it runs).
    pub async fn add_query(
        &self,
        admin: &Person,
        role: crate::org::RoleId,
        connector: i64,
        tool: &str,
        arguments: &str,
        label: &str,
    ) -> Result<MyWorkQuery, MemoryError> {
        Self::admin(admin)?;
        let c = self.connector(connector).await?;
        if c.killed {
            return Err(MemoryError::Invalid(format!(
                "{} is switched off; a my-work query needs a live connector",
                c.name
            )));
        }
        if c.reads_with(tool).is_none() {
            return Err(MemoryError::Invalid(format!("{tool} is not a ticked read tool of {}", c.name)));
        }
        let parsed: Value = serde_json::from_str(arguments.trim()).map_err(|_| {
            MemoryError::Invalid("The arguments must be a JSON object, such as {\"owner\": \"{me}\"}".into())
        })?;
        if !parsed.is_object() {
            return Err(MemoryError::Invalid(
                "The arguments must be a JSON object, such as {\"owner\": \"{me}\"}".into(),
            ));
        }
        let label = label.trim();
        if label.is_empty() || label.chars().count() > 80 {
            return Err(MemoryError::Invalid("Give the query a name of at most 80 characters".into()));
        }
        let dir = self.store.directory().await.map_err(internal)?;
        if dir.role(role).is_none() {
            return Err(MemoryError::NotFound("There is no such role".into()));
        }
        let q = MyWorkQuery {
            id: 0,
            role,
            connector,
            tool: tool.into(),
            arguments: parsed.to_string(),
            label: label.into(),
        };
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.add_my_work_query(&q, actor).await.map_err(internal)
    }

    fn admin(person: &Person) -> Result<(), MemoryError> {
        if person.is_admin {
            Ok(())
        } else {
            Err(MemoryError::NotAllowed("Only an admin can change a connector".to_string()))
        }
    }

    /// Turning Keep cards off removes the connector's cards at once.
    pub async fn set_keep_cards(&self, admin: &Person, connector: i64, on: bool) -> Result<u32, MemoryError> {
        Self::admin(admin)?;
        self.connector(connector).await?;
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.set_keep_cards(connector, on, actor).await.map_err(internal)
    }

    pub async fn set_key_mode(
        &self,
        admin: &Person,
        connector: i64,
        mode: KeyMode,
        own_key_tools: &[String],
    ) -> Result<u32, MemoryError> {
        Self::admin(admin)?;
        self.connector(connector).await?;
        let actor = Actor { person: Some(admin.id), at: self.now() };
        self.store.set_key_mode(connector, mode, own_key_tools, actor).await.map_err(internal)
    }

    /// What an admin sees on a person's panel: how much is kept, never what it says.
    pub async fn counts_line(&self, admin: &Person, person: PersonId) -> Result<String, MemoryError> {
        if !admin.is_admin {
            return Err(MemoryError::NotAllowed("Only an admin sees these counts".to_string()));
        }
        // Counted as of now: uses the person lost access to are gone before they are counted.
        if let Some(p) = self.store.person(person).await.map_err(internal)? {
            self.settle(&p, None).await?;
        }
        let (kept, pinned) = self.store.counts(person).await.map_err(internal)?;
        Ok(format!(
            "Memory: {kept} record{} kept ({pinned} pinned), 0 lessons in use. What they say is theirs alone.",
            if kept == 1 { "" } else { "s" }
        ))
    }

    /// For the CLI: "Alice Chen has 12 cards kept (1 pinned) and 1 list. What they say is theirs
    /// alone." It changes nothing: cards and uses that must go are not counted, and are left in
    /// place for the next read that may write.
    pub async fn counts_sentence(&self, admin: &Person, person: &Person) -> Result<String, MemoryError> {
        if !admin.is_admin && admin.id != person.id {
            return Err(MemoryError::NotAllowed("Only an admin sees another person's counts".to_string()));
        }
        let staying: Vec<_> = self
            .decided(person, None)
            .await?
            .into_iter()
            .filter(|(.., d)| !matches!(d, Decision::Remove | Decision::DropUse))
            .collect();
        let (kept, pinned) = (staying.len(), staying.iter().filter(|(_, u, ..)| u.pinned).count());
        let lists = match self.role_id(person).await? {
            Some(r) => self.store.my_work_queries(r).await.map_err(internal)?.len(),
            None => 0,
        };
        Ok(format!(
            "{} has {kept} card{} kept ({pinned} pinned) and {lists} list{}. What they say is theirs alone.",
            person.name,
            if kept == 1 { "" } else { "s" },
            if lists == 1 { "" } else { "s" }
        ))
    }

    async fn role_id(&self, person: &Person) -> Result<Option<crate::org::RoleId>, MemoryError> {
        let dir = self.store.directory().await.map_err(internal)?;
        Ok(match person.department_role(&dir.teams) {
            RoleSource::Own(r) | RoleSource::FromTeam(r) => Some(r),
            RoleSource::None => None,
        })
    }

    /// The zone Prepare my day reads its time in: the person's own, else the company's.
    pub async fn zone_of(&self, person: PersonId) -> Result<chrono_tz::Tz, MemoryError> {
        let own = self.store.person_time_zone(person).await.map_err(internal)?;
        let company = self.store.company().await.map_err(internal)?.map(|c| c.time_zone.as_str().to_string());
        let name = own.or(company).unwrap_or_else(|| "UTC".to_string());
        name.parse().map_err(|_| MemoryError::Internal(format!("unknown zone {name}")))
    }

    /// A person's own zone; empty means the company's.
    pub async fn set_time_zone(&self, person: &Person, zone: &str) -> Result<(), MemoryError> {
        let zone = zone.trim();
        let parsed = if zone.is_empty() {
            None
        } else {
            Some(crate::org::TimeZoneName::parse(zone).map_err(|e| MemoryError::Invalid(e.to_string()))?)
        };
        let actor = Actor { person: Some(person.id), at: self.now() };
        self.store.set_person_time_zone(person.id, parsed.as_ref().map(|z| z.as_str()), actor).await.map_err(internal)
    }

    /// "On: at 08:30 your time (Asia/Kolkata)", or "Off".
    pub async fn prepare_status(&self, person: &Person) -> Result<(PrepareSetting, String), MemoryError> {
        let s = self.store.prepare_setting(person.id).await.map_err(internal)?;
        let zone = self.zone_of(person.id).await?;
        let line = if s.enabled {
            format!("On: at {} your time ({})", s.at_time, zone.name())
        } else {
            format!("Off. When on, it runs at {} your time ({}).", s.at_time, zone.name())
        };
        Ok((s, line))
    }

    pub async fn set_prepare(&self, person: &Person, enabled: bool, at_time: &str) -> Result<(), MemoryError> {
        let t = NaiveTime::parse_from_str(at_time.trim(), "%H:%M")
            .map_err(|_| MemoryError::Invalid("Give the time as HH:MM, for example 08:30".to_string()))?;
        let mut s = self.store.prepare_setting(person.id).await.map_err(internal)?;
        s.enabled = enabled;
        s.at_time = t.format("%H:%M").to_string();
        self.store.save_prepare_setting(person.id, &s).await.map_err(internal)
    }

    /// Runs the role's "my work" queries for everyone whose chosen local time has come today (and
    /// is less than two hours past), once per local day. Returns (person, records kept) for each run.
    pub async fn prepare_due(&self) -> Result<Vec<(PersonId, usize)>, MemoryError> {
        let now = self.now();
        let mut ran = Vec::new();
        for (pid, s) in self.store.prepare_enabled().await.map_err(internal)? {
            let zone = self.zone_of(pid).await?;
            let Some(due) = due_today(&s, zone, now) else { continue };
            let Some(person) = self.store.person(pid).await.map_err(internal)? else { continue };
            // Claimed before it runs, so of several servers only one prepares the day; a query
            // that fails is logged and skipped, not run again by another server.
            if !self.store.claim_prepare(pid, &due.to_string()).await.map_err(internal)? {
                continue;
            }
            let mut kept = 0;
            if let Some(role) = self.role_id(&person).await? {
                for q in self.store.my_work_queries(role).await.map_err(internal)? {
                    match self.run_query(&person, &q).await {
                        Ok(n) => kept += n,
                        Err(e) => {
                            tracing::warn!(person = pid.0, query = q.id, error = %e, "a my-work query was skipped")
                        }
                    }
                }
            }
            ran.push((pid, kept));
        }
        Ok(ran)
    }

    /// A query is checked again each time it runs: its tool must still be a ticked read tool of
    /// a live connector.
    pub async fn run_query(&self, person: &Person, q: &MyWorkQuery) -> Result<usize, String> {
        let zone = self.zone_of(person.id).await.map_err(|e| e.to_string())?;
        let today = self.now().with_timezone(&zone).date_naive().to_string();
        let args_text = q.arguments.replace("{me}", &person.email).replace("{today}", &today);
        let args: Value = serde_json::from_str(&args_text).map_err(|e| format!("its arguments are not JSON: {e}"))?;
        self.read_as(person, q.connector, &q.tool, &args, "prepare").await
    }
}

impl PersonMemory {
    /// Once a day, from 02:00 in the company's zone: drops each person's use of a card they have
    /// not used within its connector's hard limit, then the cards nobody keeps any more. Returns
    /// how many uses and cards went, or `None` when it is not due.
    pub async fn forgetting_due(&self) -> Result<Option<(u32, u32)>, MemoryError> {
        let now = self.now();
        let company = self.store.company().await.map_err(internal)?;
        let zone: chrono_tz::Tz = company
            .map(|c| c.time_zone.as_str().to_string())
            .unwrap_or_else(|| "UTC".into())
            .parse()
            .unwrap_or(chrono_tz::UTC);
        let local = now.with_timezone(&zone);
        let today = local.date_naive().to_string();
        // Claimed before the work, so of several servers on one database only one runs it. A run
        // that fails partway is logged by the caller and not tried again until the next day.
        if local.time() < NaiveTime::from_hms_opt(FORGETTING_HOUR, 0, 0).unwrap_or(NaiveTime::MIN)
            || !self.store.claim_job_run("forgetting", &today).await.map_err(internal)?
        {
            return Ok(None);
        }
        let connectors = self.store.connectors().await.map_err(internal)?;
        let mut readers: std::collections::HashMap<PersonId, Option<Reader>> = Default::default();
        let mut removed_cards = std::collections::HashSet::new();
        let mut uses = 0;
        for (card, u) in self.store.all_uses().await.map_err(internal)? {
            let Some(c) = connectors.iter().find(|c| c.id == card.connector) else { continue };
            if removed_cards.contains(&card.id) {
                continue;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = readers.entry(u.person) {
                let reader = match self.store.person(u.person).await.map_err(internal)? {
                    Some(p) if p.left_at.is_none() => Some(self.reader(&p).await?),
                    _ => None,
                };
                slot.insert(reader);
            }
            // Someone who left keeps nothing; someone no longer admitted loses their place.
            let decision = match readers.get(&u.person).cloned().flatten() {
                Some(reader) => decide(&card.origin(), &c.toolset_now(&card.tool), &reader, None),
                None => Decision::DropUse,
            };
            let reason = match decision {
                Decision::Remove => {
                    self.store
                        .remove_card(card.id, &removal_reason(c, &card), self.actor(None))
                        .await
                        .map_err(internal)?;
                    removed_cards.insert(card.id);
                    continue;
                }
                Decision::DropUse => format!("no longer admitted to {}", c.name),
                _ if !u.pinned && now - u.last_use > Duration::minutes(i64::from(c.hard_mins())) => {
                    format!("not used within {}'s hard limit", c.name)
                }
                _ => continue,
            };
            self.store.remove_use(u.person, card.id, &reason, self.actor(None)).await.map_err(internal)?;
            uses += 1;
        }
        let cards =
            removed_cards.len() as u32 + self.store.remove_unkept_cards(self.actor(None)).await.map_err(internal)?;
        Ok(Some((uses, cards)))
    }
}

/// A 403: the source would not let this person read the record, which says nothing of whether it
/// still exists.
fn refused_read(c: &Connector) -> String {
    format!("{} refused the read (forbidden)", c.name)
}

/// Why a card the access decision removes must go, for the audit log.
fn removal_reason(c: &Connector, card: &Card) -> String {
    if c.keep_cards {
        format!("no tool of {} reads with the {} key any more", c.name, card.read_with.as_str().replace('_', " "))
    } else {
        format!("Keep cards is off for {}", c.name)
    }
}

/// One record the person forgot, on their page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForgottenView {
    pub connector: i64,
    pub kind: String,
    pub record_id: String,
    /// "lead L-104 · Acme ATS · forgotten 2 days ago · kept out until 30 Dec"
    pub line: String,
}

impl PersonMemory {
    /// The records the person forgot that are still kept out, so they can pin one back.
    pub async fn forgotten(&self, person: &Person) -> Result<Vec<ForgottenView>, MemoryError> {
        let now = self.now();
        let connectors = self.store.connectors().await.map_err(internal)?;
        let zone = self.zone_of(person.id).await?;
        Ok(self
            .store
            .forgotten(person.id, now)
            .await
            .map_err(internal)?
            .into_iter()
            .map(|f| {
                let source = connectors.iter().find(|c| c.id == f.connector).map(|c| c.name.as_str()).unwrap_or("?");
                ForgottenView {
                    line: format!(
                        "{} {} · {source} · forgotten {} · kept out until {}",
                        f.kind,
                        f.record_id,
                        age_words(f.forgotten_at, now),
                        f.until.with_timezone(&zone).format("%-d %b")
                    ),
                    connector: f.connector,
                    kind: f.kind,
                    record_id: f.record_id,
                }
            })
            .collect())
    }

    /// Pins a forgotten record back: it is read again from its source, as the person, and kept
    /// pinned; the forget is closed with a reason. A read that cannot be made changes nothing.
    pub async fn pin_back(
        &self,
        person: &Person,
        connector: i64,
        kind: &str,
        record_id: &str,
    ) -> Result<String, MemoryError> {
        let now = self.now();
        let f = self
            .store
            .forgotten(person.id, now)
            .await
            .map_err(internal)?
            .into_iter()
            .find(|f| f.connector == connector && f.kind == kind && f.record_id == record_id)
            .ok_or_else(|| {
                MemoryError::NotFound("You have not forgotten that record, or its 30 days are over".into())
            })?;
        let c = self.connector(connector).await?;
        let not_pinned = |why: String| MemoryError::Invalid(format!("Not pinned: {why}; it stays forgotten"));
        let shapes = self.store.shapes(c.id).await.map_err(internal)?;
        let shape = shapes
            .iter()
            .find(|s| s.confirmed && s.tool == f.tool)
            .or_else(|| shapes.iter().find(|s| s.confirmed && s.kind == f.kind))
            .cloned()
            .ok_or_else(|| not_pinned(format!("{} no longer has a shape for {}", c.name, f.kind)))?;
        let (key_kind, key) = self.key_for(&c, &shape.get_tool, person).await.map_err(|r| not_pinned(r.to_string()))?;
        let args = serde_json::json!({ shape.id_field.clone(): f.record_id });
        let record = match self.call(&c, &key, &shape.get_tool, &args, "pin").await {
            Err(refusal) => return Err(not_pinned(refusal.to_string())),
            Ok(Err(SourceError::NotFound)) => {
                return Err(not_pinned(format!("{} {} is no longer at {}", f.kind, f.record_id, c.name)))
            }
            Ok(Err(SourceError::Forbidden)) => return Err(not_pinned(refused_read(&c))),
            Ok(Err(e)) => return Err(not_pinned(format!("{}: {e}", c.name))),
            Ok(Ok(record)) => record,
        };
        if !self.keep(person, &c, &shape, key_kind, &record, Keeping::PinBack).await? {
            return Err(not_pinned(format!("{} keeps no cards of this record", c.name)));
        }
        let actor = self.actor(Some(person.id));
        self.store.lift_forget(person.id, &f, "pinned back by the person", actor).await.map_err(internal)?;
        Ok(format!("Pinned {} {} back, read again from {}", f.kind, f.record_id, c.name))
    }
}

/// The local date Prepare my day is due for, if it is due now: the chosen time has come today in
/// `zone`, less than two hours ago, and it has not run today. Daylight-saving changes are read
/// through the zone: a time that does not exist that day runs at the first instant after it.
pub fn due_today(s: &PrepareSetting, zone: chrono_tz::Tz, now: DateTime<Utc>) -> Option<NaiveDate> {
    if !s.enabled {
        return None;
    }
    let t = NaiveTime::parse_from_str(&s.at_time, "%H:%M").ok()?;
    let local_today = now.with_timezone(&zone).date_naive();
    if s.last_local_date.as_deref() == Some(local_today.to_string().as_str()) {
        return None;
    }
    let start = local_instant(zone, local_today, t)?;
    (now >= start && now < start + Duration::minutes(PREPARE_WINDOW_MINS)).then_some(local_today)
}

fn local_instant(zone: chrono_tz::Tz, date: NaiveDate, t: NaiveTime) -> Option<DateTime<Utc>> {
    let naive = date.and_time(t);
    match zone.from_local_datetime(&naive) {
        chrono::LocalResult::Single(d) => Some(d.with_timezone(&Utc)),
        // Clocks went back: the time happens twice; the first counts.
        chrono::LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        // Clocks went forward past it: the first minute that exists after it.
        chrono::LocalResult::None => (1..=180).find_map(|m| {
            zone.from_local_datetime(&(naive + Duration::minutes(m))).earliest().map(|d| d.with_timezone(&Utc))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(at: &str, last: Option<&str>) -> PrepareSetting {
        PrepareSetting { enabled: true, at_time: at.into(), last_local_date: last.map(String::from) }
    }

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn due_at_the_local_time_within_two_hours_once_a_day() {
        let kolkata: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap();
        // 08:30 in Kolkata is 03:00 UTC.
        assert_eq!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T02:59:00Z")), None);
        assert_eq!(
            due_today(&on("08:30", None), kolkata, utc("2026-11-30T03:00:00Z")),
            NaiveDate::from_ymd_opt(2026, 11, 30)
        );
        assert!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T04:59:00Z")).is_some());
        assert_eq!(due_today(&on("08:30", None), kolkata, utc("2026-11-30T05:00:00Z")), None, "two hours late");
        assert_eq!(due_today(&on("08:30", Some("2026-11-30")), kolkata, utc("2026-11-30T03:30:00Z")), None);
        let mut off = on("08:30", None);
        off.enabled = false;
        assert_eq!(due_today(&off, kolkata, utc("2026-11-30T03:00:00Z")), None, "off means no call");
    }

    #[test]
    fn daylight_saving_moves_the_instant_not_the_local_time() {
        let london: chrono_tz::Tz = "Europe/London".parse().unwrap();
        // Before the change 08:30 is 08:30 UTC; after it (29 March 2026) it is 07:30 UTC.
        assert!(due_today(&on("08:30", None), london, utc("2026-03-28T08:30:00Z")).is_some());
        assert_eq!(due_today(&on("08:30", None), london, utc("2026-03-29T07:29:00Z")), None);
        assert!(due_today(&on("08:30", None), london, utc("2026-03-29T07:30:00Z")).is_some());
        // 01:30 does not exist on 29 March: it runs at 02:00 BST, 01:00 UTC.
        assert_eq!(
            local_instant(
                london,
                NaiveDate::from_ymd_opt(2026, 3, 29).unwrap(),
                NaiveTime::from_hms_opt(1, 30, 0).unwrap()
            ),
            Some(utc("2026-03-29T01:00:00Z"))
        );
        // 01:30 happens twice on 25 October: the first counts.
        assert_eq!(
            local_instant(
                london,
                NaiveDate::from_ymd_opt(2026, 10, 25).unwrap(),
                NaiveTime::from_hms_opt(1, 30, 0).unwrap()
            ),
            Some(utc("2026-10-25T00:30:00Z"))
        );
    }

    #[test]
    fn refresh_outcomes_read_as_the_seed_words_them() {
        let c = RefreshOutcome::Changed(vec![FieldChange {
            name: "stage".into(),
            before: "Qualified".into(),
            after: "Proposal".into(),
        }]);
        assert_eq!(c.sentence(), "changed: stage (Qualified → Proposal)");
        assert_eq!(RefreshOutcome::NoChange.sentence(), "no change");
        assert_eq!(RefreshOutcome::Gone("Acme ATS".into()).sentence(), "no longer at Acme ATS");
        assert_eq!(
            RefreshOutcome::NotChecked("Acme ATS is switched off".into()).sentence(),
            "not checked: Acme ATS is switched off"
        );
    }
}
