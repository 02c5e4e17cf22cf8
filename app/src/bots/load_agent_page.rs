use crate::flash::Notice;
use engine::persona::service::AgentPage;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentPageData {
    pub page: AgentPage,
    pub notice: Option<Notice>,
    /// A refused correction's text, by line, so nothing typed is lost.
    pub drafts: Vec<(i64, String)>,
    /// A refused Decline's reason, by self-edit.
    pub decline_drafts: Vec<(i64, String)>,
    /// A dry run's report, shown once.
    pub audit_preview: Option<engine::persona::service::AuditReport>,
    /// The bot's own tokens, for its owner or lead only; none for anyone else.
    pub tokens: Option<Vec<engine::persona::bot_tokens::AgentToken>>,
    /// When the page was read, to mark the tokens that have expired.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// A name not on the roster answers 404.
#[server(prefix = "/fn", endpoint = "load_agent_page")]
pub async fn load_agent_page(name: String) -> Result<AgentPageData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::{Caller, PersonaError};
    let me = signed_in().await?;
    let bots = bots()?;
    let page = match bots.pages.agent_page(&Caller::Person(me.clone()), &name).await {
        Ok(p) => p,
        Err(e) => {
            if matches!(e, PersonaError::NotOnRoster(_)) {
                not_found();
            }
            return Err(ServerFnError::new(refusal(&e)));
        }
    };
    let notice = take_flash(&notice_key(&org_agent(&name))).await?;
    let mut drafts = Vec::new();
    for row in &page.active {
        if let Some(text) = take_flash::<String>(&memory_draft_key(row.id)).await? {
            drafts.push((row.id, text));
        }
    }
    let mut decline_drafts = Vec::new();
    for e in page.self_edits.iter().filter(|e| e.state == engine::persona::self_edit_store::EditState::Waiting) {
        if let Some(text) = take_flash::<String>(&super::decide_self_edit::decline_draft_key(e.id)).await? {
            decline_drafts.push((e.id, text));
        }
    }
    let audit_preview = take_flash(&super::run_memory_audit::audit_preview_key(&name)).await?;
    let tokens = match bots.tokens.agent_tokens(&Caller::Person(me), &name).await {
        Ok(tokens) => Some(tokens),
        Err(PersonaError::NotAllowed(_)) => None,
        Err(e) => return Err(ServerFnError::new(refusal(&e))),
    };
    let now = bots.clock().now();
    Ok(AgentPageData { page, notice, drafts, decline_drafts, audit_preview, tokens, now })
}
