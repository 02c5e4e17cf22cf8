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

pub fn connector(id: i64) -> String {
    format!("/company/connectors/{id}")
}
pub const IMPROVE: &str = "/org/improve";
pub const ASK: &str = "/ask";
pub const INBOX: &str = "/inbox";
pub const EVENTS: &str = "/company/events";
pub const MEMORY_SETTINGS: &str = "/company/memory";
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
