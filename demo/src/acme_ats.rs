//! Acme ATS, the demo source system: a small HTTP JSON server holding Acme's leads, support tickets
//! and contacts, which Engram reads over HTTP. It is also the reference for the Engram connector
//! protocol, v1, which it speaks:
//!
//! # Tools
//! - `GET /tools` answers 200 `{"tools": [{"name", "description", "access": "read" | "write", "bulk",
//!   "parameters": {"<name>": {"type": "string" | "number", "required", "description"}}}]}`. `bulk` is
//!   true for the list and search tools, which return many records. `reference` is true for the
//!   reference lists (territories, team members, lead sources; see `acme_lists`), and left out otherwise.
//! - `POST /tools/{name}` with the body `{"arguments": {…}}` answers 200 `{"result": <json>}`. A `get_*`
//!   tool returns one record; `list_*` and `search_*` return `{"records": [...]}`; `update_*` returns the
//!   updated record.
//!
//! # Errors
//! Every error is `{"error": "<code>", "message": "<sentence>"}`:
//! - 400 `invalid_arguments`: an unknown, missing or ill-typed argument, named in the message;
//! - 401 `unauthorized`: no key, or a key this system does not know;
//! - 403 `forbidden`: the caller may not see that record;
//! - 404 `not_found`: no such record; 404 `unknown_tool`: no such tool.
//!
//! # Who is asking
//! `Authorization: Bearer <key>`. The company key alone sees everything. The company key with
//! `X-Acting-For: <email>`, or a person's own key (which acts for that person), sees only what that person
//! may: the leads they own, the tickets assigned to them, and every contact. Getting a record they may
//! not see is 403 `forbidden`; lists and searches leave such records out; updates need a record they may
//! see.
//!
//! # Records
//! Every record has an `id` and an `updated_at` (RFC 3339, UTC, milliseconds), which any change sets to
//! now.
//! - Lead: `id` (`L-1001`), `company`, `contact_name`, `contact_email`, `stage` (`New`, `Qualified`,
//!   `Proposal`, `Won`, `Lost`), `value_inr`, `owner` (an email), `next_follow_up` (`YYYY-MM-DD`), `city`,
//!   `notes`.
//! - Ticket: `id` (`T-4411`), `subject`, `customer`, `status` (`open`, `escalated`, `closed`), `priority`
//!   (`low`, `normal`, `high`), `assignee` (an email), `body`.
//! - Contact: `id` (`C-2001`), `name`, `email`, `phone`, `company`, `title`.
//!
//! # Administration
//! For demos and tests, with `X-Admin-Key: <admin key>` (401 otherwise):
//! - `PUT /admin/{kind}/{id}` (kind is `leads`, `tickets` or `contacts`) creates or replaces a record from
//!   its full body (201 when created, 200 when replaced); a body `id` must match the path;
//! - `DELETE /admin/{kind}/{id}` answers 204, or 404 `not_found`;
//! - `GET /admin/calls` answers `{"tool_calls": N}`, every `POST /tools/{name}` received so far.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use chrono::{DateTime, Days, Duration, NaiveDate, SecondsFormat, SubsecRound, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The keys this system accepts.
#[derive(Clone)]
pub struct AtsConfig {
    /// Sees everything, or acts for whoever `X-Acting-For` names.
    pub company_key: String,
    /// Each person's own key, by their email; it acts for that person only.
    pub person_keys: HashMap<String, String>,
    /// Guards `/admin`.
    pub admin_key: String,
}

impl AtsConfig {
    /// The demo's well-known keys: `acme-ats-key-<login>` for alice, sam, sue, bob and ada.
    pub fn demo() -> Self {
        let person_keys = ["alice", "sam", "sue", "bob", "ada"]
            .into_iter()
            .map(|login| (format!("{login}@acme.example"), format!("acme-ats-key-{login}")))
            .collect();
        Self { company_key: "acme-ats-company-key".to_string(), person_keys, admin_key: "acme-ats-admin".to_string() }
    }
}

/// What "now" is; tests may pin it.
pub type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// The Acme ATS server: its records, keys and tool-call counter. Clones share one store.
#[derive(Clone)]
pub struct AcmeAts {
    inner: Arc<Inner>,
}

struct Inner {
    data: RwLock<Data>,
    config: AtsConfig,
    clock: Clock,
    tool_calls: AtomicU64,
}

impl AcmeAts {
    /// A server seeded with the demo data, its follow-up dates counted from today in Bengaluru.
    pub fn new(config: AtsConfig) -> Self {
        Self::with_clock(config, Arc::new(Utc::now))
    }

    pub fn with_clock(config: AtsConfig, clock: Clock) -> Self {
        let data = seed(now_from(&clock));
        Self { inner: Arc::new(Inner { data: RwLock::new(data), config, clock, tool_calls: AtomicU64::new(0) }) }
    }

