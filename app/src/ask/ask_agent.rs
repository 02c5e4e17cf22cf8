use leptos::prelude::*;

/// The Ask page's Ask: records the question, sets the run going and opens its thread. A refusal
/// goes back to the Ask page with the question kept.
#[server(prefix = "/fn", endpoint = "ask")]
pub async fn ask_agent(agent: String, question: String) -> Result<(), ServerFnError> {
    use crate::flash::{question_draft_key, QuestionDraft};
    use crate::paths::{thread, ASK};
    use crate::ssr::*;
    use engine::org::AgentId;
    use engine::runs::service::Asker;
    let me = signed_in().await?;
    let runs = runs()?;
    let asked = match agent.trim().parse::<i64>() {
        Ok(id) => {
            runs.ask(&Asker { person: me, unwatched: false }, AgentId(id), &question).await.map_err(|e| refusal(&e))
        }
        Err(_) => Err("Choose an agent to ask".to_string()),
    };
    match asked {
        Ok(started) => {
            runs.launch(started.run);
            go_to(&thread(started.thread));
        }
        Err(message) => {
            set_flash(&question_draft_key(ASK), &QuestionDraft { agent, question, message }).await?;
            go_to(ASK);
        }
    }
    Ok(())
}
