//! The admin's connectors: creating one, its setup sheet and settings, drafting and confirming
//! record shapes, the roles' "my work" queries, and people's own keys.

use super::*;
use crate::cards::pins::ToolPin;

/// A connector's setup sheet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sheet {
    pub connector: Connector,
    /// The tools the source lists, reads and tools that act, or why they could not be listed.
    pub tools: Result<Vec<crate::cards::source::ToolInfo>, String>,
    pub shapes: Vec<RecordShape>,
    /// Drafts made in the last 10 minutes, not yet confirmed.
    pub drafts: Vec<RecordShape>,
    pub queries: Vec<(String, MyWorkQuery)>,
    pub roles: Vec<(i64, String)>,
    /// That a kind of fact's limit may be too long, once told: sentences for admins.
    pub notices: Vec<String>,
    /// Ticked tools whose live listing no longer agrees with the copy an admin approved: what
    /// changed, for an admin to re-approve. Runs use the pinned copy meanwhile.
    #[serde(default)]
    pub changed_tools: Vec<ToolPin>,
}

/// The setup sheet's settings, as its form sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsForm {
    pub key_mode: String,
    pub label: String,
    pub keep_cards: bool,
    pub killed: bool,
    pub facts: crate::cards::facts::FactLimits,
    pub free_text: crate::cards::source::Freshness,
    pub hourly_limit: u32,
}

/// A shape as the admin confirms it on the sheet: `fields` holds one field a line,
/// `name: structured` or `name: free text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeForm {
    pub connector: i64,
    pub tool: String,
    pub kind: String,
    pub id_field: String,
    pub version_field: String,
    pub get_tool: String,
    pub fields: String,
}

/// Reads the shape form's fields, one a line: `name: structured` or `name: free text`, then
/// optionally ` | label` and, for a structured field, ` | format` (`text`, `number`, `date` or
/// `amount INR`). What is left out is drafted from the name. A line that is neither kind, or a
/// format that is none of these, is refused by name.
pub fn parse_shape_fields(text: &str) -> Result<Vec<crate::cards::source::ShapeField>, MemoryError> {
    use crate::locale::FieldFormat;
    let mut parsed = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut parts = line.split('|').map(str::trim);
        let head = parts.next().unwrap_or_default();
        let mut field = match head.split_once(':') {
            Some((n, k)) if !n.trim().is_empty() && matches!(k.trim(), "structured" | "free text") => {
                crate::cards::source::ShapeField::new(n.trim(), k.trim() == "free text")
            }
            _ => {
                return Err(MemoryError::Invalid(format!(
                    "Write each field as \u{201c}name: structured\u{201d} or \u{201c}name: free text\u{201d}; not \u{201c}{line}\u{201d}"
                )))
            }
        };
        field.label = parts.next().filter(|l| !l.is_empty()).map(str::to_string);
        if let Some(words) = parts.next().filter(|f| !f.is_empty()) {
            let format = FieldFormat::parse(words).ok_or_else(|| {
                MemoryError::Invalid(format!(
                    "\u{201c}{words}\u{201d} is not a format for {}: write text, number, date, or amount and a currency code, such as amount INR",
                    field.name
                ))
            })?;
            if field.free_text && format != FieldFormat::Text {
                return Err(MemoryError::Invalid(format!(
                    "{} is free text, which is shown as written; only a structured field takes a format",
                    field.name
                )));
            }
            field.format = Some(format);
        }
        if let Some(extra) = parts.next() {
            return Err(MemoryError::Invalid(format!(
                "Write each field as \u{201c}name: structured | label | format\u{201d}; \u{201c}{extra}\u{201d} is one part too many in \u{201c}{line}\u{201d}"
            )));
        }
        parsed.push(field);
    }
    Ok(parsed)
}

/// Asking again for the same tools within this long answers the drafts already made.
pub const DRAFT_REUSE_MINS: i64 = 10;

