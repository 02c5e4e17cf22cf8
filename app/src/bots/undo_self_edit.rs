use leptos::prelude::*;

/// Takes a bot's applied self-edit back within its grace period, or says why not.
#[server(prefix = "/fn", endpoint = "undo_self_edit")]
pub async fn undo_self_edit(id: i64, back: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = local_path(&back, IMPROVE);
    let notice = match bots()?.self_edits.undo_self_edit(&Caller::Person(me), id).await {
        Ok(e) => Notice::ok(format!("Undid self-edit #{id}: {} {} is taken back", e.action, e.target)),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
