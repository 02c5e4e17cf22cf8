//! The demo model: an HTTP server that speaks the OpenAI chat-completions protocol, tool calls
//! included, so a demo run takes the real client path with no network and no language model.
//!
//! Its replies are scripted and deterministic:
//! - a question naming a record or a company of the demo data first calls the matching Acme ATS
//!   tool from the tools it was offered (`<connector slug>__<tool>`, picked by the tool's suffix),
//!   then answers from the tool's result;
//! - "email Dana that the proposal is ready" sends with `send_email` to the address of the person
//!   named: one read in this turn when there is one, else one in the block it was sent. A question
//!   that also names a record ("read Litware's lead, then email Dana") reads the record first;
//! - "what are our sales stages" answers from the `Stages:` line of a core in the system prompt;
//! - any other question is answered from the lines of the block it was sent (the cores and the
//!   quoted `<data …>` items of the person's turn), or says it has nothing on it.

mod core_draft;
mod nightly;

use crate::acme_ats::{record_names, RecordName};
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

/// The name the demo model reports.
pub const DEMO_MODEL: &str = "engram-demo";

/// At most this many lines or records in one answer.
const MOST: usize = 5;

/// Binds 127.0.0.1:<port> (0 for any) and serves in a spawned task; returns the base URL (the
/// OpenAI-compatible API is under `/v1`) and the task handle.
pub async fn spawn(port: u16) -> std::io::Result<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}", listener.local_addr()?);
    tracing::info!(%url, "the demo model listening");
    Ok((url, tokio::spawn(async move { axum::serve(listener, router()).await })))
}

pub fn router() -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/v1/models", get(models))
}

async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": DEMO_MODEL, "object": "model", "owned_by": "engram"}]}))
}

fn refuse(message: String) -> Response {
    let body = json!({"error": {"message": message, "type": "invalid_request_error"}});
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

async fn chat(body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return refuse(format!("The body is not JSON: {e}")),
    };
    let Some(raw) = request.get("messages").and_then(Value::as_array) else {
        return refuse("The body has no messages.".into());
    };
    let mut messages = Vec::with_capacity(raw.len());
    for m in raw {
        match Message::read(m) {
            Some(m) => messages.push(m),
            None => return refuse(format!("A message has no role this model knows: {m}")),
        }
    }
    let tools: Vec<String> = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter().filter_map(|t| t.pointer("/function/name").and_then(Value::as_str)).map(String::from).collect()
        })
        .unwrap_or_default();
    let (message, finish) = match reply(&messages, &tools) {
        Scripted::Answer(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Scripted::Call { id, name, arguments } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()},
            }]}),
            "tool_calls",
        ),
    };
    Json(json!({
        "id": format!("chatcmpl-{DEMO_MODEL}-{}", messages.len()),
        "object": "chat.completion",
        "created": 0,
        "model": DEMO_MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }))
    .into_response()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone)]
struct Message {
    role: Role,
    content: String,
    /// The tools an assistant message called, with their arguments.
    calls: Vec<(String, Value)>,
}

