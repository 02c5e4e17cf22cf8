//! The `memory:` block of an agent's compiled configuration, with defaults for every key and the
//! refusals the engine enforces whatever a block says.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const CORE_BUDGET_MAX: u32 = 4_000;
pub const REPEAT_THRESHOLD_MIN: u32 = 2;
const TIERS: [&str; 3] = ["core", "episodic", "semantic"];
const TRIGGERS: [&str; 2] = ["wake_done", "chat_end"];
const TARGETS: [&str; 2] = ["own_prompt", "own_skills"];
/// Seed 003's scopes a bot may edit, and the edits that wait for a person.
pub const EDIT_SCOPES: [&str; 3] = ["own_facts", "own_strategies", "own_profile"];
pub const APPROVAL_KINDS: [&str; 3] = ["delete_fact", "edit_entity", "change_decision"];
/// A bot's edit stays undoable this long by default: an owner who looks at the agent page once
/// in a working session still sees what the bot changed and can take it back.
pub const EDIT_GRACE_DEFAULT_SECONDS: u32 = 3_600;
pub const EDIT_GRACE_MAX_SECONDS: u32 = 7 * 24 * 3_600;
pub const EDITS_PER_SESSION_MAX: u32 = 50;
pub const DELETES_PER_DAY_MAX: u32 = 50;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryConfig {
    pub tiers: Vec<String>,
    pub core_budget_tokens: u32,
    pub reflect: ReflectConfig,
    pub self_improvement: SelfImprovementConfig,
    pub self_edit: SelfEditPolicy,
    /// Seed 004's parameters for the audit of the bot's MEMORY.md and USER.md.
    pub audit: super::memory_audit::AuditParams,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReflectConfig {
    pub enabled: bool,
    pub trigger: Vec<String>,
    /// `cheap`, `off`, or `<provider>/<model>`.
    pub model: String,
    pub min_turns: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfImprovementConfig {
    pub enabled: bool,
    pub max_proposals_per_week: u32,
    pub repeat_threshold: u32,
    pub targets: Vec<String>,
    pub requires_ship_gate: bool,
}

/// Seed 003's `SelfEditPolicy`, under its own names: what a bot may change in its own memory
/// through `memory_self_edit`, what waits for its owner, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct SelfEditPolicy {
    pub allow_edit: Vec<String>,
    pub require_approval: Vec<String>,
    pub max_edits_per_session: u32,
    pub max_deletes_per_day: u32,
    pub require_reason: bool,
    /// Seconds an applied edit can still be undone.
    pub edit_grace_period: u32,
}

impl Default for SelfEditPolicy {
    fn default() -> Self {
        Self {
            allow_edit: EDIT_SCOPES.iter().map(|s| s.to_string()).collect(),
            require_approval: APPROVAL_KINDS.iter().map(|s| s.to_string()).collect(),
            max_edits_per_session: 5,
            max_deletes_per_day: 3,
            require_reason: true,
            edit_grace_period: EDIT_GRACE_DEFAULT_SECONDS,
        }
    }
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            tiers: TIERS.iter().map(|s| s.to_string()).collect(),
            core_budget_tokens: 1_500,
            reflect: ReflectConfig::default(),
            self_improvement: SelfImprovementConfig::default(),
            self_edit: SelfEditPolicy::default(),
            audit: super::memory_audit::AuditParams::default(),
        }
    }
}

impl Default for ReflectConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            trigger: TRIGGERS.iter().map(|s| s.to_string()).collect(),
            model: "cheap".to_string(),
            min_turns: 2,
        }
    }
}

impl Default for SelfImprovementConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_proposals_per_week: 1,
            repeat_threshold: 2,
            targets: TARGETS.iter().map(|s| s.to_string()).collect(),
            requires_ship_gate: true,
        }
    }
}

/// A refusal that names the key and the rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{key}: {rule}")]
pub struct ConfigError {
    pub key: String,
    pub rule: String,
}

fn refuse(key: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError { key: key.to_string(), rule: rule.into() }
}

/// The block in force, and which of its keys came from the defaults (for the agent page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EffectiveConfig {
    pub config: MemoryConfig,
    pub defaulted: Vec<String>,
}

