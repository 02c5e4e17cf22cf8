use leptos::prelude::*;

/// "Show only checked answers", on a role's or a team's page, for admins. `back` is the page to
/// return to.
#[server(prefix = "/fn", endpoint = "set_checked_only")]
pub async fn set_checked_only(scope: String, on: Option<String>, back: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match runs()?.set_checked_only(&me, &scope, on.is_some()).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    set_flash(&super::checked_only_notice_key(&scope), &notice).await?;
    // Only a page of this site is a place to go back to.
    go_to(if back.starts_with('/') && !back.starts_with("//") { &back } else { "/" });
    Ok(())
}
