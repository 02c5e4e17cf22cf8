//! Person memory's operations: keeping cards from reads made as a person, listing, pinning,
//! forgetting and refreshing them, the admin's switches, Prepare my day and the forgetting job.
//!
//! This module holds the service, its constructor and the helpers the use cases share; each use
//! case is a file of its own.

mod checking;
mod connectors;
mod forgetting;
mod lists;
mod prepare;
mod reading;
mod runs;
mod tool_pins;
mod toolsets;
mod views;

pub use crate::cards::loaded::{FieldChange, RefreshOutcome};
pub use connectors::{parse_shape_fields, SettingsForm, ShapeForm, Sheet, DRAFT_REUSE_MINS};
pub use forgetting::{ForgottenView, FORGETTING_HOUR, FORGET_DAYS};
pub use prepare::{due_today, PREPARE_WINDOW_MINS};
pub use runs::{RunRead, RunTool};
pub use toolsets::admits_line;
pub use views::{CardView, ShownField};

/// How the check after an answer names its reads in the ledger of calls to connected systems, so
/// Operations counts them.
pub const CHECK_READ: &str = "check";

use crate::cards::access::{decide, Decision, KeyKind, Reader};
use crate::cards::activation::{rank_score, use_weight};
use crate::cards::source::CardField;
use crate::cards::source::{keep_fields, Connector, KeyMode, ReadKey, RecordShape, Source, SourceError};
use crate::cards::store::{Card, CardUse, MyWorkQuery, NewCard, PrepareSetting};
use crate::cards::store::{CardPorts, ConnectorPorts, MyCardPorts, PreparePorts, ReadPorts};
use crate::clock::Clock;
use crate::kernel::{Actor, StoreError};
use crate::org::{Person, PersonId, RoleSource};
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

pub use crate::cards::error::{MemoryError, ReadRefusal};
pub use crate::kernel::age_words;

type DraftCache = Arc<std::sync::Mutex<std::collections::HashMap<(i64, String), (DateTime<Utc>, Vec<RecordShape>)>>>;

/// Person memory, one use case a field: each takes only the stores it calls, so a rule can be
/// tried against a small fake of its port.
#[derive(Clone)]
pub struct PersonMemory {
    /// The admin's connector pages: set-up, record shapes, keys, toolsets and tool pins.
    pub connectors: Connectors,
    /// A person's reads kept as cards: read as them, refresh, pin, forget and pin back.
    pub reads: CardReads,
    /// What a person sees of their cards, and what an agent would load for them.
    pub mine: MyCards,
    /// Prepare my day and the forgetting job.
    pub prepare: Prepare,
    /// What a run loads from cards and lists, and the check after its answer.
    pub runs: RunCards,
}

impl PersonMemory {
    pub fn new(store: Arc<dyn CardPorts>, clock: Arc<dyn Clock>, source: Arc<dyn Source>) -> Self {
        let reads = Reads { store: store.clone(), clock, source };
        Self {
            connectors: Connectors {
                reads: reads.clone(),
                store: store.clone(),
                models: None,
                drafts: Default::default(),
            },
            reads: CardReads { reads: reads.clone(), store: store.clone() },
            mine: MyCards { reads: reads.clone(), store: store.clone() },
            prepare: Prepare { reads: reads.clone(), store: store.clone() },
            runs: RunCards { store: store.clone(), reads },
        }
    }

    /// Drafts record shapes with the configured model, falling back to plain rules.
    pub fn with_models(mut self, models: Arc<dyn crate::kernel::model::Models>) -> Self {
        self.connectors.models = Some(models);
        self
    }
}

/// What every use case reads through: the connector, the key a person reads with, the kill switch
/// and hourly limit, and keeping what was read as cards. One place, so no use case reads around
/// the gate.
#[derive(Clone)]
pub(crate) struct Reads {
    store: Arc<dyn ReadPorts>,
    clock: Arc<dyn Clock>,
    source: Arc<dyn Source>,
}

/// The admin's connector pages: set-up, record shapes, keys, toolsets and tool pins.
#[derive(Clone)]
pub struct Connectors {
    reads: Reads,
    store: Arc<dyn ConnectorPorts>,
    models: Option<Arc<dyn crate::kernel::model::Models>>,
    drafts: DraftCache,
}

/// A person's reads kept as cards: read as them, refresh, pin, forget and pin back.
#[derive(Clone)]
pub struct CardReads {
    reads: Reads,
    store: Arc<dyn MyCardPorts>,
}

/// What a person sees of their cards, and what an agent would load for them.
#[derive(Clone)]
pub struct MyCards {
    reads: Reads,
    store: Arc<dyn ReadPorts>,
}

/// Prepare my day and the forgetting job.
#[derive(Clone)]
pub struct Prepare {
    reads: Reads,
    store: Arc<dyn PreparePorts>,
}

