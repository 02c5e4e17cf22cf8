//! Reading the organisation in bounded pieces: the outline (teams, roles and company agents, never
//! the people), a page of people by name, a search by prefix, a team's members a page at a time,
//! and how many people each team has. A page that lists people, and a picker of a person, read
//! these, so what they cost does not grow with the organisation.

use super::{Agent, AgentId, Person, PersonId, Role, RoleId, Team, TeamId};
use serde::{Deserialize, Serialize};

/// People (and a team's members) shown on one page.
pub const PEOPLE_PAGE_SIZE: u32 = 50;

/// The most a person picker offers as someone types.
pub const PICK_LIMIT: u32 = 10;

/// The longest search kept: a name, an email or a team's name is shorter.
pub const SEARCH_MAX_CHARS: usize = 200;

/// A search considers at most this many people of each way it matches (by name, by email, by main
/// team's name), so that what it reads and sorts stays bounded: "a" matches thousands at 100,000
/// people, and nobody pages through them. A search that has more says so, and typing more narrows
/// it. Six pages of People at most, two of each way. (It was 250: at 100,000 people a search for
/// "a" then read and sorted three times as many rows as a page of People, and was the one page
/// whose time grew past 1.5 times the demo's; see BENCHMARKS.md.)
pub const SEARCH_CONSIDERS: u32 = 100;

/// The organisation without its people: the teams, roles and company agents, each by name. What
/// most pages need of the organisation, and bounded by those, not by how many people there are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Outline {
    pub teams: Vec<Team>,
    pub roles: Vec<Role>,
    pub agents: Vec<Agent>,
}

impl Outline {
    pub fn role(&self, id: RoleId) -> Option<&Role> {
        self.roles.iter().find(|r| r.id == id)
    }
    pub fn team(&self, id: TeamId) -> Option<&Team> {
        self.teams.iter().find(|t| t.id == id)
    }
    pub fn agent(&self, id: AgentId) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }
}

/// A search as the store matches it: a name, an email or a team's name that starts with what was
/// typed, ignoring case in A to Z (both backends fold exactly those letters, so they agree on every
/// name). `from` is the folded prefix and `to` the first string past every one that starts with it,
/// so the match is a range an index serves.
///
/// A page of a search considers, of each way it matches, the first `considers` people in that
/// way's order (the folded name; the email; the main team, then name), and lists those by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixSearch {
    pub from: String,
    pub to: String,
    /// [`SEARCH_CONSIDERS`], or fewer where a test says so.
    pub considers: u32,
}

impl PrefixSearch {
    /// `None` for nothing typed (the page lists everyone). Spaces around it are dropped, and a
    /// search longer than [`SEARCH_MAX_CHARS`] is cut there.
    pub fn parse(typed: &str) -> Option<Self> {
        let typed: String = typed.trim().chars().take(SEARCH_MAX_CHARS).collect();
        if typed.is_empty() {
            return None;
        }
        let from = fold(&typed);
        // U+10FFFF is the greatest character, and its UTF-8 bytes the greatest a character starts
        // with, so by bytes every string that starts with `from` sorts below `to`.
        let to = format!("{from}\u{10FFFF}");
        Some(Self { from, to, considers: SEARCH_CONSIDERS })
    }

    /// Whether `text` starts with the search, as the store decides it.
    pub fn matches(&self, text: &str) -> bool {
        fold(text).starts_with(&self.from)
    }
}

/// What both backends fold when they compare: A to Z to a to z, nothing else.
pub fn fold(text: &str) -> String {
    text.to_ascii_lowercase()
}

/// How many current people have a team as their main team; `team` is `None` for those with none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamSize {
    pub team: Option<TeamId>,
    pub people: u32,
}

/// A person as a picker offers them: their name and email (the email tells two of one name apart,
/// and is what the picker's field sends back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonChoice {
    pub id: PersonId,
    pub name: String,
    pub email: String,
}

impl From<&Person> for PersonChoice {
    fn from(p: &Person) -> Self {
        Self { id: p.id, name: p.name.clone(), email: p.email.clone() }
    }
}

/// One page of People for an admin: who is on it, whether there is a next, the counts by team,
/// and the outline the page names teams and roles from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeopleListing {
    pub people: Vec<Person>,
    /// The search as typed (trimmed), or empty.
    pub search: String,
    /// From 1.
    pub page: u32,
    pub has_next: bool,
    /// Each team's current people, teams by name, then those with no main team (if any). Teams
    /// by id: the outline names them, and the page's data carries each team once.
    pub sizes: Vec<(Option<TeamId>, u32)>,
    /// Current people in all.
    pub current: u32,
    pub outline: Outline,
    /// The search matches more people, in one of its ways, than it considers
    /// ([`SEARCH_CONSIDERS`]): the page says so, and that typing more narrows it.
    pub overflowed: bool,
}

/// A page number as typed in a link (`?page=3`): from 1; anything else is the first page. The
/// page is capped so the offset stays within what a store reads.
pub fn page_number(typed: Option<&str>) -> u32 {
    typed.and_then(|p| p.trim().parse::<u32>().ok()).filter(|p| *p >= 1).map(|p| p.min(1_000_000)).unwrap_or(1)
}

/// The offset of a page of `size`.
pub fn offset_of(page: u32, size: u32) -> u32 {
    page.saturating_sub(1).saturating_mul(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_a_folded_prefix_range() {
        assert_eq!(PrefixSearch::parse("   "), None);
        let s = PrefixSearch::parse("  Ali ").expect("a search");
        assert_eq!(s.from, "ali");
        assert!(s.to.as_str() > "alice chen" && s.to.as_str() > "ali\u{FFFF}" && s.to.as_str() < "alj");
        assert!(s.matches("Alice Chen") && s.matches("ALI") && !s.matches("Sam Ali"));
        // Only A to Z fold, as both backends fold.
        let e = PrefixSearch::parse("Émile").expect("a search");
        assert!(e.matches("Émile Zola") && !e.matches("émile zola"));
        let long = "x".repeat(SEARCH_MAX_CHARS + 10);
        assert_eq!(PrefixSearch::parse(&long).expect("a search").from.len(), SEARCH_MAX_CHARS);
    }

    #[test]
    fn pages_count_from_one() {
        assert_eq!(page_number(None), 1);
        assert_eq!(page_number(Some("0")), 1);
        assert_eq!(page_number(Some("x")), 1);
        assert_eq!(page_number(Some(" 3 ")), 3);
        assert_eq!(page_number(Some("99999999")), 1_000_000);
        assert_eq!(offset_of(1, 50), 0);
        assert_eq!(offset_of(3, 50), 100);
    }
}
