use leptos::prelude::*;

/// Puts a team in a role (or none). `back` is the page the form was on.
#[server(prefix = "/fn", endpoint = "set_team_role")]
pub async fn set_team_role(team: i64, role: String, back: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let back = local_path(&back, crate::paths::ROLES);
    let role = role_choice(&role)?;
    let notice = match org()?.teams.set_team_role(&me, TeamId(team), role).await {
        Ok(()) => Notice::ok("Saved the team's role"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
