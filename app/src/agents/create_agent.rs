use leptos::prelude::*;

/// New agent: an admin sets up a company agent. A refusal comes back with what was typed.
#[server(prefix = "/fn", endpoint = "create_agent")]
pub async fn create_agent(name: String, role: String, owner: String, description: String) -> Result<(), ServerFnError> {
    use super::load_agents::{AgentDraft, AGENT_DRAFT_KEY};
    use crate::flash::Notice;
    use crate::paths::{company_agent, AGENTS};
    use crate::ssr::*;
    use engine::org::agents::AgentForm;
    use engine::org::PersonId;
    let me = signed_in().await?;
    let made = match (role_choice(&role), owner.trim().parse::<i64>()) {
        (Ok(r), Ok(o)) => {
            let form = AgentForm { name: name.clone(), role: r, owner: PersonId(o), description: description.clone() };
            org()?.agents.create_agent(&me, &form).await.map_err(|e| refusal(&e))
        }
        (Err(e), _) => Err(crate::components::error_message(&e)),
        (_, Err(_)) => Err("Choose the agent's owner from the list".to_string()),
    };
    match made {
        Ok(a) => {
            notice_back(&company_agent(a.id.0), Notice::ok(format!("Added {}; give it toolsets below", a.name))).await
        }
        Err(message) => {
            set_flash(AGENT_DRAFT_KEY, &AgentDraft { name, role, owner, description, message }).await?;
            go_to(AGENTS);
            Ok(())
        }
    }
}
