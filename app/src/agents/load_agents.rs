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
}

#[server(prefix = "/fn", endpoint = "load_agents")]
pub async fn load_agents() -> Result<AgentsData, ServerFnError> {
    use crate::{flash::notice_key, paths::AGENTS, ssr::*};
    let (engine, me) = signed_in().await?;
    let directory = engine.directory().await.map_err(internal)?;
    let notice = take_flash(&notice_key(AGENTS)).await?;
    Ok(AgentsData { directory, me: me.id, is_admin: me.is_admin, notice })
}
