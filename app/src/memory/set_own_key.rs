use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "set_own_key")]
pub async fn set_own_key(connector: i64, key: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.connectors.set_own_key(&me, connector, &key).await {
        Ok(()) => Notice::ok("Saved your key; it is not shown again"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
