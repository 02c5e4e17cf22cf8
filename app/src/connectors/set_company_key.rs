use leptos::prelude::*;

/// Replaces an existing connector's company key, as after an import or a rotation at the source.
/// The key is checked against the source first, stored, and never shown again.
#[server(prefix = "/fn", endpoint = "set_company_key")]
pub async fn set_company_key(id: i64, company_key: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let back = connector(id);
    let notice = match memory()?.connectors.set_company_key(&me, id, &company_key).await {
        Ok(()) => Notice::ok("Replaced the company key; it is stored and never shown again"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
