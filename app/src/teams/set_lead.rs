use leptos::prelude::*;

/// "Lead", on a team's page, for admins: a person who has not left, or none.
#[server(prefix = "/fn", endpoint = "set_team_lead")]
pub async fn set_team_lead(team: i64, lead: String) -> Result<(), ServerFnError> {
    use super::team_notice_back;
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::org::{PersonId, TeamId};
    let me = signed_in().await?;
    let lead = match lead.trim() {
        "" => None,
        l => Some(PersonId(l.parse().map_err(|_| ServerFnError::new("Choose a lead from the list"))?)),
    };
    let notice = match org()?.teams.set_team_lead(&me, TeamId(team), lead).await {
        Ok(()) => Notice::ok("Saved the team's lead"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    team_notice_back(team, notice).await
}
