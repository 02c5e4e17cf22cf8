use leptos::prelude::*;

/// Approves a ticked tool's changed listing, as the connector's page showed it (`seen` names
/// that listing): runs are given the new copy from then on.
#[server(prefix = "/fn", endpoint = "reapprove_tool")]
pub async fn reapprove_tool(id: i64, tool: String, seen: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.connectors.reapprove_tool(&me, id, &tool, seen).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&connector(id), notice).await
}
