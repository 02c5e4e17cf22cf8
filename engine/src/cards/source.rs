//! Connectors: outside systems read over the connector protocol, their settings, the shapes of
//! the records their tools return, and the trait the server's HTTP client implements.

use super::access::{DataLabel, KeyKind};
pub use super::facts::{FactKind, FactLimits};
use crate::locale::{draft_field, FieldFormat};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a connector's tools read: the admin's choice on its setup sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyMode {
    /// The company key alone.
    Company,
    /// The company key with the acting-for header.
    ActingFor,
    /// People's own keys.
    OwnKeys,
}

impl KeyMode {
    pub fn key_kind(&self) -> KeyKind {
        match self {
            KeyMode::Company => KeyKind::Company,
            KeyMode::ActingFor => KeyKind::ActingFor,
            KeyMode::OwnKeys => KeyKind::OwnKey,
        }
    }
}

crate::string_enum!(KeyMode {
    Company => "company",
    ActingFor => "acting_for",
    OwnKeys => "own_keys",
});

pub use super::facts::Freshness;

/// One field of a kept record, as its shape keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardField {
    pub name: String,
    pub value: String,
    /// Notes, subjects, descriptions: text someone outside wrote.
    pub free_text: bool,
}

/// How a kept card stands against its connector's freshness limits now, for the fields that load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FreshnessNow {
    /// Within the soft limit: a run may answer from memory without a check.
    #[default]
    WithinSoft,
    /// Past the soft limit: what the answer uses is checked against the source.
    PastSoft,
    /// Past the hard limit: the source is read first.
    PastHard,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connector {
    pub id: i64,
    pub name: String,
    pub base_url: String,
    pub key_mode: KeyMode,
    /// Tools an admin set to people's own keys, whatever the connector's mode.
    pub own_key_tools: Vec<String>,
    /// Read tools an admin ticked: runs read with them, and their records may become cards.
    pub ticked: Vec<String>,
    /// Tools that act an admin ticked: a run's call waits in the person's Inbox. Kept apart from
    /// the read tools, so that nothing that reads (drafting shapes, queries, checks) calls them.
    #[serde(default)]
    pub acting: Vec<String>,
    /// For tools that act and change one record: which record, so the change reads it first.
    #[serde(default)]
    pub write_targets: Vec<WriteTarget>,
    pub label: DataLabel,
    /// Role slugs its toolset admits; empty admits everyone.
    pub admits_roles: Vec<String>,
    pub keep_cards: bool,
    /// How long each kind of structured fact may age.
    pub facts: FactLimits,
    pub free_text: Freshness,
    pub hourly_limit: u32,
    pub killed: bool,
    /// Whether a company key was entered; the key itself is never shown again.
    pub has_company_key: bool,
}

impl Connector {
    /// The limits one field ages by: free text by its own, a structured field by its kind's.
    pub fn limits_of(&self, field: &CardField) -> Freshness {
        if field.free_text {
            self.free_text
        } else {
            self.facts.of(FactKind::of(&field.name, &field.value))
        }
    }

    /// How fresh a card read at `read_at` is at `now`, for the fields that load: the strictest
    /// limits among their kinds apply.
    pub fn freshness(
        &self,
        read_at: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
        fields: &[CardField],
    ) -> FreshnessNow {
        let limits = fields.iter().map(|f| self.limits_of(f));
        let soft = limits.clone().map(|l| l.soft_mins).min();
        let hard = limits.map(|l| l.hard_mins).min();
        let (Some(soft), Some(hard)) = (soft, hard) else { return FreshnessNow::WithinSoft };
        let age = (now - read_at).num_minutes();
        if age > i64::from(hard) {
            FreshnessNow::PastHard
        } else if age > i64::from(soft) {
            FreshnessNow::PastSoft
        } else {
            FreshnessNow::WithinSoft
        }
    }

