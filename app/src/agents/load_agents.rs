use crate::flash::Notice;
use engine::org::{Directory, PersonId};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentsData {
    pub directory: Directory,
    pub me: PersonId,
    pub is_admin: bool,
    pub notice: Option<Notice>,
    /// Per agent: the toolsets it holds and what its model is cleared for, in words.
    pub access: Vec<(i64, String)>,
}

#[server(prefix = "/fn", endpoint = "load_agents")]
pub async fn load_agents() -> Result<AgentsData, ServerFnError> {
    use crate::{flash::notice_key, paths::AGENTS, ssr::*};
    let me = signed_in().await?;
    let directory = org()?.directory().await.map_err(internal)?;
    let notice = take_flash(&notice_key(AGENTS)).await?;
    let access = memory()?.access_lines().await.map_err(|e| ServerFnError::new(memory_refusal(&e)))?;
    Ok(AgentsData { directory, me: me.id, is_admin: me.is_admin, notice, access })
}
