use leptos::prelude::*;

/// Reached only from the page's confirmation; removes the card and keeps it out for 30 days.
#[server(prefix = "/fn", endpoint = "forget_card")]
pub async fn forget_card(id: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.reads.forget(&me, id).await {
        Ok(()) => Notice::ok("Forgotten. It is not kept for you again for 30 days, unless you pin it."),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