    /// The whole HTTP surface.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/tools", get(list_tools))
            .route("/tools/{name}", post(call_tool))
            .route("/admin/calls", get(admin_calls))
            .route("/admin/{kind}/{id}", put(admin_put).delete(admin_delete))
            .fallback(no_route)
            .with_state(self.clone())
    }

    pub async fn serve(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        axum::serve(listener, self.router()).await
    }

    fn now(&self) -> DateTime<Utc> {
        now_from(&self.inner.clock)
    }

    // A panicked writer cannot leave a record half-changed (changes are checked before the write), so
    // the data behind a poisoned lock is still sound.
    fn read(&self) -> RwLockReadGuard<'_, Data> {
        self.inner.data.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Data> {
        self.inner.data.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn caller(&self, headers: &HeaderMap) -> Result<Caller, AtsError> {
        let config = &self.inner.config;
        let key = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, key)| key.trim())
            .ok_or(AtsError::Unauthorized("Send a key as `Authorization: Bearer <key>`."))?;
        let acting_for = match headers.get("x-acting-for") {
            None => None,
            Some(v) => match v.to_str().map(str::trim) {
                Ok(email) if !email.is_empty() => Some(email.to_ascii_lowercase()),
                _ => return Err(AtsError::InvalidArguments("The X-Acting-For header must be an email.".into())),
            },
        };
        if same_key(key, &config.company_key) {
            return Ok(acting_for.map_or(Caller::Company, Caller::Person));
        }
        let person = config
            .person_keys
            .iter()
            .find(|(_, k)| same_key(key, k))
            .map(|(email, _)| email.to_ascii_lowercase())
            .ok_or(AtsError::Unauthorized("This key is not known to Acme ATS."))?;
        match acting_for {
            Some(other) if other != person => {
                Err(AtsError::Forbidden(format!("The key of {person} may act only for {person}, not for {other}.")))
            }
            _ => Ok(Caller::Person(person)),
        }
    }

    fn admin(&self, headers: &HeaderMap) -> Result<(), AtsError> {
        let given = headers.get("x-admin-key").and_then(|v| v.to_str().ok()).unwrap_or("");
        if same_key(given.trim(), &self.inner.config.admin_key) {
            Ok(())
        } else {
            Err(AtsError::Unauthorized("Send the admin key as `X-Admin-Key`."))
        }
    }

    fn run(&self, caller: &Caller, tool: &ToolSpec, args: &Args) -> Result<Value, AtsError> {
        match tool.name {
            "list_leads" => self.list_leads(caller, args),
            "get_lead" => self.get::<Lead>(caller, args),
            "search_leads" => self.search::<Lead>(caller, args),
            "update_lead" => self.update_lead(caller, args),
            "list_tickets" => self.list_tickets(caller, args),
            "get_ticket" => self.get::<Ticket>(caller, args),
            "search_tickets" => self.search::<Ticket>(caller, args),
            "update_ticket" => self.update_ticket(caller, args),
            "list_contacts" => self.list_contacts(caller, args),
            "get_contact" => self.get::<Contact>(caller, args),
            "search_contacts" => self.search::<Contact>(caller, args),
            "update_contact" => self.update_contact(caller, args),
            other => Err(AtsError::UnknownTool(other.to_string())),
        }
    }

    fn get<R: Record>(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let data = self.read();
        let record = visible::<R>(&data, caller, args.id())?;
        Ok(to_json(record))
    }

    fn search<R: Record>(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let query = args.str("query").map(str::trim).unwrap_or_default().to_lowercase();
        if query.is_empty() {
            return Err(AtsError::InvalidArguments("`query` must not be empty.".into()));
        }
        let data = self.read();
        let found = R::table(&data)
            .values()
            .filter(|r| caller.sees(*r) && r.haystack().iter().any(|h| h.to_lowercase().contains(&query)));
        Ok(records(found, usize::MAX))
    }

    fn list_leads(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let owner = args.str("owner");
        let follow_up_on = args.date("follow_up_on")?;
        let stage = args.choice::<Stage>("stage", Stage::NAMES)?;
        let limit = args.limit()?;
        let data = self.read();
        let found = data.leads.values().filter(|l| {
            caller.sees(*l)
                && owner.is_none_or(|o| l.owner.eq_ignore_ascii_case(o.trim()))
                && follow_up_on.is_none_or(|d| l.next_follow_up == d)
                && stage.is_none_or(|s| l.stage == s)
        });
        Ok(records(found, limit))
    }

    fn list_tickets(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let assignee = args.str("assignee");
        let status = args.choice::<Status>("status", Status::NAMES)?;
        let limit = args.limit()?;
        let data = self.read();
        let found = data.tickets.values().filter(|t| {
            caller.sees(*t)
                && assignee.is_none_or(|a| t.assignee.eq_ignore_ascii_case(a.trim()))
                && status.is_none_or(|s| t.status == s)
        });
        Ok(records(found, limit))
    }

    fn list_contacts(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let company = args.str("company").map(|c| c.trim().to_lowercase());
        let limit = args.limit()?;
        let data = self.read();
        let found = data
            .contacts
            .values()
            .filter(|c| caller.sees(*c) && company.as_ref().is_none_or(|want| c.company.to_lowercase().contains(want)));
        Ok(records(found, limit))
    }

    fn update_lead(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let stage = args.choice::<Stage>("stage", Stage::NAMES)?;
        let next_follow_up = args.date("next_follow_up")?;
        let notes = args.str("notes").map(str::to_string);
        let value_inr = args.parse::<u64>("value_inr", "a whole number of rupees, zero or more")?;
        self.update::<Lead>(caller, args.id(), |lead| {
            if let Some(stage) = stage {
                lead.stage = stage;
            }
            if let Some(date) = next_follow_up {
                lead.next_follow_up = date;
            }
            if let Some(notes) = notes {
                lead.notes = notes;
            }
            if let Some(value) = value_inr {
                lead.value_inr = value;
            }
        })
    }

    fn update_ticket(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let status = args.choice::<Status>("status", Status::NAMES)?;
        let priority = args.choice::<Priority>("priority", Priority::NAMES)?;
        let assignee = args.email("assignee")?;
        let body = args.str("body").map(str::to_string);
        self.update::<Ticket>(caller, args.id(), |ticket| {
            if let Some(status) = status {
                ticket.status = status;
            }
            if let Some(priority) = priority {
                ticket.priority = priority;
            }
            if let Some(assignee) = assignee {
                ticket.assignee = assignee;
            }
            if let Some(body) = body {
                ticket.body = body;
            }
        })
    }

    fn update_contact(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let phone = args.str("phone").map(|p| p.trim().to_string());
        let title = args.str("title").map(|t| t.trim().to_string());
        let email = args.email("email")?;
        self.update::<Contact>(caller, args.id(), |contact| {
            if let Some(phone) = phone {
                contact.phone = phone;
            }
            if let Some(title) = title {
                contact.title = title;
            }
            if let Some(email) = email {
                contact.email = email;
            }
        })
    }

    /// Applies changes already checked, so a refused update leaves the record untouched.
    fn update<R: Record>(&self, caller: &Caller, id: &str, change: impl FnOnce(&mut R)) -> Result<Value, AtsError> {
        let now = self.now();
        let mut data = self.write();
        visible::<R>(&data, caller, id)?;
        let record = R::table_mut(&mut data).get_mut(id).ok_or_else(|| not_found::<R>(id))?;
        change(record);
        record.touch(now);
        tracing::info!(kind = R::NOUN, id, "updated through a tool");
        Ok(to_json(record))
    }

    fn admin_put<R: Record>(&self, id: &str, body: &[u8]) -> Result<(StatusCode, Value), AtsError> {
        let mut fields = match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(fields)) => fields,
            _ => {
                return Err(AtsError::InvalidArguments(format!(
                    "The body must be a whole {} as a JSON object.",
                    R::NOUN
                )))
            }
        };
        match fields.get("id") {
            None => {
                fields.insert("id".into(), json!(id));
            }
            Some(body_id) if body_id.as_str() == Some(id) => {}
            Some(body_id) => {
                return Err(AtsError::InvalidArguments(format!(
                    "The body's id {body_id} does not match {id} in the path."
                )))
            }
        }
        // Whatever `updated_at` the body carries, a change is dated by this server's clock.
        fields.insert("updated_at".into(), json!(self.now()));
        let record: R = serde_json::from_value(Value::Object(fields))
            .map_err(|e| AtsError::InvalidArguments(format!("That is not a valid {}: {e}.", R::NOUN)))?;
        let json = to_json(&record);
        let replaced = R::table_mut(&mut self.write()).insert(id.to_string(), record).is_some();
        tracing::info!(kind = R::NOUN, id, replaced, "admin put");
        Ok((if replaced { StatusCode::OK } else { StatusCode::CREATED }, json))
    }

    fn admin_delete<R: Record>(&self, id: &str) -> Result<StatusCode, AtsError> {
        R::table_mut(&mut self.write()).remove(id).ok_or_else(|| not_found::<R>(id))?;
        tracing::info!(kind = R::NOUN, id, "admin delete");
        Ok(StatusCode::NO_CONTENT)
    }
}

