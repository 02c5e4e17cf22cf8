use leptos::prelude::*;

/// "New team", for admins: a name and, if chosen, a department role. The new team's page opens;
/// a refusal goes back to Teams with what was typed.
#[server(prefix = "/fn", endpoint = "create_team")]
pub async fn create_team(name: String, role: String) -> Result<(), ServerFnError> {
    use super::{team_draft_key, team_notice_back, TeamDraft};
    use crate::flash::Notice;
    use crate::paths::TEAMS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let chosen = role_choice(&role)?;
    match org()?.teams.create_team(&me, &name, chosen).await {
        Ok(team) => team_notice_back(team.id.0, Notice::ok(format!("Added the team {}", team.name))).await,
        Err(e) => {
            set_flash(&team_draft_key(TEAMS), &TeamDraft { name, role }).await?;
            notice_back(TEAMS, Notice::refused(refusal(&e))).await
        }
    }
}
