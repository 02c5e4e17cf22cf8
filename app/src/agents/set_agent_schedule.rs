use leptos::prelude::*;

/// The flash a refused schedule leaves what was typed under, per agent.
pub fn schedule_draft_key(agent: i64) -> String {
    crate::flash::draft_key(&format!("schedule:{agent}"))
}

/// Sets or replaces a company agent's schedule, by its owner or an admin. A refused one keeps
/// what was typed and says why.
#[server(prefix = "/fn", endpoint = "set_agent_schedule")]
pub async fn set_agent_schedule(
    agent: i64,
    instruction: String,
    kind: String,
    value: String,
) -> Result<(), ServerFnError> {
    use super::load_agent_page::ScheduleDraft;
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    use engine::runs::schedules::due_words;
    let me = signed_in().await?;
    let s = schedules()?;
    let notice = match s.set_schedule(&me, AgentId(agent), &instruction, &kind, &value).await {
        Ok(saved) => {
            let zone = s.zone().await.map_err(refused)?;
            Notice::ok(format!(
                "Saved the schedule: {}. Next due {}",
                saved.when.words(),
                due_words(zone, saved.next_due)
            ))
        }
        Err(e) => {
            set_flash(&schedule_draft_key(agent), &ScheduleDraft { instruction, kind, value }).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&company_agent(agent), notice).await
}
