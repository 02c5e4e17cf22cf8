use leptos::prelude::*;

/// Pauses (`paused` true) or resumes a company agent, by its owner or an admin: paused, neither
/// its schedule nor its trigger fires.
#[server(prefix = "/fn", endpoint = "set_agent_paused")]
pub async fn set_agent_paused(agent: i64, paused: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match schedules()?.set_paused(&me, AgentId(agent), paused).await {
        Ok(()) if paused => Notice::ok("Paused: it runs nothing unasked until it is resumed"),
        Ok(()) => Notice::ok("Resumed: its schedule and trigger run again"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