impl Message {
    fn read(m: &Value) -> Option<Self> {
        let role = match m.get("role")?.as_str()? {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        };
        // Text, or a list of parts of which the text ones count.
        let content = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => {
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
            }
            _ => String::new(),
        };
        let calls = m
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .filter_map(|c| {
                        let name = c.pointer("/function/name")?.as_str()?.to_string();
                        let arguments = c
                            .pointer("/function/arguments")
                            .and_then(Value::as_str)
                            .and_then(|a| serde_json::from_str(a).ok())
                            .unwrap_or(Value::Null);
                        Some((name, arguments))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self { role, content, calls })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Scripted {
    Answer(String),
    Call { id: String, name: String, arguments: Value },
}

/// The scripted reply to a conversation.
fn reply(messages: &[Message], tools: &[String]) -> Scripted {
    let Some(last_user) = messages.iter().rposition(|m| m.role == Role::User) else {
        return Scripted::Answer("I was asked nothing.".into());
    };
    let system: Vec<&str> = messages.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
    if system.first() == Some(&engine::learning::nightly::prompt::NIGHTLY_SYSTEM) {
        return Scripted::Answer(nightly::reply(&messages[last_user].content));
    }
    if system.first() == Some(&engine::learning::draft::CORE_DRAFT_SYSTEM) {
        return Scripted::Answer(core_draft::reply(&messages[last_user].content));
    }
    let cores = core_lines(&system.join("\n"));
    let turn = &messages[last_user].content;
    let question = question_of(turn);
    let results: Vec<&str> =
        messages[last_user..].iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    let data = data_lines(turn);
    let named = named_record(&question, &record_names());
    if let (Some(ask), Some(send)) = (email_ask(&question), offered(tools, "send_email")) {
        let mut calls = messages[last_user..].iter().flat_map(|m| &m.calls);
        if let Some((_, arguments)) = calls.rfind(|(name, _)| *name == send) {
            return Scripted::Answer(after_send(arguments, results.last().copied().unwrap_or_default()));
        }
        // A record the question names is read before anything is sent.
        if !(results.is_empty() && named.as_ref().and_then(|n| call_for(n, &question, tools)).is_some()) {
            let address =
                results.iter().find_map(|r| address_in_result(r, &ask.to)).or_else(|| address_in_lines(&data, &ask.to));
            let Some(to) = address else {
                return Scripted::Answer(format!("I have no email address for {} to send it to.", ask.to));
            };
            return Scripted::Call { id: format!("call_{}", messages.len()), name: send, arguments: ask.message(&to) };
        }
    }
    if !results.is_empty() {
        return Scripted::Answer(from_results(&results));
    }
    let q = question.to_lowercase();
    if let Some(named) = named {
        if let Some((name, arguments)) = call_for(&named, &question, tools) {
            return Scripted::Call { id: format!("call_{}", messages.len()), name, arguments };
        }
        let from_memory = from_block(&named.name, &cores, &data);
        if from_memory.starts_with("From what I was given") {
            return Scripted::Answer(format!("I have no tool that reads {} here. {from_memory}", named.name));
        }
        return Scripted::Answer(format!(
            "I have no tool that reads {} here, and nothing I was given mentions it.",
            named.name
        ));
    }
    if words(&q).iter().any(|w| w == "stages" || w == "stage") {
        return Scripted::Answer(stages(&cores, q.contains("sales")));
    }
    Scripted::Answer(from_block(&question, &cores, &data))
}

/// The question: what follows the last quoted item of the person's turn.
fn question_of(turn: &str) -> String {
    let tail = turn.rfind("</data>").map(|i| &turn[i + "</data>".len()..]).unwrap_or(turn).trim();
    let tail = tail.strip_prefix("Question:").or_else(|| tail.strip_prefix("question:")).unwrap_or(tail);
    tail.trim().to_string()
}

/// A core's section, by its header: "What the Sales role always knows (company core, version 3):".
struct CoreLines {
    header: String,
    lines: Vec<String>,
}

fn core_lines(system: &str) -> Vec<CoreLines> {
    let mut cores: Vec<CoreLines> = Vec::new();
    for line in system.lines() {
        let line = line.trim();
        if line.ends_with("):") && line.contains("core, version") {
            cores.push(CoreLines { header: line.to_string(), lines: Vec::new() });
        } else if let Some(core) = cores.last_mut().filter(|_| !line.is_empty()) {
            core.lines.push(line.to_string());
        }
    }
    cores
}

/// The lines inside the `<data …>` items of the person's turn.
fn data_lines(turn: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = turn;
    while let Some(start) = rest.find("<data") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else { break };
        let inner = &after[open_end + 1..];
        let close = inner.find("</data>").unwrap_or(inner.len());
        lines.extend(inner[..close].lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from));
        rest = &inner[close..];
    }
    lines
}

/// Lower-case words, ids such as `L-1001` kept whole.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn offered(tools: &[String], suffix: &str) -> Option<String> {
    let ending = format!("__{suffix}");
    tools.iter().find(|t| t.as_str() == suffix || t.ends_with(&ending)).cloned()
}

/// A record a question names: by its id, or by its name.
#[derive(Debug, Clone, PartialEq)]
struct Named {
    /// "lead", "ticket", "contact".
    kind: &'static str,
    /// Set when the question gave the id.
    id: Option<String>,
    /// What the question called it: its id, a company, a person.
    name: String,
    /// The seeded record's id, when it was named by its name.
    seeded: Option<String>,
}

