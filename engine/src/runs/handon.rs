//! Handing work on: an agent acting for a person may ask one of the company's bots to take on a
//! task. What is handed on is never a remembered value (see `provenance`): a task naming one
//! is refused with the seed's sentence. Otherwise it waits in the person's Inbox, and only once
//! they approve it is the task put on the bot's board, by them.

use super::model::ToolSpec;
use crate::org::Person;
use async_trait::async_trait;
use serde_json::{json, Value};

/// The tool's name as agents call it: Engram's own, beside the connectors' tools.
pub const CREATE_TASK: &str = "engram__create_task";

/// A task to hand on, as approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedTask {
    /// The bot's name.
    pub bot: String,
    pub title: String,
    pub body: String,
}

/// What a `create_task` call is missing; the sentence is the person's to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TaskRefusal {
    #[error("The task names no bot to take it")]
    NoBot,
    #[error("The task has no title")]
    NoTitle,
}

/// Why a bot's board did not take an approved task.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandOnError {
    /// The board refused it, in words for the person ("There is no agent named x on the roster").
    #[error("{0}")]
    Refused(String),
    /// Something failed inside: the detail is logged, never shown.
    #[error("{}", crate::error::INTERNAL_MESSAGE)]
    Internal(String),
}

impl HandedTask {
    /// The task a `create_task` call asks for; `Err` says what is missing.
    pub fn from_call(arguments: &Value) -> Result<Self, TaskRefusal> {
        let text = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::trim).unwrap_or_default().to_string();
        let (bot, title, body) = (text("bot"), text("title"), text("body"));
        if bot.is_empty() {
            return Err(TaskRefusal::NoBot);
        }
        if title.is_empty() {
            return Err(TaskRefusal::NoTitle);
        }
        Ok(Self { bot, title, body })
    }

    /// "task for scout: Follow up with Priya", for the Inbox.
    pub fn line(&self) -> String {
        format!("task for {}: {}", self.bot, self.title)
    }
}

/// Where approved tasks go: the bots' boards.
#[async_trait]
pub trait TaskDesk: Send + Sync {
    /// Puts the task on the bot's board as `person` would; the task's number, or why not.
    async fn hand_on(&self, person: &Person, task: &HandedTask) -> Result<i64, HandOnError>;
}

/// The tool as the model is offered it.
pub fn create_task_spec() -> ToolSpec {
    ToolSpec {
        name: CREATE_TASK.to_string(),
        description: "Hand work on to one of the company's bots as a task on its board. It waits in the person's \
                      Inbox until they approve it."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "bot": {"type": "string", "description": "The bot's name"},
                "title": {"type": "string"},
                "body": {"type": "string", "description": "What to do, with values as read from their source"}
            },
            "required": ["bot", "title"]
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_becomes_a_task_only_with_a_bot_and_a_title() {
        let t = HandedTask::from_call(&json!({"bot": " scout ", "title": "Call Priya", "body": "About the quote"}));
        assert_eq!(
            t,
            Ok(HandedTask { bot: "scout".into(), title: "Call Priya".into(), body: "About the quote".into() })
        );
        assert_eq!(t.unwrap().line(), "task for scout: Call Priya");
        let refused = |arguments| HandedTask::from_call(&arguments).map_err(|e| e.to_string());
        assert_eq!(refused(json!({"title": "x"})), Err("The task names no bot to take it".into()));
        assert_eq!(refused(json!({"bot": "scout"})), Err("The task has no title".into()));
    }
}
