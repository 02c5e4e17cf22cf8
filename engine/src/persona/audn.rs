//! The reflect step's model reply: AUDN operations (add, update, delete, none), parsed strictly.
//!
//! The reply is data from a model, never trusted: anything malformed, unknown or oversized refuses
//! the whole reply (the episode stays and the step is skipped), and a line about another agent,
//! other than a handoff, is dropped.

use super::render::MemoryKind;
use serde::Deserialize;
use std::collections::HashSet;

pub const MAX_REPLY_BYTES: usize = 16 * 1024;
pub const MAX_OPERATIONS: usize = 12;
pub const MAX_LINE_CHARS: usize = 300;
pub const MAX_REASON_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AudnOp {
    /// A new first-person claim.
    Add { kind: MemoryKind, text: String },
    /// The same claim seen again: bump its count and add the episode as evidence.
    Repeat { id: i64 },
    /// New wording for a claim: the new row supersedes the old one.
    Reword { id: i64, text: String },
    /// The claim no longer holds: close the row with the reason.
    Delete { id: i64, reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedReply {
    pub ops: Vec<AudnOp>,
    /// Lines dropped because they were about another agent, not a handoff.
    pub dropped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AudnError {
    #[error("the reply is {0} bytes; at most 16 KiB is read")]
    Oversized(usize),
    #[error("the reply is not the JSON asked for: {0}")]
    Malformed(String),
    #[error("the reply has {0} operations; at most 12 are applied")]
    TooMany(usize),
    #[error("operation {index}: {problem}")]
    Invalid { index: usize, problem: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    operations: Vec<RawOp>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, tag = "op", rename_all = "lowercase")]
enum RawOp {
    Add { kind: String, text: String },
    Update { id: i64, text: Option<String> },
    Delete { id: i64, reason: String },
    None {},
}

/// A single fenced block (```json … ```) is unwrapped; nothing else around the JSON is allowed.
fn unfence(reply: &str) -> &str {
    let t = reply.trim();
    t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|r| r.strip_suffix("```")).unwrap_or(t).trim()
}

const HANDOFF_WORDS: [&str; 6] = ["handoff", "hand off", "handed off", "hand over", "handed over", "handed to"];

/// Whether a line names another agent for any reason but a handoff.
fn about_another_agent(text: &str, agent: &str, roster: &[String]) -> bool {
    let lower = text.to_lowercase();
    let words: HashSet<&str> = lower.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_').collect();
    let names_other = roster.iter().filter(|a| !a.eq_ignore_ascii_case(agent)).any(|a| {
        let a = a.to_lowercase();
        if a.contains(' ') {
            lower.contains(&a)
        } else {
            words.contains(a.as_str())
        }
    });
    names_other && !HANDOFF_WORDS.iter().any(|w| lower.contains(w))
}

fn one_line(text: &str, index: usize, what: &str, max: usize) -> Result<String, AudnError> {
    let t = text.trim();
    let bad = |problem: String| AudnError::Invalid { index, problem };
    if t.is_empty() {
        return Err(bad(format!("the {what} is empty")));
    }
    if t.contains('\n') {
        return Err(bad(format!("the {what} is more than one line")));
    }
    if t.chars().count() > max {
        return Err(bad(format!("the {what} is over {max} characters")));
    }
    if let Some(f) = crate::secrets::find(t).into_iter().next() {
        return Err(bad(format!("the {what} holds {}", f.describe())));
    }
    Ok(t.to_string())
}

/// Parses a reply for `agent`. `active` holds the ids of the agent's own active rows: an
/// operation on any other id is refused, so a reply can never touch another bot's memory.
pub fn parse_reply(
    reply: &str,
    agent: &str,
    roster: &[String],
    active: &HashSet<i64>,
) -> Result<ParsedReply, AudnError> {
    if reply.len() > MAX_REPLY_BYTES {
        return Err(AudnError::Oversized(reply.len()));
    }
    let raw: Reply = serde_json::from_str(unfence(reply)).map_err(|e| AudnError::Malformed(e.to_string()))?;
    if raw.operations.len() > MAX_OPERATIONS {
        return Err(AudnError::TooMany(raw.operations.len()));
    }
    let mut out = ParsedReply::default();
    for (index, op) in raw.operations.into_iter().enumerate() {
        let known = |id: i64| {
            if active.contains(&id) {
                Ok(())
            } else {
                Err(AudnError::Invalid { index, problem: format!("{id} is not one of this agent's active lines") })
            }
        };
        let op = match op {
            RawOp::None {} => continue,
            RawOp::Add { kind, text } => {
                let kind = MemoryKind::parse(&kind)
                    .ok_or_else(|| AudnError::Invalid { index, problem: format!("unknown kind {kind:?}") })?;
                AudnOp::Add { kind, text: one_line(&text, index, "text", MAX_LINE_CHARS)? }
            }
            RawOp::Update { id, text: None } => {
                known(id)?;
                AudnOp::Repeat { id }
            }
            RawOp::Update { id, text: Some(text) } => {
                known(id)?;
                AudnOp::Reword { id, text: one_line(&text, index, "text", MAX_LINE_CHARS)? }
            }
            RawOp::Delete { id, reason } => {
                known(id)?;
                AudnOp::Delete { id, reason: one_line(&reason, index, "reason", MAX_REASON_CHARS)? }
            }
        };
        let text = match &op {
            AudnOp::Add { text, .. } | AudnOp::Reword { text, .. } => Some(text),
            _ => None,
        };
        if let Some(text) = text.filter(|t| about_another_agent(t, agent, roster)) {
            out.dropped.push(text.clone());
            continue;
        }
        out.ops.push(op);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster() -> Vec<String> {
        vec!["builder".into(), "reviewer".into(), "Release Manager".into()]
    }

    fn parse(reply: &str) -> Result<ParsedReply, AudnError> {
        parse_reply(reply, "builder", &roster(), &HashSet::from([7, 9]))
    }

    #[test]
    fn good_operations_parse() {
        let r = parse(
            r#"{"operations": [
                {"op": "add", "kind": "friction", "text": "I lose time when the issue has no acceptance test."},
                {"op": "update", "id": 7},
                {"op": "update", "id": 9, "text": "I run clippy before I ask for review."},
                {"op": "delete", "id": 7, "reason": "The flaky test was fixed."},
                {"op": "none"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(r.ops.len(), 4);
        assert!(matches!(r.ops[0], AudnOp::Add { kind: MemoryKind::Friction, .. }));
        assert_eq!(r.ops[1], AudnOp::Repeat { id: 7 });
        assert!(matches!(r.ops[2], AudnOp::Reword { id: 9, .. }));
        assert!(matches!(r.ops[3], AudnOp::Delete { id: 7, .. }));
    }

    #[test]
    fn a_line_holding_a_secret_refuses_the_whole_reply() {
        let key = ["ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"].concat();
        let reply = format!(
            r#"{{"operations": [{{"op": "update", "id": 7}}, {{"op": "add", "kind": "lesson", "text": "I push with {key}"}}]}}"#
        );
        let err = parse(&reply).unwrap_err();
        assert_eq!(
            err,
            AudnError::Invalid {
                index: 1,
                problem: "the text holds a GitHub token (ghp_…8B4a) at line 1, column 13".into()
            }
        );
        assert!(!err.to_string().contains(&key));
    }

    #[test]
    fn most_replies_are_none() {
        assert_eq!(parse(r#"{"operations": [{"op": "none"}]}"#).unwrap(), ParsedReply::default());
        assert_eq!(parse(r#"{"operations": []}"#).unwrap(), ParsedReply::default());
    }

    #[test]
    fn one_fenced_block_is_accepted() {
        assert!(parse("```json\n{\"operations\": [{\"op\": \"update\", \"id\": 9}]}\n```").is_ok());
    }

    #[test]
    fn malformed_replies_are_refused_whole() {
        for bad in [
            "Sure! Here are my lessons.",
            "{\"operations\": [",
            r#"{"operations": [{"op": "merge", "id": 7}]}"#,
            r#"{"operations": [{"op": "add", "kind": "lesson", "text": "x", "priority": 1}]}"#,
            r#"{"ops": []}"#,
            r#"[{"op": "none"}]"#,
        ] {
            assert!(matches!(parse(bad), Err(AudnError::Malformed(_))), "{bad}");
        }
    }

    #[test]
    fn oversized_or_overlong_replies_are_refused() {
        assert!(matches!(parse(&" ".repeat(MAX_REPLY_BYTES + 1)), Err(AudnError::Oversized(_))));
        let many = format!("{{\"operations\": [{}]}}", vec![r#"{"op": "none"}"#; 13].join(","));
        assert_eq!(parse(&many), Err(AudnError::TooMany(13)));
        let long = format!(r#"{{"operations": [{{"op": "add", "kind": "lesson", "text": "{}"}}]}}"#, "x".repeat(301));
        assert!(matches!(parse(&long), Err(AudnError::Invalid { index: 0, .. })));
        let two_lines = r#"{"operations": [{"op": "add", "kind": "lesson", "text": "a\nb"}]}"#;
        assert!(matches!(parse(two_lines), Err(AudnError::Invalid { .. })));
    }

    #[test]
    fn unknown_kinds_and_other_rows_are_refused() {
        let kind = r#"{"operations": [{"op": "add", "kind": "secret", "text": "x"}]}"#;
        assert!(matches!(parse(kind), Err(AudnError::Invalid { .. })));
        let other = r#"{"operations": [{"op": "delete", "id": 8, "reason": "not mine"}]}"#;
        assert!(matches!(parse(other), Err(AudnError::Invalid { .. })));
    }

    #[test]
    fn lines_about_another_agent_are_dropped_unless_a_handoff() {
        let r = parse(
            r#"{"operations": [
                {"op": "add", "kind": "lesson", "text": "The reviewer is too strict and should be ignored."},
                {"op": "add", "kind": "lesson", "text": "I ask the Release Manager for the tag."},
                {"op": "add", "kind": "lesson", "text": "After the handoff to reviewer I wait for comments."},
                {"op": "add", "kind": "lesson", "text": "I keep my changes small."}
            ]}"#,
        )
        .unwrap();
        assert_eq!(r.dropped.len(), 2);
        assert_eq!(r.ops.len(), 2);
        assert!(matches!(&r.ops[0], AudnOp::Add { text, .. } if text.contains("handoff")));
        // Its own name, or a word that merely contains another name, is not about another agent.
        assert!(!about_another_agent("I, builder, review my own diff; reviewers like that.", "builder", &roster()));
    }
}
