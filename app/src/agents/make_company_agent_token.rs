use leptos::prelude::*;

/// The flash the secret of an agent token just made waits under, for the page to show once.
pub fn agent_token_secret_key(agent: i64) -> String {
    format!("agent-token-secret:{agent}")
}

/// The flash a refused token's name waits under, as it was typed.
pub fn agent_token_draft_key(agent: i64) -> String {
    crate::flash::draft_key(&format!("agent-token:{agent}"))
}

/// Makes a token for an outside agent to use the company agent acting for nobody, by its owner or
/// an admin. The secret goes to the page once; only its hash is kept. A refused one keeps the
/// name as it was typed and says why.
#[server(prefix = "/fn", endpoint = "make_company_agent_token")]
pub async fn make_company_agent_token(agent: i64, name: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match agent_tokens()?.make(&me, AgentId(agent), &name).await {
        Ok((t, secret)) => {
            set_flash(&agent_token_secret_key(agent), &secret).await?;
            Notice::ok(format!("Made the agent token “{}”", t.name))
        }
        Err(e) => {
            set_flash(&agent_token_draft_key(agent), &name).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&company_agent(agent), notice).await
}
