//! Teams: the list with each team's role, lead and core, and "New team" for admins; a team's page
//! with its members and lead, where its lead or an admin renames it and an admin sets its role and
//! lead; and the People drawer's Main team, where an admin moves someone to another team.

pub mod create_team;
pub mod load_team;
pub mod load_teams;
pub mod move_person;
pub mod rename_team;
pub mod set_lead;
pub mod set_role;
pub mod team_page;
pub mod teams_page;

use serde::{Deserialize, Serialize};

/// A team's page.
pub fn team_path(id: i64) -> String {
    format!("{}/{id}", crate::paths::TEAMS)
}

/// What was typed into a refused team form, kept across the redirect so nothing is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TeamDraft {
    pub name: String,
    /// The role chosen, as the form sent it: a role's id, or empty for none.
    pub role: String,
}

/// The flash key of the draft kept for the page at `path`.
pub fn team_draft_key(path: &str) -> String {
    format!("team-draft:{path}")
}

/// The flash key of what was typed into a refused Lead on a team's page.
pub fn lead_draft_key(team: i64) -> String {
    format!("draft:lead:{team}")
}

/// The flash key of a team page's own notice: the page's core section shows the notice under the
/// page's path, so the team's forms report under their own.
pub fn team_notice_key(team: i64) -> String {
    format!("notice:team:{team}")
}

/// The ending of a team page's form post: the outcome to the page's team notice, and the browser
/// back to the page.
#[cfg(feature = "ssr")]
pub async fn team_notice_back(team: i64, notice: crate::flash::Notice) -> Result<(), leptos::prelude::ServerFnError> {
    crate::ssr::set_flash(&team_notice_key(team), &notice).await?;
    crate::ssr::go_to(&team_path(team));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::notice_key;

    #[test]
    fn a_team_page_is_where_its_core_lives() {
        let scope = engine::cores::CoreScope::Team(engine::org::TeamId(4));
        assert_eq!(team_path(4), crate::paths::core_home(&scope));
    }

    #[test]
    fn a_team_page_reports_apart_from_its_core() {
        assert_ne!(team_notice_key(4), notice_key(&team_path(4)));
        assert_ne!(team_draft_key(crate::paths::TEAMS), team_draft_key(&team_path(4)));
    }
}