fn named_record(question: &str, names: &[RecordName]) -> Option<Named> {
    // An id names its record exactly.
    for w in question.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        let w = w.to_ascii_uppercase();
        let Some((prefix, digits)) = w.split_once('-') else { continue };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let kind = match prefix {
            "L" => "lead",
            "T" => "ticket",
            "C" => "contact",
            _ => continue,
        };
        return Some(Named { kind, id: Some(w.clone()), name: w, seeded: None });
    }
    // A name, whole or by its first word when that is distinctive; the longest name first.
    let spaced = format!(" {} ", words(question).join(" "));
    let mut names: Vec<&RecordName> = names.iter().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.name.len()));
    names
        .into_iter()
        .find(|n| {
            let full = words(&n.name).join(" ");
            let first = full.split(' ').next().unwrap_or_default();
            spaced.contains(&format!(" {full} ")) || (first.len() >= 5 && spaced.contains(&format!(" {first} ")))
        })
        .map(|n| Named { kind: n.kind, id: None, name: n.name.clone(), seeded: Some(n.id.clone()) })
}

/// The tool call for a named record, among the tools offered.
fn call_for(named: &Named, question: &str, tools: &[String]) -> Option<(String, Value)> {
    if let Some(id) = &named.id {
        let tool = format!("get_{}", named.kind);
        return offered(tools, &tool).map(|name| (name, json!({"id": id})));
    }
    let ws = words(question);
    let has = |w: &[&str]| ws.iter().any(|x| w.contains(&x.as_str()));
    let wants = if has(&["ticket", "tickets", "support", "issue", "issues", "problem", "problems"]) {
        ["search_tickets", "search_leads", "search_contacts"]
    } else if has(&["lead", "leads", "deal", "deals"]) {
        ["search_leads", "search_contacts", "search_tickets"]
    } else if named.kind == "contact" || has(&["contact", "contacts", "phone", "email", "title"]) {
        ["search_contacts", "search_leads", "search_tickets"]
    } else {
        ["search_leads", "search_tickets", "search_contacts"]
    };
    let tool = wants.iter().find_map(|t| offered(tools, t))?;
    // A contact is searched for by name; leads and tickets by the contact's company.
    let query = if named.kind == "contact" && !tool.ends_with("search_contacts") {
        named.seeded.as_deref().and_then(contacts_company).unwrap_or_else(|| named.name.clone())
    } else {
        named.name.clone()
    };
    Some((tool, json!({"query": query})))
}

/// The company a seeded contact works at, for searching leads and tickets by it.
fn contacts_company(contact: &str) -> Option<String> {
    // Each seeded contact is the contact of the lead with the same number past 1000.
    let n: u32 = contact.strip_prefix("C-")?.parse().ok()?;
    let lead = format!("L-{}", n.checked_sub(1000)?);
    record_names().into_iter().find(|r| r.id == lead).map(|r| r.name)
}

/// A message the question asks to have sent: "email Dana that the proposal is ready".
#[derive(Debug, Clone, PartialEq)]
struct EmailAsk {
    /// Whom to, as the question names them.
    to: String,
    /// What it is to say, when the question says: "the proposal is ready".
    about: Option<String>,
}

impl EmailAsk {
    fn message(&self, to: &str) -> Value {
        let (subject, said) = match &self.about {
            Some(about) => (capitalised(about), format!("{}.", capitalised(about))),
            None => ("Following up".to_string(), "I wanted to follow up with you.".to_string()),
        };
        json!({"to": to, "subject": subject, "body": format!("Hi {},\n\n{said}", self.to)})
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// "email <Name> [that <what>]", also "send <Name> an email" and "mail <Name>".
fn email_ask(question: &str) -> Option<EmailAsk> {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let at = tokens.iter().position(|t| matches!(bare(t).as_str(), "email" | "e-mail" | "mail"))?;
    let to = tokens.get(at + 1).map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))?;
    if to.is_empty() || !to.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let rest = &tokens[at + 2..];
    let about = rest
        .iter()
        .position(|t| bare(t) == "that")
        .map(|i| rest[i + 1..].join(" ").trim_end_matches(['.', '!', '?']).trim().to_string())
        .filter(|a| !a.is_empty());
    Some(EmailAsk { to: to.to_string(), about })
}

