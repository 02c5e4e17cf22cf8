use leptos::prelude::*;

/// Approve (which carries the action out now) or decline one action of the person's own Inbox,
/// then back to the Inbox with what became of it.
#[server(prefix = "/fn", endpoint = "decide_action")]
pub async fn decide_action(id: i64, approve: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::runs::inbox::ActionState;
    let me = signed_in().await?;
    let runs = runs()?;
    let decided = if approve { runs.inbox.approve(&me, id).await } else { runs.inbox.decline(&me, id).await };
    let notice = match decided {
        Ok(a) => match a.state {
            ActionState::Done => Notice::ok(a.outcome.unwrap_or_else(|| format!("Done: {}", a.line))),
            ActionState::Declined => Notice::ok(format!("Declined: {}", a.line)),
            _ => Notice::refused(a.outcome.unwrap_or_else(|| format!("Not done: {}", a.line))),
        },
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(crate::paths::INBOX, notice).await
}
