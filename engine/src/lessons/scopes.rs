//! An agent's `memory_scopes`: which lessons its runs may load. An empty list means no limit;
//! otherwise the listed scopes, plus company knowledge, which every run may load. Partner
//! knowledge loads only when listed.

use super::{Lesson, LessonScope};
use crate::org::{AgentId, Person, PersonId};
use crate::store::{Actor, StoreError};
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

impl MemoryScope {
    pub fn as_str(&self) -> &'static str {
        match self {
            MemoryScope::Personal => "personal",
            MemoryScope::Team => "team",
            MemoryScope::Partner => "partner",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        ALL_SCOPES.into_iter().find(|m| m.as_str() == s)
    }

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
pub fn parse_scopes(names: &[String]) -> Result<Vec<MemoryScope>, String> {
    let mut out = Vec::new();
    for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let s = MemoryScope::parse(n)
            .ok_or_else(|| format!("{n:?} is not a memory scope: use personal, team or partner"))?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out.sort();
    Ok(out)
}

/// Whether an agent limited to `scopes` may load the lesson. `private_owner` is the owner of the
/// running agent when it is a private agent: what a person's private agents kept loads only into
/// that person's private agents' runs, never a shared agent's.
pub fn within(scopes: &[MemoryScope], lesson: &Lesson, private_owner: Option<PersonId>) -> bool {
    match lesson.scope {
        LessonScope::Company => true,
        // Partner knowledge loads only where it is listed, even into an agent with no limit.
        LessonScope::Partner => scopes.contains(&MemoryScope::Partner),
        LessonScope::Agent(_) => private_owner == Some(lesson.person),
        _ if scopes.is_empty() => true,
        LessonScope::Personal => scopes.contains(&MemoryScope::Personal),
        LessonScope::Team(_) => scopes.contains(&MemoryScope::Team),
    }
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
pub fn may_set(me: &Person, owner: crate::org::PersonId) -> bool {
    me.is_admin || me.id == owner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::select::tests::lesson;
    use crate::lessons::LessonState;
    use crate::org::TeamId;
    use chrono::Utc;

    #[test]
    fn scopes_limit_what_loads_and_company_knowledge_always_does() {
        use MemoryScope::{Personal, Team};
        let with = |scope: LessonScope| {
            let mut l = lesson(1, "x", LessonState::Accepted, true, Utc::now());
            l.scope = scope;
            l
        };
        use MemoryScope::Partner;
        let cases: [(&[MemoryScope], LessonScope, bool); 16] = [
            // Partner knowledge only where it is listed, even where nothing else is limited.
            (&[], LessonScope::Partner, false),
            (&[Personal, Team], LessonScope::Partner, false),
            (&[Partner], LessonScope::Partner, true),
            (&[Partner], LessonScope::Personal, false),
            (&[], LessonScope::Personal, true),
            (&[], LessonScope::Team(TeamId(1)), true),
            (&[], LessonScope::Company, true),
            (&[], LessonScope::Agent(AgentId(1)), false),
            (&[Personal], LessonScope::Personal, true),
            (&[Personal], LessonScope::Team(TeamId(1)), false),
            (&[Personal], LessonScope::Company, true),
            (&[Team], LessonScope::Personal, false),
            (&[Team], LessonScope::Team(TeamId(1)), true),
            (&[Team], LessonScope::Company, true),
            (&[Personal, Team], LessonScope::Personal, true),
            (&[Personal, Team], LessonScope::Agent(AgentId(1)), false),
        ];
        for (scopes, scope, loads) in cases {
            assert_eq!(within(scopes, &with(scope), None), loads, "{scopes:?} {scope:?}");
        }
    }

    #[test]
    fn a_private_agents_lessons_load_only_into_its_owners_private_agents() {
        let mut l = lesson(1, "x", LessonState::Accepted, true, Utc::now());
        l.scope = LessonScope::Agent(AgentId(9));
        let owner = l.person;
        let other = PersonId(owner.0 + 1);
        // (the running agent's scopes, whose private agent it is, loads)
        let cases: [(&[MemoryScope], Option<PersonId>, bool); 5] = [
            // A shared agent never loads them, limited or not.
            (&[], None, false),
            (&[MemoryScope::Personal, MemoryScope::Team], None, false),
            // Any private agent of the owner's does, whatever its scopes.
            (&[], Some(owner), true),
            (&[MemoryScope::Team], Some(owner), true),
            // Another person's private agent never does.
            (&[], Some(other), false),
        ];
        for (scopes, private_owner, loads) in cases {
            assert_eq!(within(scopes, &l, private_owner), loads, "{scopes:?} {private_owner:?}");
        }
        // A private agent loads the rest as a shared one does.
        l.scope = LessonScope::Personal;
        assert!(within(&[], &l, Some(owner)));
        assert!(!within(&[MemoryScope::Team], &l, Some(owner)));
    }

    #[test]
    fn scopes_parse_once_each_and_refuse_an_unknown_one() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_scopes(&names(&["team", "personal", "team", " "])),
            Ok(vec![MemoryScope::Personal, MemoryScope::Team])
        );
        assert_eq!(parse_scopes(&[]), Ok(vec![]));
        assert_eq!(
            parse_scopes(&names(&["partners"])),
            Err("\"partners\" is not a memory scope: use personal, team or partner".into())
        );
        assert_eq!(scopes_line(&[]), "No limit: every lesson the person may read but partner knowledge");
        assert_eq!(
            scopes_line(&[MemoryScope::Personal, MemoryScope::Partner]),
            "Only personal and partner lessons, and company knowledge"
        );
        assert_eq!(scopes_line(&[MemoryScope::Team]), "Only team lessons, and company knowledge");
    }
}