/// Binds 127.0.0.1:<port> (0 for any) and serves in a spawned task; returns the base URL and the task handle.
pub async fn spawn(
    config: AtsConfig,
    port: u16,
) -> std::io::Result<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}", listener.local_addr()?);
    tracing::info!(%url, "Acme ATS listening");
    Ok((url, tokio::spawn(AcmeAts::new(config).serve(listener))))
}

/// A record of the demo data by what people call it, so the demo model knows it in a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordName {
    /// "lead" or "contact".
    pub kind: &'static str,
    pub id: String,
    /// A lead's company, a contact's name.
    pub name: String,
}

/// The seeded leads by company and contacts by name.
pub fn record_names() -> Vec<RecordName> {
    let data = seed(Utc::now());
    let leads = data.leads.values().map(|l| RecordName { kind: "lead", id: l.id.clone(), name: l.company.clone() });
    let contacts =
        data.contacts.values().map(|c| RecordName { kind: "contact", id: c.id.clone(), name: c.name.clone() });
    leads.chain(contacts).collect()
}

fn now_from(clock: &Clock) -> DateTime<Utc> {
    // Stored as it is written, so a record read back compares equal to itself.
    clock().trunc_subsecs(3)
}

/// Compares keys in time independent of where they differ, so a caller cannot guess one byte by byte.
fn same_key(given: &str, expected: &str) -> bool {
    given.len() == expected.len() && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

// ---------------------------------------------------------------------------------------------------------
// Errors

#[derive(Debug, thiserror::Error)]
enum AtsError {
    #[error("{0}")]
    InvalidArguments(String),
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("There is no tool named `{0}`; GET /tools lists them.")]
    UnknownTool(String),
}

impl AtsError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::InvalidArguments(_) => (StatusCode::BAD_REQUEST, "invalid_arguments"),
            Self::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Self::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            Self::UnknownTool(_) => (StatusCode::NOT_FOUND, "unknown_tool"),
        }
    }
}

impl IntoResponse for AtsError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        tracing::debug!(code, message = %self, "Acme ATS refused a request");
        (status, Json(json!({"error": code, "message": self.to_string()}))).into_response()
    }
}

fn not_found<R: Record>(id: &str) -> AtsError {
    AtsError::NotFound(format!("There is no {} with id {id}.", R::NOUN))
}

// ---------------------------------------------------------------------------------------------------------
// Handlers

async fn list_tools(State(ats): State<AcmeAts>, headers: HeaderMap) -> Result<Json<Value>, AtsError> {
    ats.caller(&headers)?;
    let tools = TOOLS.iter().map(ToolSpec::to_json).chain(crate::acme_lists::tools_json()).collect::<Vec<_>>();
    Ok(Json(json!({ "tools": tools })))
}

