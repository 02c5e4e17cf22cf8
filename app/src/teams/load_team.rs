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
}

/// A team's members and lead, and what the viewer may change; `team` is the page's id, as typed.
#[server(prefix = "/fn", endpoint = "load_team")]
pub async fn load_team(team: String) -> Result<TeamPageData, ServerFnError> {
    use super::{team_draft_key, team_notice_key, team_path};
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let Ok(id) = team.trim().parse::<i64>() else {
        not_found();
        return Err(ServerFnError::new("There is no such team"));
    };
    let view = match org()?.teams.team_view(&me, TeamId(id)).await {
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
    Ok(TeamPageData { view, notice, draft })
}