/// What a run loads from cards and lists, and the check after its answer.
#[derive(Clone)]
pub struct RunCards {
    reads: Reads,
    store: Arc<dyn ReadPorts>,
}

/// What a source answered instead of the record, named by its connector: "Acme CRM: the source
/// could not be reached: timed out".
fn source_failed(c: &Connector, e: SourceError) -> MemoryError {
    MemoryError::Invalid(format!("{}: {e}", c.name))
}

/// A run's agent may be given a connector's data only up to the label its model is cleared for.
fn cleared(c: &Connector, agent: &crate::cards::access::RunningAgent) -> Result<(), MemoryError> {
    if c.label > agent.cleared_for {
        return Err(MemoryError::NotAllowed(format!(
            "{} holds {} data, and this agent's model is cleared for {} data",
            c.name,
            c.label.as_str(),
            agent.cleared_for.as_str()
        )));
    }
    Ok(())
}

/// Whether a shape's tool reads a list: any tool of it but the one that gets one record by id.
fn is_list(shape: &RecordShape) -> bool {
    shape.tool != shape.get_tool
}

/// The zone Prepare my day reads its time in: the person's own, else the company's.
async fn zone_of<S>(store: &S, person: PersonId) -> Result<chrono_tz::Tz, MemoryError>
where
    S: crate::cards::store::PrepareStore + crate::org::store::OrgStore + ?Sized,
{
    let own = store.person_time_zone(person).await?;
    let company = store.company().await?.map(|c| c.time_zone.as_str().to_string());
    let name = own.or(company).unwrap_or_else(|| "UTC".to_string());
    name.parse().map_err(|_| MemoryError::Internal(format!("unknown zone {name}")))
}

fn must_be_admin(person: &Person) -> Result<(), MemoryError> {
    if person.is_admin {
        Ok(())
    } else {
        Err(MemoryError::NotAllowed("Only an admin can change a connector".to_string()))
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
        let key = match card.read_with {
            KeyKind::Company => "the company key",
            KeyKind::ActingFor => "the acting-for key",
            KeyKind::OwnKey => "people's own keys",
        };
        format!("no tool of {} reads with {key} any more", c.name)
    } else {
        format!("Keep cards is off for {}", c.name)
    }
}

impl Reads {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    fn actor(&self, person: Option<PersonId>) -> Actor {
        Actor { person, at: self.now() }
    }

    async fn connector(&self, id: i64) -> Result<Connector, MemoryError> {
        self.store.connector(id).await?.ok_or_else(|| MemoryError::NotFound("There is no such connector".into()))
    }

    /// The slug of the person's department role.
    pub(super) async fn role_slug(&self, person: &Person) -> Result<Option<String>, MemoryError> {
        Ok(self.department_role(person).await?.map(|r| r.slug.as_str().to_string()))
    }

    async fn reader(&self, person: &Person) -> Result<Reader, MemoryError> {
        Ok(Reader { person: person.id, role: self.role_slug(person).await?, work_for: Some(person.id) })
    }

    /// The person's department role, read with their team alone: a run reads it on every ask,
    /// so it must not read the whole directory. A team's role comes with the team, in one read.
    async fn department_role(&self, person: &Person) -> Result<Option<crate::org::Role>, MemoryError> {
        let (teams, team_role) = match (person.role_override, person.main_team) {
            (None, Some(t)) => match self.store.team_with_role(t).await? {
                Some((team, role)) => (vec![team], role),
                None => (vec![], None),
            },
            _ => (vec![], None),
        };
        Ok(match person.department_role(&teams) {
            RoleSource::Own(r) => self.store.role_by_id(r).await?,
            RoleSource::FromTeam(_) => team_role,
            RoleSource::None => None,
        })
    }

    /// The key a tool reads with now, for this person; or why no read may be made. Every read
    /// made as a person comes here, so a toolset that does not admit them reads nothing for them.
    async fn key_for(&self, c: &Connector, tool: &str, person: &Person) -> Result<(KeyKind, ReadKey), ReadRefusal> {
        let reader = self.reader(person).await.map_err(|e| {
            tracing::error!(error = ?e, "could not read the directory to decide a read");
            ReadRefusal::Undecided(e.to_string())
        })?;
        if !crate::cards::access::admits(&c.admits_roles, &reader) {
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

    async fn own_use(&self, person: &Person, card: i64) -> Result<(Card, CardUse), MemoryError> {
        let not_yours = || MemoryError::NotFound("You keep no such card".to_string());
        let u = self.store.card_use(person.id, card).await?.ok_or_else(not_yours)?;
        let c = self.store.card(card).await?.ok_or_else(not_yours)?;
        Ok((c, u))
    }
}