/// The email of a record a tool returned that names `who`.
fn address_in_result(result: &str, who: &str) -> Option<String> {
    let v = json_in(result)?;
    let v = v.get("result").cloned().unwrap_or(v);
    let records = match &v {
        Value::Array(items) => items.clone(),
        Value::Object(o) => o.get("records").and_then(Value::as_array).cloned().unwrap_or_else(|| vec![v.clone()]),
        _ => return None,
    };
    let who = who.to_lowercase();
    records.iter().filter_map(Value::as_object).find_map(|r| {
        let strings: Vec<&str> = r.values().filter_map(Value::as_str).collect();
        let names_them = strings.iter().any(|s| !s.contains('@') && words(s).contains(&who));
        names_them.then(|| strings.iter().copied().find(|s| is_address(s)).map(String::from)).flatten()
    })
}

/// An address in a line of the block that names `who`.
fn address_in_lines(lines: &[String], who: &str) -> Option<String> {
    let who = who.to_lowercase();
    lines.iter().filter(|l| words(l).contains(&who)).find_map(|l| {
        l.split_whitespace()
            .map(|t| t.trim_matches(|c: char| !(c.is_alphanumeric() || c == '@' || c == '.')).trim_end_matches('.'))
            .find(|t| is_address(t))
            .map(String::from)
    })
}

fn is_address(s: &str) -> bool {
    s.split_once('@').is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !s.contains(char::is_whitespace))
}

/// What the model says once its `send_email` call was answered.
fn after_send(arguments: &Value, result: &str) -> String {
    let to = arguments.get("to").and_then(Value::as_str).unwrap_or("them");
    let result = result.trim();
    if result == engine::runs::provenance::REFUSED {
        format!("I did not send the email to {to}: {result}.")
    } else if result == engine::runs::service::WAITING_FOR_APPROVAL {
        format!("The email to {to} waits in your Inbox for your approval.")
    } else {
        format!("The email to {to} was not sent: {result}")
    }
}

/// "A, B and C".
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The stages from a core's `Stages:` line; a core of the Sales role first when the question is
/// about sales.
fn stages(cores: &[CoreLines], sales: bool) -> String {
    let mut ordered: Vec<&CoreLines> = cores.iter().collect();
    ordered.sort_by_key(|c| !(sales && c.header.contains("Sales")));
    let line = ordered.iter().flat_map(|c| &c.lines).find_map(|l| {
        let l = l.trim_start_matches(['-', '*', '•', ' ']);
        l.get(..7).filter(|p| p.eq_ignore_ascii_case("stages:")).map(|_| l[7..].trim())
    });
    let Some(line) = line else {
        return "No core I was given lists the stages, so I cannot say what they are.".into();
    };
    let items: Vec<String> = line
        .trim_end_matches('.')
        .replace(" and ", ",")
        .split([',', ';', '→', '>'])
        .map(|s| s.trim().trim_end_matches('.').to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let whose = if sales { "Our sales stages" } else { "Our stages" };
    format!("{whose} are {}.", listed(&items))
}

const STOP: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "at", "be", "can", "do", "does", "for", "from", "give", "has", "have",
    "how", "i", "in", "is", "it", "know", "list", "me", "my", "of", "on", "or", "our", "please", "show", "tell",
    "that", "the", "there", "this", "to", "us", "we", "what", "when", "where", "which", "who", "whom", "why", "with",
    "you", "your",
];

/// The lines of the block that share a word with the question.
fn from_block(question: &str, cores: &[CoreLines], data: &[String]) -> String {
    let keys: Vec<String> = words(question)
        .into_iter()
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| if w.len() > 4 { w.trim_end_matches('s').to_string() } else { w })
        .collect();
    let lines: Vec<&String> = cores.iter().flat_map(|c| &c.lines).chain(data).collect();
    if lines.is_empty() {
        return "I was given no core and no memory to answer from, so I have nothing on that.".into();
    }
    let mut found: Vec<&str> = Vec::new();
    for line in lines {
        let lower = line.to_lowercase();
        if keys.iter().any(|k| lower.contains(k.as_str())) && !found.contains(&line.as_str()) {
            found.push(line);
        }
    }
    if found.is_empty() {
        return "I have nothing on that: no core or memory I was given mentions it.".into();
    }
    let shown: Vec<String> = found.iter().take(MOST).map(|l| format!("- {l}")).collect();
    format!("From what I was given:\n{}", shown.join("\n"))
}