const KEYS: [&str; 23] = [
    "tiers",
    "core_budget_tokens",
    "reflect.enabled",
    "reflect.trigger",
    "reflect.model",
    "reflect.min_turns",
    "self_improvement.enabled",
    "self_improvement.max_proposals_per_week",
    "self_improvement.repeat_threshold",
    "self_improvement.targets",
    "self_improvement.requires_ship_gate",
    "self_edit.allowEdit",
    "self_edit.requireApproval",
    "self_edit.maxEditsPerSession",
    "self_edit.maxDeletesPerDay",
    "self_edit.requireReason",
    "self_edit.editGracePeriod",
    "audit.memory_threshold",
    "audit.max_memory_chars",
    "audit.max_user_chars",
    "audit.compress_entries",
    "audit.dry_run",
    "",
];

fn present(block: &Value, path: &str) -> bool {
    path.split('.').try_fold(block, |v, k| v.get(k)).is_some()
}

/// Reads an agent's `memory` block (absent means every default) and checks it. A block that
/// breaks a rule is refused whole: no half-read configuration is ever used.
pub fn parse_memory_config(block: Option<&Value>) -> Result<EffectiveConfig, ConfigError> {
    let empty = Value::Object(Default::default());
    let block = block.unwrap_or(&empty);
    if !block.is_object() {
        return Err(refuse("memory", "must be an object"));
    }
    let config: MemoryConfig =
        serde_json::from_value(block.clone()).map_err(|e| refuse("memory", format!("is not a valid block: {e}")))?;
    validate(&config)?;
    let defaulted = KEYS.iter().filter(|k| !k.is_empty() && !present(block, k)).map(|k| k.to_string()).collect();
    Ok(EffectiveConfig { config, defaulted })
}

/// What no block may set.
pub fn validate(c: &MemoryConfig) -> Result<(), ConfigError> {
    if c.core_budget_tokens > CORE_BUDGET_MAX {
        return Err(refuse(
            "core_budget_tokens",
            format!("may be at most {CORE_BUDGET_MAX} (the block sets {})", c.core_budget_tokens),
        ));
    }
    if c.core_budget_tokens == 0 {
        return Err(refuse("core_budget_tokens", "must be above 0"));
    }
    if let Some(t) = c.tiers.iter().find(|t| !TIERS.contains(&t.as_str())) {
        return Err(refuse("tiers", format!("names only core, episodic and semantic (the block names {t:?})")));
    }
    if let Some(t) = c.reflect.trigger.iter().find(|t| !TRIGGERS.contains(&t.as_str())) {
        return Err(refuse("reflect.trigger", format!("names only wake_done and chat_end (the block names {t:?})")));
    }
    let model = c.reflect.model.as_str();
    let provider_model =
        model.split_once('/').is_some_and(|(p, m)| !p.is_empty() && !m.is_empty() && !m.contains(char::is_whitespace));
    if !(model == "cheap" || model == "off" || provider_model) {
        return Err(refuse(
            "reflect.model",
            format!("is cheap, off, or <provider>/<model> (the block sets {model:?})"),
        ));
    }
    if c.self_improvement.repeat_threshold < REPEAT_THRESHOLD_MIN {
        return Err(refuse(
            "self_improvement.repeat_threshold",
            format!(
                "may be no less than {REPEAT_THRESHOLD_MIN} (the block sets {})",
                c.self_improvement.repeat_threshold
            ),
        ));
    }
    if !c.self_improvement.requires_ship_gate {
        return Err(refuse("self_improvement.requires_ship_gate", "must be true: a person ships every self-change"));
    }
    if let Some(t) = c.self_improvement.targets.iter().find(|t| !TARGETS.contains(&t.as_str())) {
        return Err(refuse(
            "self_improvement.targets",
            format!("may name only own_prompt and own_skills (the block names {t:?})"),
        ));
    }
    validate_self_edit(&c.self_edit)?;
    validate_audit(&c.audit)
}

/// The most characters either file may be given: well past any agent's context.
pub const AUDIT_CHARS_MAX: u32 = 100_000;

fn validate_audit(p: &super::memory_audit::AuditParams) -> Result<(), ConfigError> {
    if !(1..=100).contains(&p.memory_threshold) {
        return Err(refuse(
            "audit.memory_threshold",
            format!("is a percentage from 1 to 100 (the block sets {})", p.memory_threshold),
        ));
    }
    for (key, v) in [("audit.max_memory_chars", p.max_memory_chars), ("audit.max_user_chars", p.max_user_chars)] {
        if !(1..=AUDIT_CHARS_MAX).contains(&v) {
            return Err(refuse(key, format!("is from 1 to {AUDIT_CHARS_MAX} characters (the block sets {v})")));
        }
    }
    Ok(())
}

