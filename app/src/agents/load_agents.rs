use crate::flash::Notice;
use engine::org::listing::Outline;
use engine::org::{Agent, PersonId};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// New agent's fields as typed, kept across a refusal with the reason, so nothing typed is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AgentDraft {
    pub name: String,
    pub role: String,
    pub owner: String,
    pub description: String,
    pub message: String,
}

/// The flash key of New agent's kept fields.
pub const AGENT_DRAFT_KEY: &str = "draft:new-agent";

/// New private agent's fields as typed, kept across a refusal with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PrivateAgentDraft {
    pub name: String,
    pub description: String,
    pub message: String,
}

/// The flash key of New private agent's kept fields.
pub const PRIVATE_AGENT_DRAFT_KEY: &str = "draft:new-private-agent";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentsData {
    /// The teams, roles and company agents; never everyone in the organisation.
    pub outline: Outline,
    /// The company agents' owners' names, by id.
    pub owners: Vec<(PersonId, String)>,
    pub me: PersonId,
    pub is_admin: bool,
    pub notice: Option<Notice>,
    /// Per agent: the toolsets it holds and what its model is cleared for, in words.
    pub access: Vec<(i64, String)>,
    pub draft: Option<AgentDraft>,
    /// The viewer's own private agents; nobody else's are ever listed.
    pub private: Vec<Agent>,
    pub private_draft: Option<PrivateAgentDraft>,
}

#[server(prefix = "/fn", endpoint = "load_agents")]
pub async fn load_agents() -> Result<AgentsData, ServerFnError> {
    use crate::{flash::notice_key, paths::AGENTS, ssr::*};
    let me = signed_in().await?;
    let org = org()?;
    let outline = org.outline().await.map_err(refused)?;
    let owner_ids: Vec<PersonId> = outline.agents.iter().map(|a| a.owner).collect();
    let owners = org.people_by_ids(&owner_ids).await.map_err(refused)?.into_iter().map(|p| (p.id, p.name)).collect();
    let notice = take_flash(&notice_key(AGENTS)).await?;
    let draft = take_flash(AGENT_DRAFT_KEY).await?;
    let access = memory()?.mine.access_lines().await.map_err(refused)?;
    let private = org.agents.private_agents(&me).await.map_err(refused)?;
    let private_draft = take_flash(PRIVATE_AGENT_DRAFT_KEY).await?;
    Ok(AgentsData { outline, owners, me: me.id, is_admin: me.is_admin, notice, access, draft, private, private_draft })
}
