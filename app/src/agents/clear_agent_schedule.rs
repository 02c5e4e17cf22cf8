use leptos::prelude::*;

/// Removes a company agent's schedule, by its owner or an admin.
#[server(prefix = "/fn", endpoint = "clear_agent_schedule")]
pub async fn clear_agent_schedule(agent: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match schedules()?.clear_schedule(&me, AgentId(agent)).await {
        Ok(()) => Notice::ok("Cleared the schedule"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
