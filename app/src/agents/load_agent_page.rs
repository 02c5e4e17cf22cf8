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
    /// How the agent runs unasked, or the sentence saying why it has no such thing.
    pub runs_unasked: Result<RunsUnasked, String>,
    /// The agent's tokens for outside agents: only for its owner and admins, of a company agent.
    #[serde(default)]
    pub agent_tokens: Option<AgentTokensShown>,
}

/// The "Agent tokens" section: never a secret, except the one just made, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentTokensShown {
    pub tokens: Vec<AgentTokenShown>,
    /// A token's secret just made by this reader, shown this once.
    pub new_secret: Option<String>,
    /// A refused token's name, as it was typed.
    pub draft: Option<String>,
    /// Where an outside agent connects over MCP: "/mcp".
    pub mcp_path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentTokenShown {
    pub id: i64,
    pub name: String,
    /// When, in the company's zone: "Wed 2 Dec 2026, 09:00 (Asia/Kolkata)".
    pub made: String,
    pub last_used: Option<String>,
    pub revoked: Option<String>,
}

/// The "Runs unasked" section: the schedule, the trigger and the pause, in the company's zone.
/// Never a trigger's secret, except the one just made, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsUnasked {
    /// Whether the reader may change them: the agent's owner or an admin.
    pub manages: bool,
    pub schedule: Option<ScheduleShown>,
    /// When the trigger was made, in the company's zone; none without a trigger.
    pub trigger_made: Option<String>,
    /// Where another system posts to start the agent.
    pub trigger_path: String,
    pub paused: bool,
    /// A trigger's secret just made or rotated by this reader, shown this once.
    pub new_secret: Option<String>,
    /// A schedule whose save was refused, as it was typed.
    pub draft: Option<ScheduleDraft>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleShown {
    pub instruction: String,
    /// daily, weekdays or every, and its value, as the form takes them.
    pub kind: String,
    pub value: String,
    /// "Daily at 09:00".
    pub when: String,
    /// "Wed 2 Dec 2026, 09:00 (Asia/Kolkata)".
    pub next_due: String,
}

/// The schedule form as it was sent, kept across a refused save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleDraft {
    pub instruction: String,
    pub kind: String,
    pub value: String,
}

// Not "load_agent_page": a bot's page has that endpoint, and two server functions at one path
// answer one of them with the other's arguments ("missing field `name`").
#[server(prefix = "/fn", endpoint = "load_company_agent_page")]
pub async fn load_agent_page(id: i64) -> Result<AgentPageData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let notice = take_flash(&notice_key(&company_agent(id))).await?;
    let playbook_draft = take_flash(&super::save_playbook::playbook_draft_key(id)).await?;
    let scopes_draft = take_flash(&super::set_memory_scopes::scopes_draft_key(id)).await?;
    let access = match org()?.agents.agent_access(&me, AgentId(id)).await {
        Ok(access) => access,
        Err(e) => {
            if matches!(e, engine::org::OrgError::NotFound(_)) {
                not_found();
            }
            return Err(refused(e));
        }
    };
    let runs_unasked = runs_unasked(&me, id).await?;
    let agent_tokens = agent_tokens_shown(&me, id).await?;
    Ok(AgentPageData { access, notice, playbook_draft, scopes_draft, runs_unasked, agent_tokens })
}

#[cfg(feature = "ssr")]
async fn agent_tokens_shown(me: &engine::org::Person, id: i64) -> Result<Option<AgentTokensShown>, ServerFnError> {
    use crate::ssr::*;
    use engine::org::AgentId;
    use engine::runs::schedules::due_words;
    let t = agent_tokens()?;
    if !t.manages(me, AgentId(id)).await.map_err(refused)? {
        return Ok(None);
    }
    let new_secret = take_flash(&super::make_company_agent_token::agent_token_secret_key(id)).await?;
    let draft = take_flash(&super::make_company_agent_token::agent_token_draft_key(id)).await?;
    let zone = schedules()?.zone().await.map_err(refused)?;
    let tokens = t
        .list(me, AgentId(id))
        .await
        .map_err(refused)?
        .into_iter()
        .map(|t| AgentTokenShown {
            id: t.id,
            name: t.name,
            made: due_words(zone, t.made_at),
            last_used: t.last_used_at.map(|at| due_words(zone, at)),
            revoked: t.revoked_at.map(|at| due_words(zone, at)),
        })
        .collect();
    Ok(Some(AgentTokensShown { tokens, new_secret, draft, mcp_path: "/mcp".into() }))
}

#[cfg(feature = "ssr")]
async fn runs_unasked(me: &engine::org::Person, id: i64) -> Result<Result<RunsUnasked, String>, ServerFnError> {
    use crate::ssr::*;
    use engine::org::AgentId;
    use engine::runs::schedules::due_words;
    let draft = take_flash(&super::set_agent_schedule::schedule_draft_key(id)).await?;
    let new_secret = take_flash(&super::make_agent_trigger::trigger_secret_key(id)).await?;
    let v = match schedules()?.view(me, AgentId(id)).await {
        Ok(v) => v,
        // A private agent says why it has none; anything else is the page's own refusal.
        Err(e @ engine::runs::RunError::Invalid(_)) => return Ok(Err(refusal(&e))),
        Err(e) => return Err(refused(e)),
    };
    let a = v.automation;
    Ok(Ok(RunsUnasked {
        manages: v.manages,
        schedule: a.schedule.map(|s| ScheduleShown {
            kind: s.when.kind().to_string(),
            value: s.when.value(),
            when: s.when.words(),
            next_due: due_words(v.zone, s.next_due),
            instruction: s.instruction,
        }),
        trigger_made: a.trigger.map(|t| due_words(v.zone, t.made_at)),
        trigger_path: crate::paths::agent_trigger(id),
        paused: a.paused,
        // Only whoever may change it ever holds a secret; the flash is theirs alone anyway.
        new_secret: new_secret.filter(|_| v.manages),
        draft,
    }))
}
