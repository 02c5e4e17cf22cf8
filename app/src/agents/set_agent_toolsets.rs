use leptos::prelude::*;

/// The agent's toolsets, ticked on its page by whoever manages it. The boxes post as
/// `toolsets[]`; none ticked sends none, and the agent then holds none.
#[server(prefix = "/fn", endpoint = "set_agent_toolsets")]
pub async fn set_agent_toolsets(agent: i64, toolsets: Option<Vec<i64>>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match org()?.agents.set_agent_toolsets(&me, AgentId(agent), &toolsets.unwrap_or_default()).await {
        Ok(()) => Notice::ok("Saved the agent's toolsets"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
