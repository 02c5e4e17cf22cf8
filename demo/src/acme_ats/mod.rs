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

mod seed_data;
mod server;
#[cfg(test)]
mod tests;
mod tools;

pub use server::{record_names, spawn, AcmeAts, AtsConfig, RecordName};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use chrono::{DateTime, Days, Duration, NaiveDate, SecondsFormat, SubsecRound, Utc};
use seed_data::seed;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Map, Value};
use server::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tools::*;

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
