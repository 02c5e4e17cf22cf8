use crate::flash::QuestionDraft;
use engine::runs::service::{AgentChoice, ThreadSummary};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskData {
    pub agents: Vec<AgentChoice>,
    /// The person's own threads, newest first, as their lines show them.
    pub threads: Vec<ThreadSummary>,
    /// The question of a refused ask, with its refusal.
    pub draft: Option<QuestionDraft>,
}

#[server(prefix = "/fn", endpoint = "load_ask")]
pub async fn load_ask() -> Result<AskData, ServerFnError> {
    use crate::{flash::question_draft_key, paths::ASK, ssr::*};
    let me = signed_in().await?;
    let runs = runs()?;
    let agents = runs.agents_to_ask(&me).await.map_err(refused)?;
    let threads = runs.threads.my_thread_list(&me).await.map_err(refused)?;
    let draft = take_flash(&question_draft_key(ASK)).await?;
    Ok(AskData { agents, threads, draft })
}
