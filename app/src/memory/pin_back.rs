use leptos::prelude::*;

/// Pins a forgotten record back within its 30 days: it is read again as the person and kept pinned.
#[server(prefix = "/fn", endpoint = "pin_back")]
pub async fn pin_back(connector: i64, kind: String, record_id: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.reads.pin_back(&me, connector, &kind, &record_id).await {
        Ok(sentence) => Notice::ok(sentence),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
