use leptos::prelude::*;

/// Revoke on a bot's page: its owner or lead stops one of its tokens at once.
#[server(prefix = "/fn", endpoint = "revoke_agent_token")]
pub async fn revoke_agent_token(agent: String, id: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let notice = match bots()?.tokens.revoke_agent_token(&Caller::Person(me), &agent, id).await {
        Ok(()) => Notice::ok(format!("Revoked {agent}'s token #{id}; it no longer works")),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&org_agent(&agent), notice).await
}
