use leptos::prelude::*;

/// The flash a refused playbook leaves its text under, per agent.
pub fn playbook_draft_key(agent: i64) -> String {
    crate::flash::draft_key(&format!("playbook:{agent}"))
}

/// An agent's Playbook, saved by its owner or an admin. A refused one keeps what was typed.
#[server(prefix = "/fn", endpoint = "save_playbook")]
pub async fn save_playbook(agent: i64, text: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = match drafter()?.save_playbook(&me, AgentId(agent), &text).await {
        Ok(()) => Notice::ok("Saved the playbook. Draft from what exists reads it for the agent's role"),
        Err(e) => {
            set_flash(&playbook_draft_key(agent), &text).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&company_agent(agent), notice).await
}
