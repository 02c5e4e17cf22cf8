use leptos::prelude::*;

/// Ticks or unticks one tool, a read tool or a tool that acts. Unticking a read tool may remove
/// cards no tool reads any more.
#[server(prefix = "/fn", endpoint = "tick_tool")]
pub async fn tick_tool(id: i64, tool: String, on: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let back = connector(id);
    let notice = match memory()?.connectors.tick_tool(&me, id, &tool, on).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
