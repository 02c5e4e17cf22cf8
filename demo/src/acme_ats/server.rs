//! The server: its keys, its routes and handlers, its errors, and who is asking.

use super::*;

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

pub(super) struct Inner {
    pub(super) data: RwLock<Data>,
    pub(super) config: AtsConfig,
    pub(super) clock: Clock,
    pub(super) tool_calls: AtomicU64,
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

    pub(super) fn now(&self) -> DateTime<Utc> {
        now_from(&self.inner.clock)
    }

    // A panicked writer cannot leave a record half-changed (changes are checked before the write), so
    // the data behind a poisoned lock is still sound.
    pub(super) fn read(&self) -> RwLockReadGuard<'_, Data> {
        self.inner.data.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, Data> {
        self.inner.data.write().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn caller(&self, headers: &HeaderMap) -> Result<Caller, AtsError> {
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

    pub(super) fn admin(&self, headers: &HeaderMap) -> Result<(), AtsError> {
        let given = headers.get("x-admin-key").and_then(|v| v.to_str().ok()).unwrap_or("");
        if same_key(given.trim(), &self.inner.config.admin_key) {
            Ok(())
        } else {
            Err(AtsError::Unauthorized("Send the admin key as `X-Admin-Key`."))
        }
    }

    pub(super) fn run(&self, caller: &Caller, tool: &ToolSpec, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn get<R: Record>(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let data = self.read();
        let record = visible::<R>(&data, caller, args.id())?;
        Ok(to_json(record))
    }

    pub(super) fn search<R: Record>(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn list_leads(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn list_tickets(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn list_contacts(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
        let company = args.str("company").map(|c| c.trim().to_lowercase());
        let limit = args.limit()?;
        let data = self.read();
        let found = data
            .contacts
            .values()
            .filter(|c| caller.sees(*c) && company.as_ref().is_none_or(|want| c.company.to_lowercase().contains(want)));
        Ok(records(found, limit))
    }

    pub(super) fn update_lead(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn update_ticket(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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

    pub(super) fn update_contact(&self, caller: &Caller, args: &Args) -> Result<Value, AtsError> {
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
    pub(super) fn update<R: Record>(
        &self,
        caller: &Caller,
        id: &str,
        change: impl FnOnce(&mut R),
    ) -> Result<Value, AtsError> {
        let now = self.now();
        let mut data = self.write();
        visible::<R>(&data, caller, id)?;
        let record = R::table_mut(&mut data).get_mut(id).ok_or_else(|| not_found::<R>(id))?;
        change(record);
        record.touch(now);
        tracing::info!(kind = R::NOUN, id, "updated through a tool");
        Ok(to_json(record))
    }

    pub(super) fn admin_put<R: Record>(&self, id: &str, body: &[u8]) -> Result<(StatusCode, Value), AtsError> {
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

    pub(super) fn admin_delete<R: Record>(&self, id: &str) -> Result<StatusCode, AtsError> {
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

pub(super) fn now_from(clock: &Clock) -> DateTime<Utc> {
    // Stored as it is written, so a record read back compares equal to itself.
    clock().trunc_subsecs(3)
}

/// Compares keys in time independent of where they differ, so a caller cannot guess one byte by byte.
pub(super) fn same_key(given: &str, expected: &str) -> bool {
    given.len() == expected.len() && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

// ---------------------------------------------------------------------------------------------------------
// Errors

#[derive(Debug, thiserror::Error)]
pub(super) enum AtsError {
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
    pub(super) fn status_and_code(&self) -> (StatusCode, &'static str) {
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

pub(super) fn not_found<R: Record>(id: &str) -> AtsError {
    AtsError::NotFound(format!("There is no {} with id {id}.", R::NOUN))
}

// ---------------------------------------------------------------------------------------------------------
// Handlers

pub(super) async fn list_tools(State(ats): State<AcmeAts>, headers: HeaderMap) -> Result<Json<Value>, AtsError> {
    ats.caller(&headers)?;
    let tools = TOOLS.iter().map(ToolSpec::to_json).chain(crate::acme_lists::tools_json()).collect::<Vec<_>>();
    Ok(Json(json!({ "tools": tools })))
}

pub(super) async fn call_tool(
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

pub(super) async fn admin_calls(State(ats): State<AcmeAts>, headers: HeaderMap) -> Result<Json<Value>, AtsError> {
    ats.admin(&headers)?;
    Ok(Json(json!({"tool_calls": ats.inner.tool_calls.load(Ordering::Relaxed)})))
}

pub(super) async fn admin_put(
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

pub(super) async fn admin_delete(
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

pub(super) async fn no_route() -> AtsError {
    AtsError::NotFound("There is nothing at this path; GET /tools lists the tools.".into())
}

/// The `arguments` object of a tool call; an empty body or a missing `arguments` is no arguments.
pub(super) fn arguments(body: &[u8]) -> Result<Map<String, Value>, AtsError> {
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
pub(super) enum Kind {
    Leads,
    Tickets,
    Contacts,
}

impl Kind {
    pub(super) fn parse(kind: &str) -> Result<Self, AtsError> {
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
pub(super) enum Caller {
    Company,
    /// Acting for this email, lowercased.
    Person(String),
}

impl Caller {
    pub(super) fn sees<R: Record>(&self, record: &R) -> bool {
        match self {
            Self::Company => true,
            Self::Person(email) => record.visible_to(email),
        }
    }
}

pub(super) fn visible<'d, R: Record>(data: &'d Data, caller: &Caller, id: &str) -> Result<&'d R, AtsError> {
    let record = R::table(data).get(id).ok_or_else(|| not_found::<R>(id))?;
    match caller {
        Caller::Person(email) if !caller.sees(record) => {
            Err(AtsError::Forbidden(format!("{email} may not see {} {id}.", R::NOUN)))
        }
        _ => Ok(record),
    }
}

pub(super) fn to_json<R: Serialize>(record: &R) -> Value {
    serde_json::to_value(record).unwrap_or(Value::Null)
}

pub(super) fn records<'r, R: Record + 'r>(found: impl Iterator<Item = &'r R>, limit: usize) -> Value {
    json!({"records": found.take(limit).map(to_json).collect::<Vec<_>>()})
}
