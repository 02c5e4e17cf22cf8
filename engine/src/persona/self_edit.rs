//! Seed 003's `memory_self_edit`: what one request from a bot means for its own rows, decided here
//! against its `SelfEditPolicy` and carried out by the store in the same transaction that read
//! the rows and counted the bot's earlier requests, as `apply` is for reflect.
//!
//! Facts are a bot's lesson and preference rows, named by id; strategies are its lesson and
//! anti-pattern rows, named `strategy:{id}`; the profile is `profile`. A new row is appended to
//! `fact` (a lesson), `fact:preference`, `strategy` (a lesson) or `strategy:anti_pattern`.
//! Frictions change only through reflect and improve cards.
//!
//! Of the seed's approval kinds: forgetting a fact is `delete_fact`; any change to the profile,
//! which says who the bot is, is `edit_entity`; replacing or forgetting a strategy, the bot's
//! decision on how to work, is `change_decision`.

use super::backlog::MemoryRow;
use super::config::SelfEditPolicy;
use super::render::MemoryKind;
use serde::{Deserialize, Serialize};

pub const MAX_CONTENT_CHARS: usize = 300;
pub const MAX_PROFILE_CHARS: usize = 1_200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Append,
    Replace,
    Strengthen,
    Weaken,
    Forget,
    Reflect,
}

crate::string_enum!(Action {
    Append => "append",
    Replace => "replace",
    Strengthen => "strengthen",
    Weaken => "weaken",
    Forget => "forget",
    Reflect => "reflect",
});

impl Action {
    pub const ALL: [Action; 6] =
        [Action::Append, Action::Replace, Action::Strengthen, Action::Weaken, Action::Forget, Action::Reflect];
}

/// What a request's `target` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Fact(i64),
    Strategy(i64),
    Profile,
    /// Where `append` adds a row: the scope it is checked against, and the row's kind.
    New(Scope, MemoryKind),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Facts,
    Strategies,
    Profile,
}

impl Scope {
    pub fn policy_name(&self) -> &'static str {
        match self {
            Scope::Facts => "own_facts",
            Scope::Strategies => "own_strategies",
            Scope::Profile => "own_profile",
        }
    }

    fn plural(&self) -> &'static str {
        match self {
            Scope::Facts => "its facts",
            Scope::Strategies => "its strategies",
            Scope::Profile => "its profile",
        }
    }
}

impl Target {
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        match s {
            "profile" => return Some(Target::Profile),
            "fact" => return Some(Target::New(Scope::Facts, MemoryKind::Lesson)),
            "fact:preference" => return Some(Target::New(Scope::Facts, MemoryKind::Preference)),
            "strategy" => return Some(Target::New(Scope::Strategies, MemoryKind::Lesson)),
            "strategy:anti_pattern" => return Some(Target::New(Scope::Strategies, MemoryKind::AntiPattern)),
            _ => {}
        }
        if let Some(id) = s.strip_prefix("strategy:") {
            return id.parse().ok().filter(|id: &i64| *id > 0).map(Target::Strategy);
        }
        s.parse().ok().filter(|id: &i64| *id > 0).map(Target::Fact)
    }

    pub fn scope(&self) -> Scope {
        match self {
            Target::Fact(_) => Scope::Facts,
            Target::Strategy(_) => Scope::Strategies,
            Target::Profile => Scope::Profile,
            Target::New(scope, _) => *scope,
        }
    }
}

/// A bot's request, as the tool's input schema has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditRequest {
    pub action: String,
    pub target: String,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub reason: String,
}

/// The bot's earlier requests that count against its limits: those applied, waiting or undone
/// (a refused request changed nothing and counts for nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Since the bot's last finished run: a session is one wake.
    pub edits_this_session: u32,
    /// Forgets since midnight UTC.
    pub deletes_today: u32,
}

/// The change a request makes, carried out when it is applied or approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    Insert { kind: MemoryKind, text: String },
    Supersede { row: i64, text: String },
    Worth { row: i64, delta: i32 },
    Close { row: i64 },
    Profile { text: String },
}

/// A request the policy lets through: its change, with the before and after the audit row keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub action: Action,
    pub change: Change,
    pub row: Option<i64>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// The `requireApproval` kind this request waits for, if the policy lists it.
    pub approval: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Apply(Planned),
    Wait(Planned),
    /// The sentence names the rule or limit that refused it; the request is still audited.
    Refuse(String),
    /// `reflect` runs the reflection cycle rather than changing one row.
    Reflect,
}

fn worth_line(row: &MemoryRow, worth: i32) -> String {
    format!("{} (worth {worth})", row.text)
}

