use leptos::prelude::*;

/// The ticked tools that read with people's own keys, whatever the connector's mode. The boxes
/// post as `tools[]`.
#[server(prefix = "/fn", endpoint = "set_own_key_tools")]
pub async fn set_own_key_tools(id: i64, tools: Option<Vec<String>>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.connectors.set_own_key_tools(&me, id, &tools.unwrap_or_default()).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&connector(id), notice).await
}
