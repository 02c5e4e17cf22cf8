use leptos::prelude::*;

/// "Rename", on a team's page: its lead or an admin. A refusal keeps the name typed.
#[server(prefix = "/fn", endpoint = "rename_team")]
pub async fn rename_team(team: i64, name: String) -> Result<(), ServerFnError> {
    use super::{team_draft_key, team_notice_back, team_path, TeamDraft};
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let notice = match org()?.teams.rename_team(&me, TeamId(team), &name).await {
        Ok(t) => Notice::ok(format!("Renamed the team to {}", t.name)),
        Err(e) => {
            set_flash(&team_draft_key(&team_path(team)), &TeamDraft { name, role: String::new() }).await?;
            Notice::refused(refusal(&e))
        }
    };
    team_notice_back(team, notice).await
}