async fn call_tool(
    State(ats): State<AcmeAts>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, AtsError> {
    // Counted before anything can refuse it: the counter measures what callers send, refused or not.
    ats.inner.tool_calls.fetch_add(1, Ordering::Relaxed);
    let caller = ats.caller(&headers)?;
    if crate::acme_lists::is_list(&name) {
        // The reference lists take no arguments and are the same for every caller.
        if let Some(given) = arguments(&body)?.keys().next() {
            return Err(AtsError::InvalidArguments(format!("`{given}` is not an argument of {name}; it takes none.")));
        }
        tracing::debug!(tool = %name, ?caller, "reference list");
        return crate::acme_lists::answer(&name)
            .map(|r| Json(json!({ "result": r })))
            .ok_or(AtsError::UnknownTool(name));
    }
    let tool = TOOLS.iter().find(|t| t.name == name).ok_or(AtsError::UnknownTool(name))?;
    let arguments = arguments(&body)?;
    let args = tool.check(&arguments)?;
    tracing::debug!(tool = tool.name, ?caller, "tool call");
    Ok(Json(json!({"result": ats.run(&caller, tool, &args)?})))
}

async fn admin_calls(State(ats): State<AcmeAts>, headers: HeaderMap) -> Result<Json<Value>, AtsError> {
    ats.admin(&headers)?;
    Ok(Json(json!({"tool_calls": ats.inner.tool_calls.load(Ordering::Relaxed)})))
}

async fn admin_put(
    State(ats): State<AcmeAts>,
    Path((kind, id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), AtsError> {
    ats.admin(&headers)?;
    let (status, record) = match Kind::parse(&kind)? {
        Kind::Leads => ats.admin_put::<Lead>(&id, &body)?,
        Kind::Tickets => ats.admin_put::<Ticket>(&id, &body)?,
        Kind::Contacts => ats.admin_put::<Contact>(&id, &body)?,
    };
    Ok((status, Json(record)))
}

async fn admin_delete(
    State(ats): State<AcmeAts>,
    Path((kind, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<StatusCode, AtsError> {
    ats.admin(&headers)?;
    match Kind::parse(&kind)? {
        Kind::Leads => ats.admin_delete::<Lead>(&id),
        Kind::Tickets => ats.admin_delete::<Ticket>(&id),
        Kind::Contacts => ats.admin_delete::<Contact>(&id),
    }
}

async fn no_route() -> AtsError {
    AtsError::NotFound("There is nothing at this path; GET /tools lists the tools.".into())
}

/// The `arguments` object of a tool call; an empty body or a missing `arguments` is no arguments.
fn arguments(body: &[u8]) -> Result<Map<String, Value>, AtsError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let bad = || AtsError::InvalidArguments("The body must be a JSON object: {\"arguments\": {…}}.".into());
    let Value::Object(mut body) = serde_json::from_slice(body).map_err(|_| bad())? else {
        return Err(bad());
    };
    match body.remove("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments),
        Some(_) => Err(AtsError::InvalidArguments("`arguments` must be a JSON object.".into())),
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Leads,
    Tickets,
    Contacts,
}

impl Kind {
    fn parse(kind: &str) -> Result<Self, AtsError> {
        match kind {
            "leads" => Ok(Self::Leads),
            "tickets" => Ok(Self::Tickets),
            "contacts" => Ok(Self::Contacts),
            _ => Err(AtsError::NotFound(format!("There are no {kind}; the kinds are leads, tickets and contacts."))),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Callers and records

#[derive(Debug)]
enum Caller {
    Company,
    /// Acting for this email, lowercased.
    Person(String),
}

impl Caller {
    fn sees<R: Record>(&self, record: &R) -> bool {
        match self {
            Self::Company => true,
            Self::Person(email) => record.visible_to(email),
        }
    }
}

fn visible<'d, R: Record>(data: &'d Data, caller: &Caller, id: &str) -> Result<&'d R, AtsError> {
    let record = R::table(data).get(id).ok_or_else(|| not_found::<R>(id))?;
    match caller {
        Caller::Person(email) if !caller.sees(record) => {
            Err(AtsError::Forbidden(format!("{email} may not see {} {id}.", R::NOUN)))
        }
        _ => Ok(record),
    }
}

fn to_json<R: Serialize>(record: &R) -> Value {
    serde_json::to_value(record).unwrap_or(Value::Null)
}

fn records<'r, R: Record + 'r>(found: impl Iterator<Item = &'r R>, limit: usize) -> Value {
    json!({"records": found.take(limit).map(to_json).collect::<Vec<_>>()})
}

trait Record: Clone + Serialize + DeserializeOwned {
    const NOUN: &'static str;
    fn visible_to(&self, email: &str) -> bool;
    /// The text a search looks through.
    fn haystack(&self) -> Vec<&str>;
    fn touch(&mut self, now: DateTime<Utc>);
    fn table(data: &Data) -> &BTreeMap<String, Self>;
    fn table_mut(data: &mut Data) -> &mut BTreeMap<String, Self>;
}

/// Records by id, so lists come back in a stable order.
struct Data {
    leads: BTreeMap<String, Lead>,
    tickets: BTreeMap<String, Ticket>,
    contacts: BTreeMap<String, Contact>,
}

fn rfc3339<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&at.to_rfc3339_opts(SecondsFormat::Millis, true))
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Lead {
    id: String,
    company: String,
    contact_name: String,
    contact_email: String,
    stage: Stage,
    value_inr: u64,
    owner: String,
    next_follow_up: NaiveDate,
    city: String,
    notes: String,
    #[serde(serialize_with = "rfc3339")]
    updated_at: DateTime<Utc>,
}

impl Record for Lead {
    const NOUN: &'static str = "lead";
    fn visible_to(&self, email: &str) -> bool {
        self.owner.eq_ignore_ascii_case(email)
    }
    fn haystack(&self) -> Vec<&str> {
        vec![
            self.id.as_str(),
            self.company.as_str(),
            self.contact_name.as_str(),
            self.city.as_str(),
            self.notes.as_str(),
        ]
    }
    fn touch(&mut self, now: DateTime<Utc>) {
        self.updated_at = now;
    }
    fn table(data: &Data) -> &BTreeMap<String, Self> {
        &data.leads
    }
    fn table_mut(data: &mut Data) -> &mut BTreeMap<String, Self> {
        &mut data.leads
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ticket {
    id: String,
    subject: String,
    customer: String,
    status: Status,
    priority: Priority,
    assignee: String,
    body: String,
    #[serde(serialize_with = "rfc3339")]
    updated_at: DateTime<Utc>,
}

impl Record for Ticket {
    const NOUN: &'static str = "ticket";
    fn visible_to(&self, email: &str) -> bool {
        self.assignee.eq_ignore_ascii_case(email)
    }
    fn haystack(&self) -> Vec<&str> {
        vec![self.id.as_str(), self.subject.as_str(), self.customer.as_str(), self.body.as_str()]
    }
    fn touch(&mut self, now: DateTime<Utc>) {
        self.updated_at = now;
    }
    fn table(data: &Data) -> &BTreeMap<String, Self> {
        &data.tickets
    }
    fn table_mut(data: &mut Data) -> &mut BTreeMap<String, Self> {
        &mut data.tickets
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Contact {
    id: String,
    name: String,
    email: String,
    phone: String,
    company: String,
    title: String,
    #[serde(serialize_with = "rfc3339")]
    updated_at: DateTime<Utc>,
}

impl Record for Contact {
    const NOUN: &'static str = "contact";
    // Contacts are the company's shared address book.
    fn visible_to(&self, _email: &str) -> bool {
        true
    }
    fn haystack(&self) -> Vec<&str> {
        vec![self.id.as_str(), self.name.as_str(), self.email.as_str(), self.company.as_str(), self.title.as_str()]
    }
    fn touch(&mut self, now: DateTime<Utc>) {
        self.updated_at = now;
    }
    fn table(data: &Data) -> &BTreeMap<String, Self> {
        &data.contacts
    }
    fn table_mut(data: &mut Data) -> &mut BTreeMap<String, Self> {
        &mut data.contacts
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Stage {
    New,
    Qualified,
    Proposal,
    Won,
    Lost,
}

impl Stage {
    const NAMES: &'static [&'static str] = &["New", "Qualified", "Proposal", "Won", "Lost"];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Escalated,
    Closed,
}

impl Status {
    const NAMES: &'static [&'static str] = &["open", "escalated", "closed"];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Normal,
    High,
}

impl Priority {
    const NAMES: &'static [&'static str] = &["low", "normal", "high"];
}

// ---------------------------------------------------------------------------------------------------------
// Tools

#[derive(Clone, Copy, PartialEq)]
enum Access {
    Read,
    Write,
}

#[derive(Clone, Copy)]
enum ParamType {
    String,
    Number,
}

struct Param {
    name: &'static str,
    kind: ParamType,
    required: bool,
    description: &'static str,
}

const fn required(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::String, required: true, description }
}

const fn text(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::String, required: false, description }
}

const fn number(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::Number, required: false, description }
}

const LIMIT: Param = number("limit", "At most this many records, 1 to 500; 50 when left out.");

struct ToolSpec {
    name: &'static str,
    description: &'static str,
    access: Access,
    bulk: bool,
    params: &'static [Param],
}

const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "list_leads",
        description: "Lists sales leads, optionally only one owner's, one follow-up day's or one stage's.",
        access: Access::Read,
        bulk: true,
        params: &[
            text("owner", "Only leads owned by this email."),
            text("follow_up_on", "Only leads whose next follow-up is this day, YYYY-MM-DD."),
            text("stage", "Only leads in this stage: New, Qualified, Proposal, Won or Lost."),
            LIMIT,
        ],
    },
    ToolSpec {
        name: "get_lead",
        description: "Gets one sales lead by its id.",
        access: Access::Read,
        bulk: false,
        params: &[required("id", "The lead's id, such as L-1001.")],
    },
    ToolSpec {
        name: "search_leads",
        description: "Finds leads whose company, contact, city, notes or id contain the query, ignoring case.",
        access: Access::Read,
        bulk: true,
        params: &[required("query", "The text to look for.")],
    },
    ToolSpec {
        name: "update_lead",
        description: "Changes a lead's stage, next follow-up, notes or value; returns the updated lead.",
        access: Access::Write,
        bulk: false,
        params: &[
            required("id", "The lead's id, such as L-1001."),
            text("stage", "The new stage: New, Qualified, Proposal, Won or Lost."),
            text("next_follow_up", "The new follow-up day, YYYY-MM-DD."),
            text("notes", "The new notes, replacing the old ones."),
            number("value_inr", "The new deal value in whole rupees."),
        ],
    },
    ToolSpec {
        name: "list_tickets",
        description: "Lists support tickets, optionally only one assignee's or one status's.",
        access: Access::Read,
        bulk: true,
        params: &[
            text("assignee", "Only tickets assigned to this email."),
            text("status", "Only tickets with this status: open, escalated or closed."),
            LIMIT,
        ],
    },
    ToolSpec {
        name: "get_ticket",
        description: "Gets one support ticket by its id.",
        access: Access::Read,
        bulk: false,
        params: &[required("id", "The ticket's id, such as T-4411.")],
    },
    ToolSpec {
        name: "search_tickets",
        description: "Finds tickets whose subject, customer, body or id contain the query, ignoring case.",
        access: Access::Read,
        bulk: true,
        params: &[required("query", "The text to look for.")],
    },
    ToolSpec {
        name: "update_ticket",
        description: "Changes a ticket's status, priority, assignee or body; returns the updated ticket.",
        access: Access::Write,
        bulk: false,
        params: &[
            required("id", "The ticket's id, such as T-4411."),
            text("status", "The new status: open, escalated or closed."),
            text("priority", "The new priority: low, normal or high."),
            text("assignee", "The email of the person to assign it to."),
            text("body", "The new body, replacing the old one."),
        ],
    },
    ToolSpec {
        name: "list_contacts",
        description: "Lists customer contacts, optionally only those at one company.",
        access: Access::Read,
        bulk: true,
        params: &[text("company", "Only contacts whose company contains this text, ignoring case."), LIMIT],
    },
    ToolSpec {
        name: "get_contact",
        description: "Gets one customer contact by its id.",
        access: Access::Read,
        bulk: false,
        params: &[required("id", "The contact's id, such as C-2001.")],
    },
    ToolSpec {
        name: "search_contacts",
        description: "Finds contacts whose name, email, company, title or id contain the query, ignoring case.",
        access: Access::Read,
        bulk: true,
        params: &[required("query", "The text to look for.")],
    },
    ToolSpec {
        name: "update_contact",
        description: "Changes a contact's phone, title or email; returns the updated contact.",
        access: Access::Write,
        bulk: false,
        params: &[
            required("id", "The contact's id, such as C-2001."),
            text("phone", "The new phone number."),
            text("title", "The new job title."),
            text("email", "The new email."),
        ],
    },
];

impl ToolSpec {
    fn to_json(&self) -> Value {
        let params: Map<String, Value> = self
            .params
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    ParamType::String => "string",
                    ParamType::Number => "number",
                };
                (p.name.to_string(), json!({"type": kind, "required": p.required, "description": p.description}))
            })
            .collect();
        json!({
            "name": self.name,
            "description": self.description,
            "access": if self.access == Access::Write { "write" } else { "read" },
            "bulk": self.bulk,
            "parameters": params,
        })
    }

    /// Checks names, presence and JSON types against the declaration, so tools read arguments
    /// without checking them again. A null counts as left out.
    fn check<'a>(&self, arguments: &'a Map<String, Value>) -> Result<Args<'a>, AtsError> {
        let bad = |m: String| Err(AtsError::InvalidArguments(m));
        for name in arguments.keys() {
            if !self.params.iter().any(|p| p.name == name) {
                let known = self.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
                return bad(format!("`{name}` is not an argument of {}; it takes {known}.", self.name));
            }
        }
        for p in self.params {
            match (arguments.get(p.name).filter(|v| !v.is_null()), p.kind) {
                (None, _) if p.required => return bad(format!("`{}` is required by {}.", p.name, self.name)),
                (Some(v), ParamType::String) if !v.is_string() => {
                    return bad(format!("`{}` must be a string.", p.name))
                }
                (Some(v), ParamType::Number) if !v.is_number() => {
                    return bad(format!("`{}` must be a number.", p.name))
                }
                _ => {}
            }
        }
        let changes = arguments.iter().filter(|(k, v)| *k != "id" && !v.is_null()).count();
        if self.access == Access::Write && changes == 0 {
            let fields = self.params.iter().filter(|p| !p.required).map(|p| p.name).collect::<Vec<_>>().join(", ");
            return bad(format!("{} needs at least one field to change: {fields}.", self.name));
        }
        Ok(Args(arguments))
    }
}