    /// Whether a field read at `read_at` is past its soft limit at `now`: what a check reads again.
    pub fn due(
        &self,
        field: &CardField,
        read_at: chrono::DateTime<chrono::Utc>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> bool {
        (now - read_at).num_minutes() > i64::from(self.limits_of(field).soft_mins)
    }

    /// The longest of its hard limits: a use older than this is no longer worth keeping.
    pub fn hard_mins(&self) -> u32 {
        self.facts.longest_hard().max(self.free_text.hard_mins)
    }

    /// How a tool reads now, or `None` when it is not ticked.
    pub fn reads_with(&self, tool: &str) -> Option<KeyKind> {
        if !self.ticked.iter().any(|t| t == tool) {
            return None;
        }
        if self.own_key_tools.iter().any(|t| t == tool) {
            return Some(KeyKind::OwnKey);
        }
        Some(self.key_mode.key_kind())
    }

    /// The key kinds any ticked tool reads with now.
    pub fn key_kinds_in_use(&self) -> Vec<KeyKind> {
        let mut kinds: Vec<KeyKind> = self.ticked.iter().filter_map(|t| self.reads_with(t)).collect();
        kinds.dedup();
        let mut out = Vec::new();
        for k in kinds {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    }

    pub fn toolset_now(&self, tool: &str) -> super::access::ToolsetNow {
        super::access::ToolsetNow {
            id: self.id,
            label: self.label,
            admits_roles: self.admits_roles.clone(),
            tool_reads_with: self.reads_with(tool),
            key_kinds_in_use: self.key_kinds_in_use(),
            keep_cards: self.keep_cards,
        }
    }
}

/// One field a shape keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeField {
    pub name: String,
    /// Notes, subjects, bodies: text someone outside wrote.
    pub free_text: bool,
    /// What people read the field as, as the admin confirmed it; drafted from the name when
    /// unset (shapes confirmed before labels were asked for have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How its value is written for people; drafted from the name when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<FieldFormat>,
}

impl ShapeField {
    /// A field with its label and format left to the draft.
    pub fn new(name: impl Into<String>, free_text: bool) -> Self {
        Self { name: name.into(), free_text, label: None, format: None }
    }

    /// The label people read: the admin's, or the one drafted from the name.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| draft_field(&self.name).0)
    }

    /// How the value is written: the admin's choice, or the one drafted from the name. Free
    /// text is always as written.
    pub fn format(&self) -> FieldFormat {
        if self.free_text {
            return FieldFormat::Text;
        }
        self.format.clone().unwrap_or_else(|| draft_field(&self.name).1)
    }
}

/// What a tool that acts changes, as an admin set it: the kind of record, and the argument that
/// holds its id. The change then reads the record first, with the get tool of a confirmed read
/// shape of that kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteTarget {
    pub tool: String,
    pub kind: String,
    pub id_argument: String,
}

/// What a ticked read tool returns, as an admin confirmed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordShape {
    pub connector: i64,
    pub tool: String,
    pub kind: String,
    pub id_field: String,
    pub version_field: Option<String>,
    pub fields: Vec<ShapeField>,
    /// The tool that reads one record by id.
    pub get_tool: String,
    pub confirmed: bool,
}

/// A tool as the source lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub access: String,
    #[serde(default)]
    pub bulk: bool,
    #[serde(default)]
    pub parameters: Value,
    /// A reference list (team members, territories, lead sources), as the source marks it: what
    /// a who's-who toolset fetches daily.
    #[serde(default)]
    pub reference: bool,
}

/// The key a read is made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadKey {
    Company,
    ActingFor(String),
    OwnKey(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("not found at the source")]
    NotFound,
    #[error("the source refused the key")]
    Unauthorized,
    #[error("the source does not let this person see it")]
    Forbidden,
    #[error("the source could not be reached: {0}")]
    Down(String),
    #[error("the source answered something unexpected: {0}")]
    Invalid(String),
}

/// Calls a connector's tools over HTTP; the server implements it with reqwest.
#[async_trait]
pub trait Source: Send + Sync {
    async fn tools(&self, base_url: &str, company_key: &str) -> Result<Vec<ToolInfo>, SourceError>;
    async fn call(
        &self,
        base_url: &str,
        company_key: Option<&str>,
        key: &ReadKey,
        tool: &str,
        arguments: &Value,
    ) -> Result<Value, SourceError>;
}

/// One record as its shape keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptRecord {
    pub id: String,
    pub version: Option<String>,
    /// The shape's fields the answer carried, as text.
    pub fields: Vec<CardField>,
    /// The shape's fields the answer did not carry: unknown, never a change.
    pub missing: Vec<String>,
}

