//! The vault: the folder that holds the bots' configuration and their memory files. The engine
//! reads and writes it only through [`Vault`], so paths are always relative to the vault and a
//! backend can refuse anything that escapes it.

use super::config::{parse_memory_config, ConfigError, EffectiveConfig};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const ORG_AGENTS_JSON: &str = ".agents/org/org-agents.json";
pub const ORG_YAML: &str = super::proposal::ORG_YAML;

pub fn hand_written_memory_path(agent: &str) -> String {
    format!(".agents/org/memory/{agent}.md")
}

/// Seed 004's USER.md for a bot: what it keeps about the people it works for.
pub fn user_memory_path(agent: &str) -> String {
    format!(".agents/org/memory/{agent}.user.md")
}

pub fn core_path(agent: &str) -> String {
    format!(".agents/org/memory/{agent}/core.md")
}

/// A vault file that could not be used, naming the file and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum VaultError {
    #[error("no vault is configured (set ENGRAM_VAULT)")]
    NotConfigured,
    #[error("{path} is missing")]
    Missing { path: String },
    #[error("{path} could not be read: {problem}")]
    Unreadable { path: String, problem: String },
    #[error("{path} is invalid: {problem}")]
    Invalid { path: String, problem: String },
    #[error("{path} could not be written: {problem}")]
    Unwritable { path: String, problem: String },
    #[error("{path} is outside the vault")]
    Outside { path: String },
}

/// How a vault path may name a file other than the one it spells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The path, or a folder on the way, is a symbolic link.
    Symbolic,
    /// The file has more than one name, so it may also be a file outside the vault.
    Hard,
}

#[async_trait]
pub trait Vault: Send + Sync {
    /// A file's text, or `None` when it does not exist.
    async fn read(&self, path: &str) -> Result<Option<String>, VaultError>;
    /// At most the last `max_bytes` of a file, cut at a character boundary.
    async fn read_tail(&self, path: &str, max_bytes: usize) -> Result<Option<String>, VaultError>;
    /// Whether the path, or any folder on the way to it, is a symbolic link, or the file is a
    /// hard link (one of several names for the same file).
    async fn link(&self, path: &str) -> Result<Option<Link>, VaultError>;
    /// The markdown files under a folder, as vault paths, sorted.
    async fn markdown_under(&self, dir: &str) -> Result<Vec<String>, VaultError>;
    /// Writes a whole file (creating folders), atomically.
    async fn write(&self, path: &str, text: &str) -> Result<(), VaultError>;
    /// Writes `text` only if the file still holds exactly `expected` (a missing file holds ""); false
    /// (and nothing written) when it does not.
    async fn replace_if_unchanged(&self, path: &str, expected: &str, text: &str) -> Result<bool, VaultError>;
}

/// One bot on the roster, from the compiled configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterAgent {
    pub name: String,
    pub description: String,
    pub role: Option<String>,
    /// The owner's email.
    pub owner: String,
    /// The bot's lead's email.
    pub lead: Option<String>,
    pub knowledge: Vec<String>,
    /// The memory block in force, or why it was refused. A refused block is never half used:
    /// the memory steps do not run for that bot until it is fixed.
    pub memory: Result<EffectiveConfig, ConfigError>,
}

impl RosterAgent {
    pub fn is_owner_or_lead(&self, email: &str) -> bool {
        self.owner.eq_ignore_ascii_case(email) || self.lead.as_deref().is_some_and(|l| l.eq_ignore_ascii_case(email))
    }

    pub fn is_owner(&self, email: &str) -> bool {
        self.owner.eq_ignore_ascii_case(email)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Roster {
    pub agents: BTreeMap<String, RosterAgent>,
}

impl Roster {
    pub fn get(&self, name: &str) -> Option<&RosterAgent> {
        self.agents.get(name)
    }

    pub fn names(&self) -> Vec<String> {
        self.agents.keys().cloned().collect()
    }
}

fn invalid(problem: impl Into<String>) -> VaultError {
    VaultError::Invalid { path: ORG_AGENTS_JSON.to_string(), problem: problem.into() }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn opt_string(entry: &Value, agent: &str, key: &str) -> Result<Option<String>, VaultError> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(format!("agents.{agent}.{key} must be a string"))),
    }
}

