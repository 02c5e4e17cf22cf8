use leptos::prelude::*;

/// The flash a refused save leaves its ticks under, per agent.
pub fn scopes_draft_key(agent: i64) -> String {
    crate::flash::draft_key(&format!("memory-scopes:{agent}"))
}

/// Which lessons the agent's runs load, ticked on its page by whoever manages it. The boxes post
/// as `scopes[]`; none ticked sends none, which means no limit. A refused save keeps the ticks.
#[server(prefix = "/fn", endpoint = "set_memory_scopes")]
pub async fn set_memory_scopes(agent: i64, scopes: Option<Vec<String>>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let scopes = scopes.unwrap_or_default();
    let notice = match org()?.agents.set_memory_scopes(&me, AgentId(agent), &scopes).await {
        Ok(line) => Notice::ok(format!("Saved the agent's memory scopes. {line}.")),
        Err(e) => {
            set_flash(&scopes_draft_key(agent), &scopes).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&company_agent(agent), notice).await
}
