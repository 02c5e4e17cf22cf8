//! The tools the server lists and how their arguments are read.

use super::*;

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Access {
    Read,
    Write,
}

#[derive(Clone, Copy)]
pub(super) enum ParamType {
    String,
    Number,
}

pub(super) struct Param {
    pub(super) name: &'static str,
    pub(super) kind: ParamType,
    pub(super) required: bool,
    pub(super) description: &'static str,
}

pub(super) const fn required(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::String, required: true, description }
}

pub(super) const fn text(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::String, required: false, description }
}

pub(super) const fn number(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamType::Number, required: false, description }
}

pub(super) const LIMIT: Param = number("limit", "At most this many records, 1 to 500; 50 when left out.");

pub(super) struct ToolSpec {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) access: Access,
    pub(super) bulk: bool,
    pub(super) params: &'static [Param],
}

pub(super) const TOOLS: &[ToolSpec] = &[
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
    pub(super) fn to_json(&self) -> Value {
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
    pub(super) fn check<'a>(&self, arguments: &'a Map<String, Value>) -> Result<Args<'a>, AtsError> {
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
pub(super) struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    pub(super) fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    pub(super) fn id(&self) -> &str {
        self.str("id").map(str::trim).unwrap_or_default()
    }

    pub(super) fn parse<T: DeserializeOwned>(&self, name: &str, what: &str) -> Result<Option<T>, AtsError> {
        match self.0.get(name).filter(|v| !v.is_null()) {
            None => Ok(None),
            Some(v) => serde_json::from_value(v.clone())
                .map(Some)
                .map_err(|_| AtsError::InvalidArguments(format!("`{name}` must be {what}."))),
        }
    }

    pub(super) fn date(&self, name: &str) -> Result<Option<NaiveDate>, AtsError> {
        self.str(name)
            .map(|s| NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d"))
            .transpose()
            .map_err(|_| AtsError::InvalidArguments(format!("`{name}` must be a day written YYYY-MM-DD.")))
    }

    /// One of `names`, matched ignoring case, since callers are often models that capitalise freely.
    pub(super) fn choice<T: DeserializeOwned>(&self, name: &str, names: &[&str]) -> Result<Option<T>, AtsError> {
        let Some(given) = self.str(name) else { return Ok(None) };
        let canonical = names.iter().find(|n| n.eq_ignore_ascii_case(given.trim())).ok_or_else(|| {
            AtsError::InvalidArguments(format!("`{name}` must be one of {}, not {given:?}.", names.join(", ")))
        })?;
        Ok(serde_json::from_value(json!(canonical)).ok())
    }

    pub(super) fn email(&self, name: &str) -> Result<Option<String>, AtsError> {
        match self.str(name).map(|s| s.trim().to_ascii_lowercase()) {
            Some(email) if !email.contains('@') || email.contains(char::is_whitespace) => {
                Err(AtsError::InvalidArguments(format!("`{name}` must be an email address.")))
            }
            other => Ok(other),
        }
    }

    pub(super) fn limit(&self) -> Result<usize, AtsError> {
        match self.0.get("limit").and_then(Value::as_f64) {
            None => Ok(50),
            Some(n) if n.fract() == 0.0 && (1.0..=500.0).contains(&n) => Ok(n as usize),
            Some(_) => Err(AtsError::InvalidArguments("`limit` must be a whole number from 1 to 500.".into())),
        }
    }
}
