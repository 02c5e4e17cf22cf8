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
    // Only an admin may name anyone; anyone else is refused by the teams' own rule, in its words,
    // with no one looked up.
    let chosen = if me.is_admin { org.people.resolve(&me, &lead, "the lead").await } else { Ok(None) };
    let notice = match chosen {
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