/// Decides one request of `agent`'s against its policy, its active rows, its current profile
/// text and its counts.
pub fn decide(
    policy: &SelfEditPolicy,
    agent: &str,
    req: &EditRequest,
    active: &[MemoryRow],
    profile: Option<&str>,
    counts: Counts,
) -> Decision {
    let Some(action) = Action::parse(req.action.trim()) else {
        return Decision::Refuse(format!(
            "Unknown action \"{}\": use append, replace, strengthen, weaken, forget or reflect",
            req.action.trim()
        ));
    };
    if req.reason.trim().is_empty() {
        return Decision::Refuse(
            "Give a reason: every self-edit needs one, and it goes in the audit log (requireReason)".to_string(),
        );
    }
    if action == Action::Reflect {
        return Decision::Reflect;
    }
    if counts.edits_this_session >= policy.max_edits_per_session {
        return Decision::Refuse(format!(
            "maxEditsPerSession is {}, and this session has made {}; the next edit waits for the next session",
            policy.max_edits_per_session, counts.edits_this_session
        ));
    }
    if action == Action::Forget && counts.deletes_today >= policy.max_deletes_per_day {
        return Decision::Refuse(format!(
            "maxDeletesPerDay is {}, and {} were made today; the next forget waits until tomorrow (UTC)",
            policy.max_deletes_per_day, counts.deletes_today
        ));
    }
    let Some(target) = Target::parse(&req.target) else {
        return Decision::Refuse(format!(
            "Unknown target \"{}\": name a line's id, strategy:{{id}}, profile, or for append fact, \
             fact:preference, strategy or strategy:anti_pattern",
            req.target.trim()
        ));
    };
    let scope = target.scope();
    if !policy.allow_edit.iter().any(|s| s == scope.policy_name()) {
        return Decision::Refuse(format!(
            "allowEdit does not include {}, so {agent} cannot change {}",
            scope.policy_name(),
            scope.plural()
        ));
    }
    let content = req.content.as_deref().map(str::trim).unwrap_or("");
    let needs_content = matches!(action, Action::Append | Action::Replace);
    if needs_content {
        let max = if target == Target::Profile { MAX_PROFILE_CHARS } else { MAX_CONTENT_CHARS };
        if content.is_empty() {
            return Decision::Refuse(format!("{} needs content: the new text", action.as_str()));
        }
        if target != Target::Profile && content.contains('\n') {
            return Decision::Refuse("The content of a line must be one line".to_string());
        }
        if content.chars().count() > max {
            return Decision::Refuse(format!("The content can be at most {max} characters"));
        }
    }
    let planned = match (action, target) {
        (Action::Append, Target::New(_, kind)) => Planned {
            action,
            change: Change::Insert { kind, text: content.to_string() },
            row: None,
            before: None,
            after: Some(content.to_string()),
            approval: None,
        },
        (Action::Append | Action::Replace, Target::Profile) => {
            let text = match (action, profile) {
                (Action::Append, Some(p)) if !p.is_empty() => format!("{p}\n{content}"),
                _ => content.to_string(),
            };
            if text.chars().count() > MAX_PROFILE_CHARS {
                return Decision::Refuse(format!("The profile can be at most {MAX_PROFILE_CHARS} characters"));
            }
            Planned {
                action,
                change: Change::Profile { text: text.clone() },
                row: None,
                before: profile.map(str::to_string),
                after: Some(text),
                approval: Some("edit_entity"),
            }
        }
        (Action::Append, _) => {
            return Decision::Refuse(
                "append adds a new line: name fact, fact:preference, strategy, strategy:anti_pattern or profile"
                    .to_string(),
            )
        }
        (_, Target::New(..)) => {
            return Decision::Refuse(format!(
                "{} needs an existing line: name its id or strategy:{{id}}",
                action.as_str()
            ))
        }
        (_, Target::Profile) => {
            return Decision::Refuse(format!("The profile can be appended to or replaced, not {}", past(action)))
        }
        (_, Target::Fact(id) | Target::Strategy(id)) => {
            let Some(row) = active.iter().find(|r| r.id == id && r.active && r.agent == agent) else {
                return Decision::Refuse(format!("{agent} has no active line #{id} of its own"));
            };
            let is_strategy = matches!(target, Target::Strategy(_));
            match (row.kind, is_strategy) {
                (MemoryKind::Friction, _) => {
                    return Decision::Refuse(format!(
                        "Line #{id} is a friction; frictions change only through reflect and improve cards"
                    ))
                }
                (MemoryKind::Preference, true) => {
                    return Decision::Refuse(format!("Line #{id} is a preference, a fact: name it {id}"))
                }
                (MemoryKind::AntiPattern, false) => {
                    return Decision::Refuse(format!(
                        "Line #{id} is an anti-pattern, a strategy: name it strategy:{id}"
                    ))
                }
                _ => {}
            }
            let (change, after, approval) = match action {
                Action::Replace => (
                    Change::Supersede { row: id, text: content.to_string() },
                    Some(content.to_string()),
                    is_strategy.then_some("change_decision"),
                ),
                Action::Strengthen => (Change::Worth { row: id, delta: 1 }, Some(worth_line(row, row.worth + 1)), None),
                Action::Weaken => (Change::Worth { row: id, delta: -1 }, Some(worth_line(row, row.worth - 1)), None),
                Action::Forget => {
                    (Change::Close { row: id }, None, Some(if is_strategy { "change_decision" } else { "delete_fact" }))
                }
                Action::Append | Action::Reflect => unreachable!("handled above"),
            };
            let before = match change {
                Change::Worth { .. } => worth_line(row, row.worth),
                _ => row.text.clone(),
            };
            Planned { action, change, row: Some(id), before: Some(before), after, approval }
        }
    };
    match planned.approval {
        Some(kind) if policy.require_approval.iter().any(|k| k == kind) => Decision::Wait(planned),
        _ => Decision::Apply(Planned { approval: None, ..planned }),
    }
}

fn past(action: Action) -> &'static str {
    match action {
        Action::Strengthen => "strengthened",
        Action::Weaken => "weakened",
        Action::Forget => "forgotten",
        _ => "changed that way",
    }
}

#[cfg(test)]
#[path = "self_edit_tests.rs"]
mod tests;
