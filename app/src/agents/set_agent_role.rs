use leptos::prelude::*;

/// The agent's Department role, changed by whoever manages the agent.
#[server(prefix = "/fn", endpoint = "set_agent_role")]
pub async fn set_agent_role(agent: i64, role: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::AGENTS;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let role = role_choice(&role)?;
    let notice = match org()?.agents.set_agent_role(&me, AgentId(agent), role).await {
        Ok(()) => Notice::ok("Saved the agent's department role"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(AGENTS, notice).await
}
