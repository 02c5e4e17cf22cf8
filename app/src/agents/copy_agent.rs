use leptos::prelude::*;

/// Copy for a team: a team copy of the agent, whose core is that team's.
#[server(prefix = "/fn", endpoint = "copy_agent")]
pub async fn copy_agent(agent: i64, team: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::{company_agent, AGENTS};
    use crate::ssr::*;
    use engine::org::{AgentId, TeamId};
    let me = signed_in().await?;
    let Ok(team) = team.trim().parse::<i64>() else {
        return notice_back(AGENTS, Notice::refused("Choose a team from the list")).await;
    };
    match org()?.agents.copy_agent_for_team(&me, AgentId(agent), TeamId(team)).await {
        Ok(copy) => {
            notice_back(&company_agent(copy.id.0), Notice::ok(format!("Added {}, a team copy", copy.name))).await
        }
        Err(e) => notice_back(AGENTS, Notice::refused(refusal(&e))).await,
    }
}
