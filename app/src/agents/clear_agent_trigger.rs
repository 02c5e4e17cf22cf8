use leptos::prelude::*;

/// Removes a company agent's trigger, by its owner or an admin: its secret stops working.
#[server(prefix = "/fn", endpoint = "clear_agent_trigger")]
pub async fn clear_agent_trigger(agent: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match schedules()?.clear_trigger(&me, AgentId(agent)).await {
        Ok(()) => Notice::ok("Cleared the trigger; its secret no longer works"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
