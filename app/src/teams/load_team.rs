use super::TeamDraft;
use crate::flash::Notice;
use engine::org::teams::TeamView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamPageData {
    pub view: TeamView,
    pub notice: Option<Notice>,
    /// The name typed into a refused Rename.
    pub draft: Option<TeamDraft>,
    /// What was typed into a refused Lead.
    pub lead_typed: Option<String>,
}

/// A team's lead, member count and one page of members, and what the viewer may change; `team` is
/// the page's id, as typed, and `page` the page of members (`?page=N`, from 1).
#[server(prefix = "/fn", endpoint = "load_team")]
pub async fn load_team(team: String, page: u32) -> Result<TeamPageData, ServerFnError> {
    use super::{lead_draft_key, team_draft_key, team_notice_key, team_path};
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let Ok(id) = team.trim().parse::<i64>() else {
        not_found();
        return Err(ServerFnError::new("There is no such team"));
    };
    let org = org()?;
    let view = match org.teams.team_view(&me, TeamId(id), page).await {
        Ok(view) => view,
        Err(e) => {
            if matches!(e, engine::org::OrgError::NotFound(_)) {
                not_found();
            }
            return Err(refused(e));
        }
    };
    let notice = take_flash(&team_notice_key(id)).await?;
    let draft = take_flash(&team_draft_key(&team_path(id))).await?;
    let lead_typed = if view.may_manage { take_flash(&lead_draft_key(id)).await? } else { None };
    Ok(TeamPageData { view, notice, draft, lead_typed })
}