/// Arguments already checked against their tool's declaration.
struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    fn id(&self) -> &str {
        self.str("id").map(str::trim).unwrap_or_default()
    }

    fn parse<T: DeserializeOwned>(&self, name: &str, what: &str) -> Result<Option<T>, AtsError> {
        match self.0.get(name).filter(|v| !v.is_null()) {
            None => Ok(None),
            Some(v) => serde_json::from_value(v.clone())
                .map(Some)
                .map_err(|_| AtsError::InvalidArguments(format!("`{name}` must be {what}."))),
        }
    }

    fn date(&self, name: &str) -> Result<Option<NaiveDate>, AtsError> {
        self.str(name)
            .map(|s| NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d"))
            .transpose()
            .map_err(|_| AtsError::InvalidArguments(format!("`{name}` must be a day written YYYY-MM-DD.")))
    }

    /// One of `names`, matched ignoring case, since callers are often models that capitalise freely.
    fn choice<T: DeserializeOwned>(&self, name: &str, names: &[&str]) -> Result<Option<T>, AtsError> {
        let Some(given) = self.str(name) else { return Ok(None) };
        let canonical = names.iter().find(|n| n.eq_ignore_ascii_case(given.trim())).ok_or_else(|| {
            AtsError::InvalidArguments(format!("`{name}` must be one of {}, not {given:?}.", names.join(", ")))
        })?;
        Ok(serde_json::from_value(json!(canonical)).ok())
    }

    fn email(&self, name: &str) -> Result<Option<String>, AtsError> {
        match self.str(name).map(|s| s.trim().to_ascii_lowercase()) {
            Some(email) if !email.contains('@') || email.contains(char::is_whitespace) => {
                Err(AtsError::InvalidArguments(format!("`{name}` must be an email address.")))
            }
            other => Ok(other),
        }
    }

    fn limit(&self) -> Result<usize, AtsError> {
        match self.0.get("limit").and_then(Value::as_f64) {
            None => Ok(50),
            Some(n) if n.fract() == 0.0 && (1.0..=500.0).contains(&n) => Ok(n as usize),
            Some(_) => Err(AtsError::InvalidArguments("`limit` must be a whole number from 1 to 500.".into())),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Seed data

fn seed(now: DateTime<Utc>) -> Data {
    let today = now.with_timezone(&chrono_tz::Asia::Kolkata).date_naive();
    let day = |offset: i64| {
        if offset >= 0 {
            today + Days::new(offset as u64)
        } else {
            today - Days::new(offset.unsigned_abs())
        }
    };
    let ago = |hours: i64| now - Duration::hours(hours);
    let s = str::to_string;

    let lead = |id: &str,
                company: &str,
                contact: (&str, &str),
                stage: Stage,
                value_inr: u64,
                owner: &str,
                follow_up: i64,
                city: &str,
                notes: &str,
                hours: i64| Lead {
        id: s(id),
        company: s(company),
        contact_name: s(contact.0),
        contact_email: s(contact.1),
        stage,
        value_inr,
        owner: s(owner),
        next_follow_up: day(follow_up),
        city: s(city),
        notes: s(notes),
        updated_at: ago(hours),
    };
    let leads = vec![
        lead(
            "L-1001",
            "Nimbus Logistics",
            ("Priya Raman", "priya.raman@nimbuslogistics.example"),
            Stage::Proposal,
            1_850_000,
            "alice@acme.example",
            0,
            "Bengaluru (Whitefield)",
            "Sent the annual proposal for 40 fleet seats. Priya wants the revised quote with GST broken out before \
             their Friday review.",
            20,
        ),
        lead(
            "L-1002",
            "Kaveri Foods",
            ("Arjun Hegde", "arjun.hegde@kaverifoods.example"),
            Stage::Qualified,
            640_000,
            "alice@acme.example",
            0,
            "Bengaluru (Peenya)",
            "CFO confirmed budget for the Q3 rollout. Call to walk through the pilot plan for their three plants.",
            30,
        ),
        lead(
            "L-1003",
            "Koramangala Coworks",
            ("Meera Iyer", "meera@koracoworks.example"),
            Stage::New,
            210_000,
            "alice@acme.example",
            3,
            "Bengaluru (Koramangala)",
            "Inbound from the website demo form; runs four coworking floors and wants desk booking.",
            52,
        ),
        lead(
            "L-1004",
            "Hebbal Biotech",
            ("Rohan Shetty", "rohan.shetty@hebbalbio.example"),
            Stage::Won,
            2_400_000,
            "alice@acme.example",
            10,
            "Bengaluru (Hebbal)",
            "Signed last week. Onboarding check-in with their lab operations team is due after go-live.",
            120,
        ),
        lead(
            "L-1005",
            "Mysuru Silk House",
            ("Kavya Nair", "kavya@mysurusilk.example"),
            Stage::Qualified,
            480_000,
            "sam@acme.example",
            0,
            "Mysuru",
            "Family-run retailer with 12 stores; wants inventory sync before the wedding season.",
            26,
        ),
        lead(
            "L-1006",
            "Tumkur Road Castings",
            ("Farhan Qureshi", "farhan@trcastings.example"),
            Stage::Proposal,
            3_100_000,
            "sam@acme.example",
            2,
            "Bengaluru (Nelamangala)",
            "Proposal out for the plant-floor rollout; procurement asked for a 60-day payment term.",
            44,
        ),
        lead(
            "L-1007",
            "Jayanagar Books",
            ("Lakshmi Prasad", "lakshmi@jayanagarbooks.example"),
            Stage::Lost,
            95_000,
            "sam@acme.example",
            45,
            "Bengaluru (Jayanagar)",
            "Chose a cheaper local vendor on price. Worth a call next quarter when their contract renews.",
            300,
        ),
        lead(
            "L-1008",
            "Lalbagh Botanics",
            ("Naveen Gowda", "naveen@lalbaghbotanics.example"),
            Stage::New,
            350_000,
            "ada@acme.example",
            1,
            "Bengaluru (Basavanagudi)",
            "Met the founder at a NASSCOM event; introduce them to Sales once they share headcount.",
            70,
        ),
    ];

    let ticket = |id: &str,
                  subject: &str,
                  customer: &str,
                  status: Status,
                  priority: Priority,
                  assignee: &str,
                  body: &str,
                  hours: i64| Ticket {
        id: s(id),
        subject: s(subject),
        customer: s(customer),
        status,
        priority,
        assignee: s(assignee),
        body: s(body),
        updated_at: ago(hours),
    };
    let tickets = vec![
        ticket(
            "T-4411",
            "Invoice export times out for March",
            "Hebbal Biotech",
            Status::Escalated,
            Priority::High,
            "sue@acme.example",
            "Exporting March invoices as CSV times out after 60 seconds. Their finance team needs it for the GST \
             filing due this week; escalated to engineering.",
            3,
        ),
        ticket(
            "T-4412",
            "Cannot add a second warehouse",
            "Kaveri Foods",
            Status::Open,
            Priority::Normal,
            "bob@acme.example",
            "The pilot account shows 'limit reached' when adding the Hosur warehouse. Likely the trial plan's limit.",
            8,
        ),
        ticket(
            "T-4413",
            "Password reset email not arriving",
            "Nimbus Logistics",
            Status::Closed,
            Priority::Low,
            "bob@acme.example",
            "Reset emails were going to their spam folder. Shared the sender allow-list steps; customer confirmed.",
            50,
        ),
        ticket(
            "T-4414",
            "Driver app crashes on login",
            "Nimbus Logistics",
            Status::Open,
            Priority::High,
            "sue@acme.example",
            "Several drivers on older Android phones see a crash right after OTP entry since Monday's release.",
            5,
        ),
        ticket(
            "T-4415",
            "Duplicate stock entries after sync",
            "Mysuru Silk House",
            Status::Escalated,
            Priority::High,
            "bob@acme.example",
            "Nightly sync created duplicate sarees in two stores. Customer paused sync; needs a clean-up script.",
            12,
        ),
        ticket(
            "T-4416",
            "Request: Kannada labels on invoices",
            "Koramangala Coworks",
            Status::Open,
            Priority::Normal,
            "sue@acme.example",
            "Asked whether invoice labels can be printed in Kannada alongside English for their members.",
            30,
        ),
    ];

    let contact = |id: &str, name: &str, email: &str, phone: &str, company: &str, title: &str, hours: i64| Contact {
        id: s(id),
        name: s(name),
        email: s(email),
        phone: s(phone),
        company: s(company),
        title: s(title),
        updated_at: ago(hours),
    };
    let contacts = vec![
        contact(
            "C-2001",
            "Priya Raman",
            "priya.raman@nimbuslogistics.example",
            "+91 98450 11201",
            "Nimbus Logistics",
            "Head of Operations",
            100,
        ),
        contact(
            "C-2002",
            "Arjun Hegde",
            "arjun.hegde@kaverifoods.example",
            "+91 98860 22302",
            "Kaveri Foods",
            "CFO",
            90,
        ),
        contact(
            "C-2003",
            "Meera Iyer",
            "meera@koracoworks.example",
            "+91 99000 33403",
            "Koramangala Coworks",
            "Community Manager",
            60,
        ),
        contact(
            "C-2004",
            "Rohan Shetty",
            "rohan.shetty@hebbalbio.example",
            "+91 97400 44504",
            "Hebbal Biotech",
            "Lab Operations Lead",
            150,
        ),
        contact(
            "C-2005",
            "Kavya Nair",
            "kavya@mysurusilk.example",
            "+91 94480 55605",
            "Mysuru Silk House",
            "Director",
            80,
        ),
        contact(
            "C-2006",
            "Farhan Qureshi",
            "farhan@trcastings.example",
            "+91 96320 66706",
            "Tumkur Road Castings",
            "Procurement Manager",
            200,
        ),
    ];

    Data {
        leads: leads.into_iter().map(|l| (l.id.clone(), l)).collect(),
        tickets: tickets.into_iter().map(|t| (t.id.clone(), t)).collect(),
        contacts: contacts.into_iter().map(|c| (c.id.clone(), c)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::Client;

    const COMPANY: &str = "acme-ats-company-key";
    const ADMIN: &str = "acme-ats-admin";

    struct Ats {
        url: String,
        http: Client,
    }

    impl Ats {
        async fn start() -> Self {
            let (url, _task) = spawn(AtsConfig::demo(), 0).await.expect("bind");
            Self { url, http: Client::new() }
        }

        async fn call(&self, key: Option<&str>, acting_for: Option<&str>, tool: &str, args: Value) -> (u16, Value) {
            let mut req = self.http.post(format!("{}/tools/{tool}", self.url)).json(&json!({"arguments": args}));
            if let Some(key) = key {
                req = req.bearer_auth(key);
            }
            if let Some(email) = acting_for {
                req = req.header("X-Acting-For", email);
            }
            let resp = req.send().await.expect("send");
            (resp.status().as_u16(), resp.json().await.expect("json body"))
        }

        async fn company(&self, tool: &str, args: Value) -> (u16, Value) {
            self.call(Some(COMPANY), None, tool, args).await
        }

        async fn ids(&self, key: &str, acting_for: Option<&str>, tool: &str, args: Value) -> Vec<String> {
            let (status, body) = self.call(Some(key), acting_for, tool, args).await;
            assert_eq!(status, 200, "{body}");
            body["result"]["records"]
                .as_array()
                .expect("records")
                .iter()
                .map(|r| r["id"].as_str().expect("id").to_string())
                .collect()
        }

        async fn calls(&self) -> u64 {
            let resp = self.http.get(format!("{}/admin/calls", self.url)).header("X-Admin-Key", ADMIN).send().await;
            let body: Value = resp.expect("send").json().await.expect("json");
            body["tool_calls"].as_u64().expect("tool_calls")
        }
    }

    fn assert_error(status: u16, body: &Value, want_status: u16, code: &str) {
        assert_eq!(status, want_status, "{body}");
        assert_eq!(body["error"], code, "{body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    }

    #[tokio::test]
    async fn lists_fifteen_tools_with_their_flags_and_each_one_answers() {
        let ats = Ats::start().await;
        let resp = ats.http.get(format!("{}/tools", ats.url)).bearer_auth(COMPANY).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let body: Value = resp.json().await.unwrap();
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 15);
        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            assert_eq!(tool["reference"] == true, crate::acme_lists::is_list(name), "{name}");
            let writes = name.starts_with("update_");
            let bulk = name.starts_with("list_") || name.starts_with("search_");
            assert_eq!(tool["access"], if writes { "write" } else { "read" }, "{name}");
            assert_eq!(tool["bulk"], bulk, "{name}");
            assert!(!tool["description"].as_str().unwrap().is_empty(), "{name}");
            let params = tool["parameters"].as_object().unwrap();
            if name.starts_with("get_") || writes {
                assert_eq!(params["id"]["required"], true, "{name}");
                assert_eq!(params["id"]["type"], "string", "{name}");
            }
            // Every declared tool is dispatched: with no arguments it either answers or asks for one.
            let (status, answer) = ats.company(name, json!({})).await;
            assert!(status == 200 || answer["error"] == "invalid_arguments", "{name}: {answer}");
        }
        let unauthenticated = ats.http.get(format!("{}/tools", ats.url)).send().await.unwrap();
        assert_eq!(unauthenticated.status(), 401);
    }

    #[tokio::test]
    async fn company_key_gets_a_record_and_a_missing_one_is_not_found() {
        let ats = Ats::start().await;
        let (status, body) = ats.company("get_lead", json!({"id": "L-1001"})).await;
        assert_eq!(status, 200, "{body}");
        let lead = &body["result"];
        assert_eq!(lead["company"], "Nimbus Logistics");
        assert_eq!(lead["stage"], "Proposal");
        assert_eq!(lead["owner"], "alice@acme.example");
        assert!(DateTime::parse_from_rfc3339(lead["updated_at"].as_str().unwrap()).is_ok());

        let (status, body) = ats.company("get_ticket", json!({"id": "T-4411"})).await;
        assert_eq!((status, &body["result"]["status"]), (200, &json!("escalated")));
        let (status, body) = ats.company("get_contact", json!({"id": "C-2001"})).await;
        assert_eq!((status, &body["result"]["name"]), (200, &json!("Priya Raman")));

        let (status, body) = ats.company("get_lead", json!({"id": "L-9999"})).await;
        assert_error(status, &body, 404, "not_found");
        let (status, body) = ats.company("no_such_tool", json!({})).await;
        assert_error(status, &body, 404, "unknown_tool");
    }

    #[tokio::test]
    async fn refuses_missing_and_unknown_keys() {
        let ats = Ats::start().await;
        let (status, body) = ats.call(None, None, "get_lead", json!({"id": "L-1001"})).await;
        assert_error(status, &body, 401, "unauthorized");
        let (status, body) = ats.call(Some("not-a-key"), None, "get_lead", json!({"id": "L-1001"})).await;
        assert_error(status, &body, 401, "unauthorized");
    }

    #[tokio::test]
    async fn acting_for_a_person_filters_lists_and_forbids_gets() {
        let ats = Ats::start().await;
        let alice = Some("alice@acme.example");
        let leads = ats.ids(COMPANY, alice, "list_leads", json!({})).await;
        assert_eq!(leads, ["L-1001", "L-1002", "L-1003", "L-1004"]);
        assert_eq!(ats.ids(COMPANY, None, "list_leads", json!({})).await.len(), 8);
        // Asking for someone else's leads while acting for alice finds none, rather than failing.
        assert!(ats.ids(COMPANY, alice, "list_leads", json!({"owner": "sam@acme.example"})).await.is_empty());
        assert!(ats.ids(COMPANY, alice, "list_tickets", json!({})).await.is_empty());
        assert_eq!(ats.ids(COMPANY, alice, "list_contacts", json!({})).await.len(), 6);
        assert_eq!(ats.ids(COMPANY, alice, "search_leads", json!({"query": "bengaluru"})).await.len(), 4);

        let (status, body) = ats.call(Some(COMPANY), alice, "get_lead", json!({"id": "L-1005"})).await;
        assert_error(status, &body, 403, "forbidden");
        let (status, body) = ats.call(Some(COMPANY), alice, "update_lead", json!({"id": "L-1005", "notes": "x"})).await;
        assert_error(status, &body, 403, "forbidden");
        let (status, _) = ats.call(Some(COMPANY), alice, "get_lead", json!({"id": "L-1001"})).await;
        assert_eq!(status, 200);

        // Today's follow-ups for alice: the day is read back rather than recomputed, so midnight cannot race.
        let (_, l1001) = ats.company("get_lead", json!({"id": "L-1001"})).await;
        let today = l1001["result"]["next_follow_up"].clone();
        let due = ats.ids(COMPANY, alice, "list_leads", json!({"follow_up_on": today})).await;
        assert_eq!(due, ["L-1001", "L-1002"]);
        let open = ats.ids(COMPANY, alice, "list_leads", json!({"stage": "proposal"})).await;
        assert_eq!(open, ["L-1001"]);
    }

    #[tokio::test]
    async fn a_persons_own_key_acts_for_that_person() {
        let ats = Ats::start().await;
        let sue = "acme-ats-key-sue";
        assert_eq!(
            ats.ids(sue, None, "list_tickets", json!({})).await,
            ats.ids(COMPANY, Some("sue@acme.example"), "list_tickets", json!({})).await
        );
        assert_eq!(ats.ids(sue, None, "list_tickets", json!({})).await, ["T-4411", "T-4414", "T-4416"]);
        assert_eq!(ats.ids(sue, None, "list_tickets", json!({"status": "escalated"})).await, ["T-4411"]);
        assert_eq!(ats.ids("acme-ats-key-sam", None, "list_leads", json!({})).await.len(), 3);

        let (status, body) = ats.call(Some(sue), None, "get_ticket", json!({"id": "T-4412"})).await;
        assert_error(status, &body, 403, "forbidden");
        let (status, body) = ats.call(Some(sue), Some("bob@acme.example"), "list_tickets", json!({})).await;
        assert_error(status, &body, 403, "forbidden");
        let (status, body) =
            ats.call(Some(sue), None, "update_ticket", json!({"id": "T-4414", "status": "closed"})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["result"]["status"], "closed");
    }

    #[tokio::test]
    async fn update_lead_changes_the_record_and_its_updated_at() {
        let ats = Ats::start().await;
        let (_, before) = ats.company("get_lead", json!({"id": "L-1002"})).await;
        let before_at = DateTime::parse_from_rfc3339(before["result"]["updated_at"].as_str().unwrap()).unwrap();
        let args = json!({"id": "L-1002", "stage": "Proposal", "value_inr": 700000, "next_follow_up": "2031-01-15"});
        let (status, body) = ats.call(Some("acme-ats-key-alice"), None, "update_lead", args).await;
        assert_eq!(status, 200, "{body}");
        let (_, after) = ats.company("get_lead", json!({"id": "L-1002"})).await;
        assert_eq!(after, body);
        let lead = &after["result"];
        assert_eq!((&lead["stage"], &lead["value_inr"]), (&json!("Proposal"), &json!(700000)));
        assert_eq!(lead["next_follow_up"], "2031-01-15");
        assert_eq!(lead["notes"], before["result"]["notes"]);
        let after_at = DateTime::parse_from_rfc3339(lead["updated_at"].as_str().unwrap()).unwrap();
        assert!(after_at > before_at, "{before_at} then {after_at}");
    }

    #[tokio::test]
    async fn admin_put_creates_and_replaces_and_delete_removes() {
        let ats = Ats::start().await;
        let contact = json!({"id": "C-2002", "name": "Arjun Hegde", "email": "arjun@kaveri.example",
            "phone": "+91 98860 00000", "company": "Kaveri Foods", "title": "Group CFO", "updated_at": "2001-01-01T00:00:00Z"});
        let url = format!("{}/admin/contacts/C-2002", ats.url);
        let refused = ats.http.put(&url).json(&contact).send().await.unwrap();
        assert_eq!(refused.status(), 401);
        let replaced = ats.http.put(&url).header("X-Admin-Key", ADMIN).json(&contact).send().await.unwrap();
        assert_eq!(replaced.status(), 200);
        let (status, body) = ats.company("get_contact", json!({"id": "C-2002"})).await;
        assert_eq!(status, 200);
        assert_eq!(body["result"]["title"], "Group CFO");
        assert_ne!(body["result"]["updated_at"], "2001-01-01T00:00:00.000Z", "the server dates the change");

        let mismatched = ats.http.put(format!("{}/admin/contacts/C-7777", ats.url)).header("X-Admin-Key", ADMIN);
        let resp = mismatched.json(&contact).send().await.unwrap();
        assert_eq!(resp.status(), 400);

        let mut ticket = ats.company("get_ticket", json!({"id": "T-4412"})).await.1["result"].take();
        ticket["id"] = json!("T-5000");
        let created =
            ats.http.put(format!("{}/admin/tickets/T-5000", ats.url)).header("X-Admin-Key", ADMIN).json(&ticket);
        assert_eq!(created.send().await.unwrap().status(), 201);
        assert_eq!(ats.company("get_ticket", json!({"id": "T-5000"})).await.0, 200);

        let delete = || ats.http.delete(format!("{}/admin/leads/L-1003", ats.url)).header("X-Admin-Key", ADMIN);
        assert_eq!(delete().send().await.unwrap().status(), 204);
        let (status, body) = ats.company("get_lead", json!({"id": "L-1003"})).await;
        assert_error(status, &body, 404, "not_found");
        let again = delete().send().await.unwrap();
        assert_eq!(again.status(), 404);
        assert_eq!(again.json::<Value>().await.unwrap()["error"], "not_found");
    }

    #[tokio::test]
    async fn invalid_arguments_name_the_argument() {
        let ats = Ats::start().await;
        let cases = [
            ("get_lead", json!({"idd": "L-1001"}), "idd"),
            ("get_lead", json!({}), "id"),
            ("search_tickets", json!({"query": 7}), "query"),
            ("list_leads", json!({"limit": 501}), "limit"),
            ("list_leads", json!({"follow_up_on": "tomorrow"}), "follow_up_on"),
            ("list_tickets", json!({"status": "pending"}), "status"),
            ("update_lead", json!({"id": "L-1001", "value_inr": -5}), "value_inr"),
            ("update_contact", json!({"id": "C-2001", "email": "nobody"}), "email"),
            ("update_ticket", json!({"id": "T-4411"}), "status"),
        ];
        for (tool, args, named) in cases {
            let (status, body) = ats.company(tool, args.clone()).await;
            assert_error(status, &body, 400, "invalid_arguments");
            assert!(body["message"].as_str().unwrap().contains(named), "{tool} {args}: {body}");
        }
    }

    #[tokio::test]
    async fn counts_every_tool_call_received() {
        let ats = Ats::start().await;
        assert_eq!(ats.calls().await, 0);
        ats.company("get_lead", json!({"id": "L-1001"})).await;
        ats.company("no_such_tool", json!({})).await;
        ats.call(None, None, "list_leads", json!({})).await;
        assert_eq!(ats.calls().await, 3);
        let refused = ats.http.get(format!("{}/admin/calls", ats.url)).send().await.unwrap();
        assert_eq!(refused.status(), 401);
    }
}
