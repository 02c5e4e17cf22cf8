use leptos::prelude::*;

/// Marks or unmarks the connector's toolset as who's who: its reference lists join the people's
/// slices. Only an admin, in a session.
#[server(prefix = "/fn", endpoint = "set_whos_who")]
pub async fn set_whos_who(id: i64, on: bool) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match lists()?.set_whos_who(&me, id, on).await {
        Ok(()) if on => Notice::ok("Marked as who's who: its reference lists are fetched daily".to_string()),
        Ok(()) => Notice::ok("No longer who's who: its reference lists join no one's slice".to_string()),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&connector(id), notice).await
}
