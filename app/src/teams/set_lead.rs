use leptos::prelude::*;

/// "Lead", on a team's page, for admins: a current person named by email or whole name, or none
/// (empty). A refusal says why, and the field keeps what was typed.
#[server(prefix = "/fn", endpoint = "set_team_lead")]
pub async fn set_team_lead(team: i64, lead: String) -> Result<(), ServerFnError> {
    use super::{lead_draft_key, team_notice_back};
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::org::TeamId;
    let me = signed_in().await?;
    let org = org()?;
    let notice = match org.people.resolve(&me, &lead, "the lead").await {
        Ok(chosen) => match org.teams.set_team_lead(&me, TeamId(team), chosen.map(|p| p.id)).await {
            Ok(()) => Notice::ok("Saved the team's lead"),
            Err(e) => Notice::refused(refusal(&e)),
        },
        Err(e) => Notice::refused(refusal(&e)),
    };
    if !notice.ok {
        set_flash(&lead_draft_key(team), &lead).await?;
    }
    team_notice_back(team, notice).await
}
