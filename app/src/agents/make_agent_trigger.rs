use leptos::prelude::*;

/// The flash the secret of a trigger just made waits under, for the page to show once.
pub fn trigger_secret_key(agent: i64) -> String {
    format!("trigger-secret:{agent}")
}

/// Makes a company agent's trigger, or rotates its secret (the old one stops at once), by its
/// owner or an admin. The secret goes to the page once; only its hash is kept.
#[server(prefix = "/fn", endpoint = "make_agent_trigger")]
pub async fn make_agent_trigger(agent: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::company_agent;
    use crate::ssr::*;
    use engine::org::AgentId;
    let me = signed_in().await?;
    let s = schedules()?;
    let had = match s.view(&me, AgentId(agent)).await {
        Ok(v) => v.automation.trigger.is_some(),
        Err(e) => return notice_back(&company_agent(agent), Notice::refused(refusal(&e))).await,
    };
    let notice = match s.make_trigger(&me, AgentId(agent)).await {
        Ok((_, secret)) => {
            set_flash(&trigger_secret_key(agent), &secret).await?;
            Notice::ok(if had {
                "Rotated the trigger's secret; the old one no longer works"
            } else {
                "Made the trigger"
            })
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&company_agent(agent), notice).await
}
