use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "pin_card")]
pub async fn pin_card(id: i64, pinned: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.reads.pin(&me, id, pinned).await {
        Ok(()) if pinned => Notice::ok("Pinned: it stays in your memory above what use alone keeps"),
        Ok(()) => Notice::ok("Unpinned: use alone decides whether it stays"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
