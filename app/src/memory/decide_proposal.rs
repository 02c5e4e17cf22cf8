use leptos::prelude::*;

/// Accept or Decline a team or company proposal, from the Review queue.
#[server(prefix = "/fn", endpoint = "decide_proposal")]
pub async fn decide_proposal(id: i64, decision: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let accept = decision == "accept";
    let notice = match lessons()?.decide(&me, id, accept).await {
        Ok(_) if accept => Notice::ok("Accepted. It loads into the runs of everyone it is for."),
        Ok(_) => Notice::ok("Declined. It stays in its author's history."),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
