use leptos::prelude::*;

/// New private agent: anyone signed in makes an agent of their own. A refusal comes back with
/// what was typed.
#[server(prefix = "/fn", endpoint = "create_private_agent")]
pub async fn create_private_agent(name: String, description: String) -> Result<(), ServerFnError> {
    use super::load_agents::{PrivateAgentDraft, PRIVATE_AGENT_DRAFT_KEY};
    use crate::flash::Notice;
    use crate::paths::{company_agent, AGENTS};
    use crate::ssr::*;
    let me = signed_in().await?;
    match org()?.agents.create_private_agent(&me, &name, &description).await {
        Ok(a) => notice_back(&company_agent(a.id.0), Notice::ok(format!("Added your private agent {}", a.name))).await,
        Err(e) => {
            let draft = PrivateAgentDraft { name, description, message: refusal(&e) };
            set_flash(PRIVATE_AGENT_DRAFT_KEY, &draft).await?;
            go_to(AGENTS);
            Ok(())
        }
    }
}
