use leptos::prelude::*;

/// Revokes one of a company agent's tokens, by its owner or an admin: it stops at once, and the
/// runs it started take no more calls.
#[server(prefix = "/fn", endpoint = "revoke_company_agent_token")]
pub async fn revoke_company_agent_token(agent: i64, token: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match agent_tokens()?.revoke(&me, AgentId(agent), token).await {
        Ok(()) => Notice::ok(format!("Revoked token #{token}; it no longer works")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
