use leptos::prelude::*;

/// The company key is checked against the source, stored, and never shown again.
#[server(prefix = "/fn", endpoint = "create_connector")]
pub async fn create_connector(name: String, base_url: String, company_key: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::{connector, CONNECTORS};
    use crate::ssr::*;
    let me = signed_in().await?;
    match memory()?.connectors.create_connector(&me, &name, &base_url, &company_key).await {
        Ok(c) => {
            notice_back(&connector(c.id), Notice::ok(format!("Added {}; tick its read tools below", c.name))).await
        }
        Err(e) => notice_back(CONNECTORS, Notice::refused(refusal(&e))).await,
    }
}