/// The fields a shape keeps from one record, as text, with the record's id and version; `None`
/// when the record has no id.
pub fn keep_fields(shape: &RecordShape, record: &Value) -> Option<KeptRecord> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let id = record.get(&shape.id_field).map(text).filter(|s| !s.is_empty())?;
    let version = shape.version_field.as_ref().and_then(|f| record.get(f)).map(text);
    let mut fields = Vec::new();
    let mut missing = Vec::new();
    for f in &shape.fields {
        match record.get(&f.name) {
            // A credential a record happens to hold is kept masked, never whole; a refresh masks
            // alike, so it reads as no change.
            Some(v) => fields.push(CardField {
                name: f.name.clone(),
                value: crate::secrets::masked(&text(v)).into_owned(),
                free_text: f.free_text,
            }),
            None => missing.push(f.name.clone()),
        }
    }
    Some(KeptRecord { id, version, fields, missing })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn connector() -> Connector {
        Connector {
            id: 1,
            name: "Acme ATS".into(),
            base_url: "http://x".into(),
            key_mode: KeyMode::Company,
            own_key_tools: vec![],
            ticked: vec!["get_lead".into(), "list_leads".into()],
            acting: vec![],
            write_targets: vec![],
            label: DataLabel::Internal,
            admits_roles: vec![],
            keep_cards: true,
            facts: FactLimits::DEFAULT,
            free_text: Freshness { soft_mins: 30, hard_mins: 720 },
            hourly_limit: 600,
            killed: false,
            has_company_key: true,
        }
    }

    #[test]
    fn a_tool_reads_with_the_connectors_mode_unless_set_to_own_keys() {
        let mut c = connector();
        assert_eq!(c.reads_with("get_lead"), Some(KeyKind::Company));
        assert_eq!(c.reads_with("update_lead"), None, "not ticked");
        c.own_key_tools.push("list_leads".into());
        assert_eq!(c.reads_with("list_leads"), Some(KeyKind::OwnKey));
        assert_eq!(c.key_kinds_in_use(), vec![KeyKind::Company, KeyKind::OwnKey]);
        c.key_mode = KeyMode::ActingFor;
        assert_eq!(c.key_kinds_in_use(), vec![KeyKind::ActingFor, KeyKind::OwnKey]);
    }

    #[test]
    fn freshness_is_read_against_the_strictest_limits_of_what_loads() {
        let c = connector();
        let read = chrono::DateTime::parse_from_rfc3339("2026-11-30T08:00:00Z").unwrap().to_utc();
        let at = |mins: i64| read + chrono::Duration::minutes(mins);
        let f = |name: &str, value: &str, free_text| CardField { name: name.into(), value: value.into(), free_text };
        let stage = [f("company", "Zeta", false), f("stage", "Proposal", false)];
        assert_eq!(c.freshness(read, at(60), &stage), FreshnessNow::WithinSoft, "the soft limit itself is fresh");
        assert_eq!(c.freshness(read, at(61), &stage), FreshnessNow::PastSoft);
        assert_eq!(c.freshness(read, at(1440), &stage), FreshnessNow::PastSoft);
        assert_eq!(c.freshness(read, at(1441), &stage), FreshnessNow::PastHard);
        // An amount moves faster than a stage; free text faster than both here.
        let value = [f("stage", "Proposal", false), f("value_inr", "5000", false)];
        assert_eq!(c.freshness(read, at(16), &value), FreshnessNow::PastSoft);
        assert_eq!(c.freshness(read, at(241), &value), FreshnessNow::PastHard);
        let notes = [f("stage", "Proposal", false), f("notes", "call back", true)];
        assert_eq!(c.freshness(read, at(31), &notes), FreshnessNow::PastSoft);
        assert_eq!(c.freshness(read, at(721), &notes), FreshnessNow::PastHard);
        assert_eq!(c.freshness(read, at(30), &notes), FreshnessNow::WithinSoft);
        // Reference data ages slowest: a day before it is due.
        let id = f("email", "dana@litware.example", false);
        assert!(!c.due(&id, read, at(1440)) && c.due(&id, read, at(1441)));
        assert!(c.due(&stage[1], read, at(61)) && !c.due(&stage[0], read, at(61)));
    }

    #[test]
    fn a_shape_keeps_only_its_fields() {
        let shape = RecordShape {
            connector: 1,
            tool: "get_lead".into(),
            kind: "lead".into(),
            id_field: "id".into(),
            version_field: Some("updated_at".into()),
            fields: vec![
                ShapeField::new("company", false),
                ShapeField::new("value_inr", false),
                ShapeField::new("notes", true),
            ],
            get_tool: "get_lead".into(),
            confirmed: true,
        };
        let rec =
            json!({"id": "L-1", "company": "Zeta", "value_inr": 5000, "notes": "n", "secret": "s", "updated_at": "t"});
        let kept = keep_fields(&shape, &rec).unwrap();
        assert_eq!((kept.id.as_str(), kept.version.as_deref()), ("L-1", Some("t")));
        assert_eq!(
            kept.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            vec!["company", "value_inr", "notes"]
        );
        assert_eq!(kept.fields[1].value, "5000");
        assert!(kept.missing.is_empty());
        assert!(keep_fields(&shape, &json!({"company": "no id"})).is_none());
        // A field the answer leaves out is missing, not empty; a null is an empty value.
        let partial = keep_fields(&shape, &json!({"id": "L-1", "company": null, "notes": "n"})).unwrap();
        assert_eq!(partial.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec!["company", "notes"]);
        assert_eq!(partial.fields[0].value, "");
        assert_eq!(partial.missing, vec!["value_inr"]);
        // A credential in a record is kept masked, in whichever field it stands.
        let key = ["AKIA", "IOSFODNN7EXAMPLE"].concat();
        let leaky = json!({"id": "L-1", "company": "Zeta", "notes": format!("portal key {key}, rotate monthly")});
        let kept = keep_fields(&shape, &leaky).unwrap();
        assert_eq!(kept.fields[1].value, "portal key AKIA…MPLE, rotate monthly");
        assert_eq!(kept.fields[0].value, "Zeta");
    }
}