fn validate_self_edit(p: &SelfEditPolicy) -> Result<(), ConfigError> {
    if let Some(t) = p.allow_edit.iter().find(|t| !EDIT_SCOPES.contains(&t.as_str())) {
        return Err(refuse(
            "self_edit.allowEdit",
            format!("names only own_facts, own_strategies and own_profile (the block names {t:?})"),
        ));
    }
    if let Some(t) = p.require_approval.iter().find(|t| !APPROVAL_KINDS.contains(&t.as_str())) {
        return Err(refuse(
            "self_edit.requireApproval",
            format!("names only delete_fact, edit_entity and change_decision (the block names {t:?})"),
        ));
    }
    if !p.require_reason {
        return Err(refuse("self_edit.requireReason", "must be true: every self-edit carries its reason"));
    }
    if p.max_edits_per_session > EDITS_PER_SESSION_MAX {
        return Err(refuse(
            "self_edit.maxEditsPerSession",
            format!("may be at most {EDITS_PER_SESSION_MAX} (the block sets {})", p.max_edits_per_session),
        ));
    }
    if p.max_deletes_per_day > DELETES_PER_DAY_MAX {
        return Err(refuse(
            "self_edit.maxDeletesPerDay",
            format!("may be at most {DELETES_PER_DAY_MAX} (the block sets {})", p.max_deletes_per_day),
        ));
    }
    if p.edit_grace_period > EDIT_GRACE_MAX_SECONDS {
        return Err(refuse(
            "self_edit.editGracePeriod",
            format!("may be at most {EDIT_GRACE_MAX_SECONDS} seconds, a week (the block sets {})", p.edit_grace_period),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<EffectiveConfig, ConfigError> {
        parse_memory_config(Some(&v))
    }

    #[test]
    fn a_missing_block_is_every_default() {
        let c = parse_memory_config(None).unwrap();
        assert_eq!(c.config, MemoryConfig::default());
        assert_eq!(c.config.core_budget_tokens, 1_500);
        assert_eq!(c.config.reflect.model, "cheap");
        assert_eq!(c.config.self_improvement.max_proposals_per_week, 1);
        assert_eq!(c.defaulted.len(), 22);
        assert_eq!(
            c.config.self_edit,
            SelfEditPolicy {
                allow_edit: vec!["own_facts".into(), "own_strategies".into(), "own_profile".into()],
                require_approval: vec!["delete_fact".into(), "edit_entity".into(), "change_decision".into()],
                max_edits_per_session: 5,
                max_deletes_per_day: 3,
                require_reason: true,
                edit_grace_period: 3_600,
            }
        );
    }

    #[test]
    fn set_keys_are_not_marked_as_defaults() {
        let c = parse(json!({"core_budget_tokens": 2000, "reflect": {"min_turns": 4}})).unwrap();
        assert_eq!(c.config.core_budget_tokens, 2_000);
        assert_eq!(c.config.reflect.min_turns, 4);
        assert!(c.config.reflect.enabled, "a partial reflect block keeps the other defaults");
        assert!(!c.defaulted.contains(&"core_budget_tokens".to_string()));
        assert!(!c.defaulted.contains(&"reflect.min_turns".to_string()));
        assert!(c.defaulted.contains(&"reflect.model".to_string()));
    }

    #[test]
    fn a_budget_above_4000_is_refused() {
        let e = parse(json!({"core_budget_tokens": 4001})).unwrap_err();
        assert_eq!(e.key, "core_budget_tokens");
        assert_eq!(e.to_string(), "core_budget_tokens: may be at most 4000 (the block sets 4001)");
        assert!(parse(json!({"core_budget_tokens": 4000})).is_ok());
    }

    #[test]
    fn a_repeat_threshold_below_2_is_refused() {
        let e = parse(json!({"self_improvement": {"repeat_threshold": 1}})).unwrap_err();
        assert_eq!(e.key, "self_improvement.repeat_threshold");
        assert!(e.rule.contains("no less than 2"));
    }

    #[test]
    fn the_ship_gate_cannot_be_turned_off() {
        let e = parse(json!({"self_improvement": {"requires_ship_gate": false}})).unwrap_err();
        assert_eq!(e.key, "self_improvement.requires_ship_gate");
    }

    #[test]
    fn targets_are_only_the_agents_own_files() {
        let e = parse(json!({"self_improvement": {"targets": ["own_prompt", "harness"]}})).unwrap_err();
        assert_eq!(e.key, "self_improvement.targets");
        assert!(e.rule.contains("\"harness\""));
        assert!(parse(json!({"self_improvement": {"targets": ["own_skills"]}})).is_ok());
    }

    #[test]
    fn models_are_cheap_off_or_provider_slash_model() {
        for ok in ["cheap", "off", "ollama/llama3.2", "openai/gpt-4o-mini"] {
            assert!(parse(json!({"reflect": {"model": ok}})).is_ok(), "{ok}");
        }
        for bad in ["", "gpt", "/x", "x/", "a/b c"] {
            assert_eq!(parse(json!({"reflect": {"model": bad}})).unwrap_err().key, "reflect.model", "{bad}");
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_refuse_the_whole_block() {
        assert_eq!(parse(json!({"core_budget": 10})).unwrap_err().key, "memory");
        assert_eq!(parse(json!({"core_budget_tokens": "lots"})).unwrap_err().key, "memory");
        assert_eq!(parse(json!([1, 2])).unwrap_err().key, "memory");
        assert_eq!(parse(json!({"tiers": ["core", "dreams"]})).unwrap_err().key, "tiers");
        assert_eq!(parse(json!({"reflect": {"trigger": ["hourly"]}})).unwrap_err().key, "reflect.trigger");
    }

    /// Seed 003's policy: its names, its defaults, and refusals that name the key and the limit.
    #[test]
    fn the_self_edit_policy_is_checked_like_the_rest_of_the_block() {
        let c = parse(json!({"self_edit": {"maxEditsPerSession": 2, "editGracePeriod": 600}})).unwrap();
        assert_eq!((c.config.self_edit.max_edits_per_session, c.config.self_edit.edit_grace_period), (2, 600));
        assert_eq!(c.config.self_edit.max_deletes_per_day, 3, "a partial policy keeps the other defaults");
        assert!(!c.defaulted.contains(&"self_edit.maxEditsPerSession".to_string()));
        assert!(c.defaulted.contains(&"self_edit.requireApproval".to_string()));
        let cases = [
            (json!({"requireReason": false}), "self_edit.requireReason: must be true: every self-edit carries its reason"),
            (
                json!({"allowEdit": ["own_facts", "others_facts"]}),
                "self_edit.allowEdit: names only own_facts, own_strategies and own_profile (the block names \"others_facts\")",
            ),
            (
                json!({"requireApproval": ["delete_everything"]}),
                "self_edit.requireApproval: names only delete_fact, edit_entity and change_decision (the block names \"delete_everything\")",
            ),
            (json!({"maxEditsPerSession": 51}), "self_edit.maxEditsPerSession: may be at most 50 (the block sets 51)"),
            (json!({"maxDeletesPerDay": 99}), "self_edit.maxDeletesPerDay: may be at most 50 (the block sets 99)"),
            (
                json!({"editGracePeriod": 604_801}),
                "self_edit.editGracePeriod: may be at most 604800 seconds, a week (the block sets 604801)",
            ),
        ];
        for (policy, refusal) in cases {
            assert_eq!(parse(json!({"self_edit": policy})).unwrap_err().to_string(), refusal);
        }
        // The seed's names, not the Rust ones.
        assert_eq!(parse(json!({"self_edit": {"max_edits_per_session": 2}})).unwrap_err().key, "memory");
        // No approvals and no deletes are choices an owner may make.
        assert!(parse(json!({"self_edit": {"requireApproval": [], "maxDeletesPerDay": 0}})).is_ok());
    }

    /// Seed 004's parameters: its names and defaults, each checked.
    #[test]
    fn the_audit_parameters_are_checked_like_the_rest_of_the_block() {
        let c = parse(json!({"audit": {"max_user_chars": 2000, "dry_run": true}})).unwrap();
        assert_eq!((c.config.audit.max_user_chars, c.config.audit.dry_run), (2000, true));
        assert_eq!(c.config.audit.memory_threshold, 85, "a partial block keeps the other defaults");
        assert!(c.defaulted.contains(&"audit.max_memory_chars".to_string()));
        let cases = [
            (
                json!({"memory_threshold": 0}),
                "audit.memory_threshold: is a percentage from 1 to 100 (the block sets 0)",
            ),
            (
                json!({"max_memory_chars": 0}),
                "audit.max_memory_chars: is from 1 to 100000 characters (the block sets 0)",
            ),
            (
                json!({"max_user_chars": 100_001}),
                "audit.max_user_chars: is from 1 to 100000 characters (the block sets 100001)",
            ),
        ];
        for (params, refusal) in cases {
            assert_eq!(parse(json!({"audit": params})).unwrap_err().to_string(), refusal);
        }
        assert_eq!(parse(json!({"audit": {"maxMemoryChars": 5}})).unwrap_err().key, "memory");
    }
}
