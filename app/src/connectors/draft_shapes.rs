use leptos::prelude::*;

/// Calls each ticked read tool once and drafts what it returns; within 10 minutes the same tools
/// answer the drafts already made, without a call.
#[server(prefix = "/fn", endpoint = "draft_shapes")]
pub async fn draft_shapes(id: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let back = connector(id);
    let notice = match memory()?.connectors.draft_shapes(&me, id).await {
        Ok((d, true)) => {
            Notice::ok(format!("{} drafts, made in the last 10 minutes; no tool was called again", d.len()))
        }
        Ok((d, false)) => {
            Notice::ok(format!("Drafted {} shapes from one sample each; confirm or edit each below", d.len()))
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
