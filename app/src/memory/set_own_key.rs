use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "set_own_key")]
pub async fn set_own_key(connector: i64, key: String) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.set_own_key(&me, connector, &key).await {
        Ok(()) => Notice::ok("Saved your key; it is not shown again"),
        Err(e) => Notice::refused(memory_refusal(&e)),
    };
    set_flash(&notice_key(MY_MEMORY), &notice).await?;
    go_to(MY_MEMORY);
    Ok(())
}