impl Connectors {
    /// A new connector, read with the company key until an admin says otherwise. The key is
    /// checked against the source's tool list, then stored and never shown again.
    pub async fn create_connector(
        &self,
        admin: &Person,
        name: &str,
        base_url: &str,
        company_key: &str,
    ) -> Result<Connector, MemoryError> {
        must_be_admin(admin)?;
        let (name, base_url, key) = (name.trim(), base_url.trim().trim_end_matches('/'), company_key.trim());
        if name.is_empty() || name.chars().count() > 60 {
            return Err(MemoryError::Invalid("Give the connector a name of at most 60 characters".into()));
        }
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(MemoryError::Invalid("The base URL starts with http:// or https://".into()));
        }
        self.probe_company_key(base_url, key).await?;
        let new = crate::cards::store::NewConnector {
            name: name.into(),
            base_url: base_url.into(),
            key_mode: KeyMode::Company,
            ticked: vec![],
            label: crate::cards::access::DataLabel::Internal,
            admits_roles: vec![],
            keep_cards: true,
            facts: crate::cards::facts::FactLimits::DEFAULT,
            free_text: crate::cards::source::Freshness { soft_mins: 30, hard_mins: 12 * 60 },
            hourly_limit: 600,
        };
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.create_connector(&new, Some(key), actor).await.map_err(|e| match e {
            StoreError::Duplicate(_) => MemoryError::Invalid(format!("There is already a connector called {name}")),
            e => e.into(),
        })
    }

    /// Replaces an existing connector's company key, as after an import (which carries no keys)
    /// or when the source rotates its keys. The new key is checked against the source's tool
    /// list exactly as on creation; a refused key leaves the old one in place.
    pub async fn set_company_key(&self, admin: &Person, connector: i64, company_key: &str) -> Result<(), MemoryError> {
        must_be_admin(admin)?;
        let c = self.reads.connector(connector).await?;
        let key = company_key.trim();
        self.probe_company_key(&c.base_url, key).await?;
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.set_company_key(c.id, key, actor).await.map_err(|e| match e {
            StoreError::NotFound(_) => MemoryError::NotFound("There is no such connector".into()),
            e => e.into(),
        })
    }

    /// Refuses an empty company key, or one the source does not accept for listing its tools.
    async fn probe_company_key(&self, base_url: &str, key: &str) -> Result<(), MemoryError> {
        if key.is_empty() {
            return Err(MemoryError::Invalid("Enter the company key; it is stored and never shown again".into()));
        }
        match self.reads.source.tools(base_url, key).await {
            Ok(_) => Ok(()),
            Err(SourceError::Unauthorized) | Err(SourceError::Forbidden) => {
                Err(MemoryError::Invalid(format!("{base_url} refused that key; nothing was saved")))
            }
            Err(e) => Err(MemoryError::Invalid(format!("{base_url}: {e}; nothing was saved"))),
        }
    }

    /// The connectors that read with people's own keys, and whether this person gave theirs.
    pub async fn own_key_connectors(&self, person: &Person) -> Result<Vec<(i64, String, bool)>, MemoryError> {
        let mut out = Vec::new();
        for c in self.store.connectors().await? {
            if c.key_kinds_in_use().contains(&KeyKind::OwnKey) {
                let has = self.store.person_key(c.id, person.id).await?.is_some();
                out.push((c.id, c.name, has));
            }
        }
        Ok(out)
    }

    /// A person's own key for a connector: stored, never shown again.
    pub async fn set_own_key(&self, person: &Person, connector: i64, key: &str) -> Result<(), MemoryError> {
        let c = self.reads.connector(connector).await?;
        let key = key.trim();
        if key.is_empty() {
            return Err(MemoryError::Invalid(format!("Enter your key for {}", c.name)));
        }
        let actor = Actor { person: Some(person.id), at: self.reads.now() };
        self.store.set_person_key(c.id, person.id, key, actor).await.map_err(Into::into)
    }

    pub async fn connectors(&self, admin: &Person) -> Result<Vec<Connector>, MemoryError> {
        must_be_admin(admin)?;
        self.store.connectors().await.map_err(Into::into)
    }

    fn draft_key(c: &Connector) -> (i64, String) {
        let mut t = c.ticked.clone();
        t.sort();
        (c.id, t.join(","))
    }

    fn fresh_drafts(&self, c: &Connector) -> Option<Vec<RecordShape>> {
        let now = self.reads.now();
        let cache = self.drafts.lock().ok()?;
        cache
            .get(&Self::draft_key(c))
            .filter(|(at, _)| now - *at < Duration::minutes(DRAFT_REUSE_MINS))
            .map(|(_, d)| d.clone())
    }

    pub async fn sheet(&self, admin: &Person, id: i64) -> Result<Sheet, MemoryError> {
        must_be_admin(admin)?;
        let c = self.reads.connector(id).await?;
        let (tools, pins) = match self.store.company_key(id).await? {
            Some(key) => match self.reads.listing(&c, &key).await? {
                Ok(l) => {
                    (Ok(l.tools.into_iter().filter(|t| t.access == "read" || t.access == "write").collect()), l.pins)
                }
                Err(e) => (Err(format!("{}: {e}", c.name)), self.reads.ticked_pins(&c).await?),
            },
            None => (Err(format!("{} has no company key", c.name)), self.reads.ticked_pins(&c).await?),
        };
        let changed_tools = pins.into_iter().filter(|p| p.drift.is_some()).collect();
        let dir = self.store.outline().await?;
        let mut queries = Vec::new();
        for r in &dir.roles {
            for q in self.store.my_work_queries(r.id).await? {
                if q.connector == id {
                    queries.push((r.name.clone(), q));
                }
            }
        }
        let notices = self.store.limit_notices_of(id).await?.iter().map(|n| n.sentence(&c.name)).collect();
        Ok(Sheet {
            notices,
            shapes: self.store.shapes(id).await?,
            drafts: self.fresh_drafts(&c).unwrap_or_default(),
            roles: dir.roles.iter().map(|r| (r.id.0, r.name.clone())).collect(),
            connector: c,
            tools,
            queries,
            changed_tools,
        })
    }

    /// Saves the sheet's settings. Moving the key mode or turning Keep cards off removes what
    /// must go at once; the returned sentence says how much.
    pub async fn save_settings(&self, admin: &Person, new: &Connector) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let old = self.reads.connector(new.id).await?;
        new.facts.validate()?;
        if new.free_text.soft_mins > new.free_text.hard_mins {
            return Err(MemoryError::Invalid(
                "A soft limit cannot be longer than its hard limit (free text)".to_string(),
            ));
        }
        if new.hourly_limit == 0 {
            return Err(MemoryError::Invalid("The hourly limit must be at least 1 read".to_string()));
        }
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.update_connector(new, actor).await?;
        let mut removed = 0;
        if old.key_mode != new.key_mode || old.own_key_tools != new.own_key_tools || old.ticked != new.ticked {
            removed += self.store.set_key_mode(new.id, new.key_mode, &new.own_key_tools, actor).await?;
        }
        if old.keep_cards != new.keep_cards {
            removed += self.store.set_keep_cards(new.id, new.keep_cards, actor).await?;
        }
        if old.killed != new.killed {
            self.store.set_killed(new.id, new.killed, actor).await?;
        }
        Ok(match removed {
            0 => format!("Saved {}", new.name),
            n => format!("Saved {}; {n} card{} removed at once", new.name, if n == 1 { " was" } else { "s were" }),
        })
    }

    /// Calls each ticked read tool once with the company key and drafts what it returns. Returns
    /// the drafts and whether they were the ones already made in the last 10 minutes.
    pub async fn draft_shapes(&self, admin: &Person, id: i64) -> Result<(Vec<RecordShape>, bool), MemoryError> {
        must_be_admin(admin)?;
        let c = self.reads.connector(id).await?;
        if let Some(d) = self.fresh_drafts(&c) {
            return Ok((d, true));
        }
        let listed = match self.store.company_key(id).await? {
            Some(key) => self.reads.listing(&c, &key).await?.map(|l| l.tools).unwrap_or_default(),
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
            let kind = crate::cards::draft::kind_of(tool);
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
            let sample = match self.reads.call(&c, &ReadKey::Company, tool, &Value::Object(args), "draft").await {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    tracing::info!(tool, error = %e, "no sample for a draft");
                    continue;
                }
                Err(refusal) => return Err(MemoryError::Invalid(refusal.to_string())),
            };
            let Some(shape) = self.draft_one(&c, tool, &sample).await else { continue };
            if let Some(rec) = crate::cards::draft::first_record(&sample) {
                if let Some(id) = rec.get(&shape.id_field).and_then(Value::as_str) {
                    ids.insert(shape.kind.clone(), id.to_string());
                }
            }
            drafts.push(shape);
        }
        if let Ok(mut cache) = self.drafts.lock() {
            cache.insert(Self::draft_key(&c), (self.reads.now(), drafts.clone()));
        }
        Ok((drafts, false))
    }

    async fn draft_one(&self, c: &Connector, tool: &str, sample: &Value) -> Option<RecordShape> {
        use crate::cards::draft::{draft_prompt, read_model_draft, DRAFT_SYSTEM};
        if let Some(models) = &self.models {
            let prompt = draft_prompt(tool, sample);
            let said = crate::kernel::model::memory_call(
                self.store.as_ref(),
                models.as_ref(),
                self.reads.now(),
                "shape drafting",
                c.label,
                DRAFT_SYSTEM,
                &prompt,
            )
            .await;
            if let Some(text) = said {
                let draft = read_model_draft(&text, c.id, tool, &c.ticked, sample);
                if draft.is_some() {
                    return draft;
                }
                tracing::info!(tool, "the model's draft was unusable; drafting by rules");
            }
        }
        crate::cards::draft::draft_by_rules(c.id, tool, &c.ticked, sample)
    }

    /// An admin confirms (or edits, then confirms) a shape.
    pub async fn confirm_shape(&self, admin: &Person, shape: &RecordShape) -> Result<(), MemoryError> {
        must_be_admin(admin)?;
        let c = self.reads.connector(shape.connector).await?;
        if c.reads_with(&shape.tool).is_none() {
            return Err(MemoryError::Invalid(format!("{} is not a ticked read tool of {}", shape.tool, c.name)));
        }
        if shape.kind.trim().is_empty() || shape.id_field.trim().is_empty() || shape.fields.is_empty() {
            return Err(MemoryError::Invalid(
                "A shape needs a kind, an id field and at least one field to keep".into(),
            ));
        }
        let open = self.store.open_when(c.id, &shape.tool).await?;
        let confirmed = RecordShape { confirmed: true, ..shape.clone() };
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.save_shape(&confirmed, open.as_ref(), actor).await.map_err(Into::into)
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
        must_be_admin(admin)?;
        let c = self.reads.connector(connector).await?;
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
        let dir = self.store.outline().await?;
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
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.add_my_work_query(&q, actor).await.map_err(Into::into)
    }

    /// Turning Keep cards off removes the connector's cards at once.
    pub async fn set_keep_cards(&self, admin: &Person, connector: i64, on: bool) -> Result<u32, MemoryError> {
        must_be_admin(admin)?;
        self.reads.connector(connector).await?;
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.set_keep_cards(connector, on, actor).await.map_err(Into::into)
    }

    /// The sheet's form: the key mode and label must be ones the lists offer; then as
    /// [`save_settings`](Self::save_settings).
    pub async fn save_settings_form(
        &self,
        admin: &Person,
        id: i64,
        form: &SettingsForm,
    ) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let (Some(mode), Some(label)) =
            (KeyMode::parse(&form.key_mode), crate::cards::access::DataLabel::parse(&form.label))
        else {
            return Err(MemoryError::Invalid("Choose a key mode and a data label from the lists".into()));
        };
        let mut c = self.reads.connector(id).await?;
        c.key_mode = mode;
        c.label = label;
        c.keep_cards = form.keep_cards;
        c.killed = form.killed;
        c.facts = form.facts;
        c.free_text = form.free_text;
        c.hourly_limit = form.hourly_limit;
        self.save_settings(admin, &c).await
    }

    /// Sets (or with `None` clears) what a ticked tool that acts changes: a kind of record that
    /// has a confirmed read shape, and the argument holding its id.
    pub async fn set_write_target(
        &self,
        admin: &Person,
        id: i64,
        tool: &str,
        target: Option<(&str, &str)>,
    ) -> Result<String, MemoryError> {
        must_be_admin(admin)?;
        let mut c = self.reads.connector(id).await?;
        if !c.acting.iter().any(|t| t == tool) {
            return Err(MemoryError::Invalid(format!("{tool} is not a ticked tool that acts of {}", c.name)));
        }
        c.write_targets.retain(|t| t.tool != tool);
        if let Some((kind, id_argument)) = target {
            let (kind, id_argument) = (kind.trim(), id_argument.trim());
            if id_argument.is_empty() {
                return Err(MemoryError::Invalid("Name the argument that holds the record's id".into()));
            }
            let shapes = self.store.shapes(id).await?;
            if !shapes.iter().any(|s| s.confirmed && s.kind == kind) {
                return Err(MemoryError::Invalid(format!("{} has no confirmed read shape of {kind} records", c.name)));
            }
            c.write_targets.push(crate::cards::source::WriteTarget {
                tool: tool.into(),
                kind: kind.into(),
                id_argument: id_argument.into(),
            });
        }
        self.save_settings(admin, &c).await
    }

    /// The sheet's shape form: its fields are read, then the shape is confirmed as
    /// [`confirm_shape`](Self::confirm_shape) does. Returns the shape confirmed.
    pub async fn confirm_shape_form(&self, admin: &Person, form: &ShapeForm) -> Result<RecordShape, MemoryError> {
        must_be_admin(admin)?;
        let shape = RecordShape {
            connector: form.connector,
            tool: form.tool.clone(),
            kind: form.kind.trim().to_string(),
            id_field: form.id_field.trim().to_string(),
            version_field: Some(form.version_field.trim().to_string()).filter(|v| !v.is_empty()),
            fields: parse_shape_fields(&form.fields)?,
            get_tool: form.get_tool.trim().to_string(),
            confirmed: true,
        };
        self.confirm_shape(admin, &shape).await?;
        Ok(shape)
    }

    pub async fn set_key_mode(
        &self,
        admin: &Person,
        connector: i64,
        mode: KeyMode,
        own_key_tools: &[String],
    ) -> Result<u32, MemoryError> {
        must_be_admin(admin)?;
        self.reads.connector(connector).await?;
        let actor = Actor { person: Some(admin.id), at: self.reads.now() };
        self.store.set_key_mode(connector, mode, own_key_tools, actor).await.map_err(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::source::ShapeField;

    #[test]
    fn shape_fields_are_read_one_a_line_and_a_bad_line_is_named() {
        let f = |name: &str, free_text| ShapeField::new(name, free_text);
        assert_eq!(
            parse_shape_fields("company: structured\n\n  notes : free text \n").unwrap(),
            vec![f("company", false), f("notes", true)]
        );
        assert_eq!(parse_shape_fields("").unwrap(), vec![]);
        for bad in ["company", "company: number", ": structured"] {
            let Err(MemoryError::Invalid(why)) = parse_shape_fields(&format!("stage: structured\n{bad}")) else {
                panic!("{bad} was accepted")
            };
            assert!(why.ends_with(&format!("not \u{201c}{}\u{201d}", bad.trim())), "{why}");
        }
    }

    #[test]
    fn a_field_line_may_name_its_label_and_format_and_what_it_leaves_out_is_drafted() {
        use crate::locale::FieldFormat;
        let fields = parse_shape_fields(
            "contact_name: structured | Contact person\nvalue_inr: structured | Deal value | amount inr\n\
             next_follow_up: structured\nstage: structured || text\nnotes: free text | Notes",
        )
        .unwrap();
        let read: Vec<_> = fields.iter().map(|f| (f.name.as_str(), f.label(), f.format())).collect();
        assert_eq!(
            read,
            vec![
                ("contact_name", "Contact person".to_string(), FieldFormat::Text),
                ("value_inr", "Deal value".to_string(), FieldFormat::Amount { currency: "INR".into() }),
                ("next_follow_up", "Next follow up".to_string(), FieldFormat::Date),
                ("stage", "Stage".to_string(), FieldFormat::Text),
                ("notes", "Notes".to_string(), FieldFormat::Text),
            ]
        );
        // Only what the admin wrote is kept; the rest stays a draft, so a better draft reaches it.
        assert_eq!(fields[2].label, None);
        assert_eq!(fields[3].format, Some(FieldFormat::Text));

        for (bad, says) in [
            (
                "value_inr: structured | Value | amount rupees",
                "\u{201c}amount rupees\u{201d} is not a format for value_inr",
            ),
            ("notes: free text | Notes | number", "notes is free text, which is shown as written"),
            ("stage: structured | Stage | text | extra", "\u{201c}extra\u{201d} is one part too many"),
        ] {
            let Err(MemoryError::Invalid(why)) = parse_shape_fields(bad) else { panic!("{bad} was accepted") };
            assert!(why.starts_with(says) || why.contains(says), "{why}");
        }
    }
}
