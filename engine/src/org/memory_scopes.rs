//! An agent's `memory_scopes`: which lessons its runs may load. An empty list means no limit;
//! otherwise the listed scopes, plus company knowledge, which every run may load. Partner
//! knowledge loads only when listed. Which lesson falls in which scope is the lessons' to say
//! (`lessons::scopes::within`).

use crate::kernel::{Actor, AgentId, Person, PersonId, StoreError};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A scope an agent may be limited to. Company knowledge is not one: it always loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MemoryScope {
    /// The lessons of the person a run acts for.
    Personal,
    /// Their team's accepted lessons.
    Team,
    /// Accepted knowledge about work with partners: it loads only where listed.
    Partner,
}

pub const ALL_SCOPES: [MemoryScope; 3] = [MemoryScope::Personal, MemoryScope::Team, MemoryScope::Partner];

crate::string_enum!(MemoryScope { Personal => "personal", Team => "team", Partner => "partner" });

impl MemoryScope {
    /// As the agent page names it.
    pub fn words(&self) -> &'static str {
        match self {
            MemoryScope::Personal => "Personal lessons of the person it acts for",
            MemoryScope::Team => "Their team's lessons",
            MemoryScope::Partner => "Partner knowledge (loads only when ticked)",
        }
    }
}

/// The scopes as typed or ticked: each known one once, in order; an unknown one is refused.
pub fn parse_scopes(names: &[String]) -> Result<Vec<MemoryScope>, super::OrgError> {
    let mut out = Vec::new();
    for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let s = MemoryScope::parse(n).ok_or_else(|| {
            super::OrgError::Invalid(format!("{n:?} is not a memory scope: use personal, team or partner"))
        })?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out.sort();
    Ok(out)
}

/// "Personal lessons and company knowledge", for the agent page and the audit.
pub fn scopes_line(scopes: &[MemoryScope]) -> String {
    if scopes.is_empty() {
        return "No limit: every lesson the person may read but partner knowledge".into();
    }
    let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
    format!("Only {} lessons, and company knowledge", names.join(" and "))
}

#[async_trait]
pub trait MemoryScopeStore: Send + Sync {
    /// The agent's scopes; empty when none were set.
    async fn memory_scopes(&self, agent: AgentId) -> Result<Vec<MemoryScope>, StoreError>;
    /// Replaces them; audited with the old and new lists.
    async fn set_memory_scopes(&self, agent: AgentId, scopes: &[MemoryScope], actor: Actor) -> Result<(), StoreError>;
}

/// Whoever manages the agent (its owner or an admin) sets its scopes.
pub fn may_set(me: &Person, owner: PersonId) -> bool {
    me.is_admin || me.id == owner
}
