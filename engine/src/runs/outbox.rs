//! `send_email`: the tool that sends a message for the person a run acts for. Nothing is sent
//! from a run: the message waits in their Inbox, and only once they approve it goes to the
//! configured outbox, which the server reaches over HTTP.

use super::model::ToolSpec;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The tool's name as agents call it: Engram's own, beside the connectors' tools.
pub const SEND_EMAIL: &str = "engram__send_email";

/// A message to send, as approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutgoingMessage {
    /// The person it is sent for: their email.
    pub from: String,
    pub to: String,
    pub subject: String,
    pub body: String,
}

/// What a `send_email` call is missing; the sentence is the person's to read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageRefusal {
    #[error("\u{201c}{0}\u{201d} is not an email address")]
    NotAnAddress(String),
    #[error("The message has no subject and no text")]
    NoText,
}

/// Why the outbox did not take an approved message; the detail of an unreachable outbox is
/// logged where it failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutboxError {
    #[error("the outbox could not be reached")]
    Unreachable,
    /// It answered with this HTTP status.
    #[error("the outbox refused it ({0})")]
    Refused(u16),
}

impl OutgoingMessage {
    /// The message a `send_email` call asks for, from `from`; `Err` says what is missing.
    pub fn from_call(from: &str, arguments: &Value) -> Result<Self, MessageRefusal> {
        let text = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::trim).unwrap_or_default().to_string();
        let to = text("to");
        let valid = !to.contains(char::is_whitespace)
            && to.split_once('@').is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !b.starts_with('.'));
        if !valid {
            return Err(MessageRefusal::NotAnAddress(to));
        }
        let (subject, body) = (text("subject"), text("body"));
        if subject.is_empty() && body.is_empty() {
            return Err(MessageRefusal::NoText);
        }
        Ok(Self { from: from.to_string(), to, subject, body })
    }

    /// "email to dana@litware.example: The proposal is ready", for the Inbox.
    pub fn line(&self) -> String {
        if self.subject.is_empty() {
            format!("email to {}", self.to)
        } else {
            format!("email to {}: {}", self.to, self.subject)
        }
    }
}

/// Where approved messages go.
#[async_trait]
pub trait Outbox: Send + Sync {
    async fn send(&self, message: &OutgoingMessage) -> Result<(), OutboxError>;
}

/// The tool as the model is offered it.
pub fn send_email_spec() -> ToolSpec {
    ToolSpec {
        name: SEND_EMAIL.to_string(),
        description: "Send an email for the person you work for. It waits in their Inbox until they approve it."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "The recipient's email address, as read from its source"},
                "subject": {"type": "string"},
                "body": {"type": "string"}
            },
            "required": ["to", "subject", "body"]
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_becomes_a_message_only_with_an_address_and_some_text() {
        let m = OutgoingMessage::from_call(
            "alice@acme.example",
            &json!({"to": " dana.brooks@litware.example ", "subject": "Proposal", "body": "It is ready."}),
        )
        .unwrap();
        assert_eq!(
            (m.to.as_str(), m.line()),
            ("dana.brooks@litware.example", "email to dana.brooks@litware.example: Proposal".into())
        );
        for bad in [json!({"to": "Dana", "body": "x"}), json!({"to": "a@b", "body": "x"}), json!({"body": "x"})] {
            assert!(OutgoingMessage::from_call("a@acme.example", &bad)
                .unwrap_err()
                .to_string()
                .ends_with("is not an email address"));
        }
        assert_eq!(
            OutgoingMessage::from_call("a@acme.example", &json!({"to": "d@l.example"})).unwrap_err().to_string(),
            "The message has no subject and no text"
        );
    }
}
