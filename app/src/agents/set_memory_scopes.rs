use leptos::prelude::*;

/// Which lessons the agent's runs load, ticked on its page by whoever manages it. The boxes post
/// as `scopes[]`; none ticked sends none, which means no limit.
#[server(prefix = "/fn", endpoint = "set_memory_scopes")]
pub async fn set_memory_scopes(agent: i64, scopes: Option<Vec<String>>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match org()?.set_memory_scopes(&me, AgentId(agent), &scopes.unwrap_or_default()).await {
        Ok(line) => Notice::ok(format!("Saved the agent's memory scopes. {line}.")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
