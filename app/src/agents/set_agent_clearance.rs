use leptos::prelude::*;

/// The agent's clearance, set by an admin alone.
#[server(prefix = "/fn", endpoint = "set_agent_clearance")]
pub async fn set_agent_clearance(agent: i64, clearance: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match org()?.agents.set_agent_clearance(&me, AgentId(agent), &clearance).await {
        Ok(meaning) => Notice::ok(format!("Saved the clearance: {meaning}")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
