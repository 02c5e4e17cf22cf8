//! Where each page lives, so links and redirects agree.

use engine::cores::CoreScope;

pub fn core_home(scope: &CoreScope) -> String {
    match scope {
        CoreScope::Company(slug) => format!("/company/roles/{}", slug.as_str()),
        CoreScope::Team(id) => format!("/company/teams/{id}"),
    }
}

pub fn core_editor(scope: &CoreScope) -> String {
    format!("/cores/{}/edit", scope.key())
}

pub fn core_version(scope: &CoreScope, version: u32) -> String {
    format!("/cores/{}/versions/{version}", scope.key())
}

pub const ROLES: &str = "/company/roles";
pub const TEAMS: &str = "/company/teams";
pub const PEOPLE: &str = "/company/people";
pub const AGENTS: &str = "/company/agents";
pub const TOKENS: &str = "/profile/tokens";
pub const PASSWORD: &str = "/profile/password";
pub const SIGN_IN: &str = "/signin";
pub const BOTS: &str = "/org/agents";
pub const MY_MEMORY: &str = "/profile/memory";
pub const CONNECTORS: &str = "/company/connectors";

/// A company agent's own page: what it holds and what it is cleared for.
pub fn company_agent(id: i64) -> String {
    format!("/company/agents/{id}")
}

/// Where another system posts to start a company agent through its trigger (not a page).
pub fn agent_trigger(id: i64) -> String {
    format!("/api/agents/{id}/trigger")
}

pub fn connector(id: i64) -> String {
    format!("/company/connectors/{id}")
}
pub const IMPROVE: &str = "/org/improve";
pub const ASK: &str = "/ask";
pub const INBOX: &str = "/inbox";
pub const EVENTS: &str = "/company/events";
pub const MEMORY_SETTINGS: &str = "/company/memory";
pub const ERASURE: &str = "/company/erasure";
pub const OPERATIONS: &str = "/company/operations";

pub fn thread(id: engine::runs::ThreadId) -> String {
    format!("/threads/{id}")
}

pub fn org_agent(name: &str) -> String {
    format!("/org/agents/{name}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::org::{RoleSlug, TeamId};

    #[test]
    fn cores_live_where_their_role_or_team_does() {
        let sales = CoreScope::Company(RoleSlug::parse("sales").unwrap());
        assert_eq!(core_home(&sales), "/company/roles/sales");
        assert_eq!(core_editor(&sales), "/cores/company:role:sales/edit");
        assert_eq!(core_version(&sales, 3), "/cores/company:role:sales/versions/3");
        assert_eq!(core_home(&CoreScope::Team(TeamId(4))), "/company/teams/4");
        assert_eq!(thread(engine::runs::ThreadId(7)), "/threads/7");
    }
}

/// A value as a URL's query holds it: every byte but the unreserved ones percent-escaped.
pub fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// People with its search, page and open drawer, as a link: what is empty or first is left out.
pub fn people_link(search: &str, page: u32, person: Option<i64>) -> String {
    let mut parts = Vec::new();
    if !search.is_empty() {
        parts.push(format!("q={}", query_value(search)));
    }
    if page > 1 {
        parts.push(format!("page={page}"));
    }
    if let Some(p) = person {
        parts.push(format!("person={p}"));
    }
    if parts.is_empty() {
        PEOPLE.to_string()
    } else {
        format!("{PEOPLE}?{}", parts.join("&"))
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn people_links_keep_the_search_and_page() {
        assert_eq!(people_link("", 1, None), "/company/people");
        assert_eq!(people_link("Sam R&D", 2, Some(7)), "/company/people?q=Sam%20R%26D&page=2&person=7");
        assert_eq!(query_value("é/?"), "%C3%A9%2F%3F");
    }
}