/// Parses the compiled configuration. Anything wrong refuses the whole file.
pub fn parse_roster(text: &str) -> Result<Roster, VaultError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
    let agents = doc.get("agents").and_then(Value::as_object).ok_or_else(|| invalid("it has no \"agents\" object"))?;
    let mut roster = Roster::default();
    for (name, entry) in agents {
        if !valid_name(name) {
            return Err(invalid(format!("agent name {name:?} must be lowercase letters, digits, - or _ (at most 64)")));
        }
        if !entry.is_object() {
            return Err(invalid(format!("agents.{name} must be an object")));
        }
        let owner = opt_string(entry, name, "owner")?
            .filter(|o| o.contains('@'))
            .ok_or_else(|| invalid(format!("agents.{name}.owner must be the owner's email")))?;
        let knowledge = match entry.get("knowledge") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| invalid(format!("agents.{name}.knowledge must list paths")))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid(format!("agents.{name}.knowledge must be a list of paths"))),
        };
        roster.agents.insert(
            name.clone(),
            RosterAgent {
                name: name.clone(),
                description: opt_string(entry, name, "description")?.unwrap_or_default(),
                role: opt_string(entry, name, "role")?,
                owner,
                lead: opt_string(entry, name, "lead")?,
                knowledge,
                memory: parse_memory_config(entry.get("memory")),
            },
        );
    }
    Ok(roster)
}

/// Reads the roster from the vault. org.yaml must be there and readable too, since proposals are
/// made against it.
pub async fn load_roster(vault: &dyn Vault) -> Result<Roster, VaultError> {
    let text = vault.read(ORG_AGENTS_JSON).await?.ok_or(VaultError::Missing { path: ORG_AGENTS_JSON.to_string() })?;
    let roster = parse_roster(&text)?;
    if vault.read(ORG_YAML).await?.is_none() {
        return Err(VaultError::Missing { path: ORG_YAML.to_string() });
    }
    Ok(roster)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_roster_parses_with_defaults_for_a_missing_block() {
        let r = parse_roster(
            r#"{"agents": {"scout": {"owner": "sam@acme.example", "lead": "ada@acme.example",
                "knowledge": ["knowledge/scout"], "role": "sales"},
                "helper": {"owner": "sue@acme.example", "memory": {"core_budget_tokens": 800}}}}"#,
        )
        .unwrap();
        assert_eq!(r.names(), vec!["helper", "scout"]);
        let scout = r.get("scout").unwrap();
        assert!(scout.is_owner_or_lead("ADA@acme.example"));
        assert!(!scout.is_owner("ada@acme.example"));
        assert_eq!(scout.memory.as_ref().unwrap().config.core_budget_tokens, 1_500);
        assert_eq!(r.get("helper").unwrap().memory.as_ref().unwrap().config.core_budget_tokens, 800);
    }

    #[test]
    fn a_refused_memory_block_stays_with_its_agent() {
        let r =
            parse_roster(r#"{"agents": {"scout": {"owner": "s@x", "memory": {"core_budget_tokens": 9000}}}}"#).unwrap();
        assert_eq!(r.get("scout").unwrap().memory.as_ref().unwrap_err().key, "core_budget_tokens");
    }

    #[test]
    fn a_broken_file_names_itself_and_the_problem() {
        for (text, problem) in [
            ("{", "not JSON"),
            ("{}", "no \"agents\""),
            (r#"{"agents": {"Bad Name": {"owner": "a@b"}}}"#, "must be lowercase"),
            (r#"{"agents": {"scout": {}}}"#, "agents.scout.owner"),
            (r#"{"agents": {"scout": {"owner": "a@b", "knowledge": "x"}}}"#, "agents.scout.knowledge"),
        ] {
            let e = parse_roster(text).unwrap_err();
            let shown = e.to_string();
            assert!(shown.starts_with(".agents/org/org-agents.json is invalid"), "{shown}");
            assert!(shown.contains(problem), "{shown}");
        }
    }
}
