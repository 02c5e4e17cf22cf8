use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "add_my_work_query")]
pub async fn add_my_work_query(
    id: i64,
    role: i64,
    tool: String,
    arguments: String,
    label: String,
) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let back = connector(id);
    let notice =
        match memory()?.connectors.add_query(&me, engine::org::RoleId(role), id, &tool, &arguments, &label).await {
            Ok(q) => Notice::ok(format!("Added \u{201c}{}\u{201d}", q.label)),
            Err(e) => Notice::refused(refusal(&e)),
        };
    notice_back(&back, notice).await
}
