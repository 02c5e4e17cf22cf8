use leptos::prelude::*;

/// New agent: an admin sets up a company agent, naming its owner by email or whole name. A refusal
/// comes back with what was typed.
#[server(prefix = "/fn", endpoint = "create_agent")]
pub async fn create_agent(name: String, role: String, owner: String, description: String) -> Result<(), ServerFnError> {
    use super::load_agents::{AgentDraft, AGENT_DRAFT_KEY};
    use crate::flash::Notice;
    use crate::paths::{company_agent, AGENTS};
    use crate::ssr::*;
    use engine::org::agents::AgentForm;
    let me = signed_in().await?;
    let org = org()?;
    let made = match role_choice(&role) {
        Err(e) => Err(crate::components::error_message(&e)),
        // Only an admin may name anyone; anyone else is refused by the agents' own rule below,
        // in its words, with no one looked up.
        Ok(r) => {
            match if me.is_admin { org.people.resolve(&me, &owner, "the owner").await } else { Ok(Some(me.clone())) } {
                Err(e) => Err(refusal(&e)),
                Ok(None) => Err("Name the agent's owner: type their name or email".to_string()),
                Ok(Some(o)) => {
                    let form = AgentForm { name: name.clone(), role: r, owner: o.id, description: description.clone() };
                    org.agents.create_agent(&me, &form).await.map_err(|e| refusal(&e))
                }
            }
        }
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