/// An answer from the results of the tools called for the question.
fn from_results(results: &[&str]) -> String {
    let said: Vec<String> = results.iter().map(|r| from_result(r)).collect();
    said.join("\n")
}

fn from_result(result: &str) -> String {
    let Some(v) = json_in(result) else {
        let short: String = result.trim().chars().take(300).collect();
        return format!("The tool answered: {short}");
    };
    let v = v.get("result").cloned().unwrap_or(v);
    if let Some(message) = v.get("message").and_then(Value::as_str).filter(|_| v.get("error").is_some()) {
        return format!("The tool would not give me that: {message}");
    }
    let records: Vec<Value> = match &v {
        Value::Array(items) => items.clone(),
        Value::Object(o) => match o.get("records").and_then(Value::as_array) {
            Some(items) => items.clone(),
            None => vec![v.clone()],
        },
        other => return format!("The tool answered: {other}"),
    };
    if records.is_empty() {
        return "The records I read hold nothing that matches.".into();
    }
    let mut lines: Vec<String> = records.iter().take(MOST).map(describe).collect();
    if records.len() > MOST {
        lines.push(format!("And {} more.", records.len() - MOST));
    }
    lines.join("\n")
}

/// The JSON a tool turn carries, bare or inside quoting.
fn json_in(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Ok(v) = serde_json::from_str(text) {
        return Some(v);
    }
    let start = text.find(['{', '['])?;
    let end = text.rfind(['}', ']'])?;
    serde_json::from_str(text.get(start..=end)?).ok()
}

fn field(r: &Map<String, Value>, name: &str) -> Option<String> {
    match r.get(name)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// "1,850,000"
fn grouped(n: &str) -> String {
    let digits: Vec<char> = n.chars().collect();
    let mut out = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*c);
    }
    out
}

/// One record in a sentence: a lead, a ticket, a contact, or its fields as they are.
fn describe(record: &Value) -> String {
    let Some(r) = record.as_object() else { return record.to_string() };
    let f = |name: &str| field(r, name);
    let id = f("id").unwrap_or_else(|| "a record".into());
    if let (Some(company), Some(stage)) = (f("company"), f("stage")) {
        let mut s = format!("{company} ({id}) is at the {stage} stage");
        if let Some(v) = f("value_inr").filter(|v| v.bytes().all(|b| b.is_ascii_digit())) {
            s.push_str(&format!(", worth INR {}", grouped(&v)));
        }
        if let Some(owner) = f("owner") {
            s.push_str(&format!(", owned by {owner}"));
        }
        if let Some(day) = f("next_follow_up") {
            s.push_str(&format!("; the next follow-up is on {day}"));
        }
        return s + ".";
    }
    if let (Some(subject), Some(status)) = (f("subject"), f("status")) {
        let mut s = format!("{id}, \"{subject}\"");
        if let Some(customer) = f("customer") {
            s.push_str(&format!(" for {customer}"));
        }
        s.push_str(&format!(", is {status}"));
        if let Some(p) = f("priority") {
            s.push_str(&format!(" with {p} priority"));
        }
        if let Some(a) = f("assignee") {
            s.push_str(&format!(", assigned to {a}"));
        }
        return s + ".";
    }
    if let (Some(name), Some(title)) = (f("name"), f("title")) {
        let mut s = format!("{name} ({id}) is {title}");
        if let Some(c) = f("company") {
            s.push_str(&format!(" at {c}"));
        }
        let reach: Vec<String> = [f("email"), f("phone")].into_iter().flatten().collect();
        if !reach.is_empty() {
            s.push_str(&format!("; {}", reach.join(", ")));
        }
        return s + ".";
    }
    let fields: Vec<String> = r
        .iter()
        .filter(|(k, v)| k.as_str() != "id" && !v.is_object() && !v.is_array())
        .map(|(k, v)| format!("{k}: {}", v.as_str().map(String::from).unwrap_or_else(|| v.to_string())))
        .collect();
    format!("{id}: {}.", fields.join(", "))
}

#[cfg(test)]
mod tests;
