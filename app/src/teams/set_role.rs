use leptos::prelude::*;

/// "Department role", on a team's page, for admins. (Teams and Roles post to `set_team_role`,
/// whose outcome those pages show; this one reports on the team's page.)
#[server(prefix = "/fn", endpoint = "choose_team_role")]
pub async fn choose_team_role(team: i64, role: String) -> Result<(), ServerFnError> {
    use super::team_notice_back;
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let role = role_choice(&role)?;
    let notice = match org()?.teams.set_team_role(&me, TeamId(team), role).await {
        Ok(()) => Notice::ok("Saved the team's role"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    team_notice_back(team, notice).await
}
