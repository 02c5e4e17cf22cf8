use super::TeamDraft;
use crate::flash::Notice;
use engine::cores::service::RolesOverview;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamsPageData {
    pub overview: RolesOverview,
    pub notice: Option<Notice>,
    /// What was typed into a refused "New team".
    pub draft: Option<TeamDraft>,
}

/// The teams with their roles, leads and cores, and what the page's forms left behind.
#[server(prefix = "/fn", endpoint = "load_teams")]
pub async fn load_teams() -> Result<TeamsPageData, ServerFnError> {
    use super::team_draft_key;
    use crate::{flash::notice_key, paths::TEAMS, ssr::*};
    let me = signed_in().await?;
    let overview = cores()?.roles_overview(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(TEAMS)).await?;
    let draft = take_flash(&team_draft_key(TEAMS)).await?;
    Ok(TeamsPageData { overview, notice, draft })
}
