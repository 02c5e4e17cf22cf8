use leptos::prelude::*;

/// The roles a toolset admits, ticked on its connector's page; none ticked admits everyone. The
/// boxes post as `roles[]`.
#[server(prefix = "/fn", endpoint = "set_admits_roles")]
pub async fn set_admits_roles(id: i64, roles: Option<Vec<String>>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match memory()?.connectors.set_admits_roles(&me, id, &roles.unwrap_or_default()).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&connector(id), notice).await
}
