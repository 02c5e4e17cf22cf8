use crate::flash::Notice;
use engine::org::service::AgentAccess;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentPageData {
    pub access: AgentAccess,
    pub notice: Option<Notice>,
    /// A playbook whose save was refused, as it was typed.
    #[serde(default)]
    pub playbook_draft: Option<String>,
    /// The memory scopes whose save was refused, as they were ticked.
    #[serde(default)]
    pub scopes_draft: Option<Vec<String>>,
}

#[server(prefix = "/fn", endpoint = "load_agent_page")]
pub async fn load_agent_page(id: i64) -> Result<AgentPageData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = take_flash(&notice_key(&company_agent(id))).await?;
    let playbook_draft = take_flash(&super::save_playbook::playbook_draft_key(id)).await?;
    let scopes_draft = take_flash(&super::set_memory_scopes::scopes_draft_key(id)).await?;
    match org()?.agents.agent_access(&me, AgentId(id)).await {
        Ok(access) => Ok(AgentPageData { access, notice, playbook_draft, scopes_draft }),
        Err(e) => {
            if matches!(e, engine::org::OrgError::NotFound(_)) {
                not_found();
            }
            Err(refused(e))
        }
    }
}
