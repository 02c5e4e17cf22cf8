//! Which lessons an agent limited to its `memory_scopes` may load. The scopes themselves are the
//! agent's setting, kept by org (`org::memory_scopes`).

use super::{Lesson, LessonScope};
use crate::kernel::PersonId;
pub use crate::org::memory_scopes::{may_set, parse_scopes, scopes_line, MemoryScope, MemoryScopeStore, ALL_SCOPES};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::select::tests::lesson;
    use crate::lessons::LessonState;
    use crate::org::{AgentId, TeamId};
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
        let parse_scopes = |names: &[String]| parse_scopes(names).map_err(|e| e.to_string());
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
