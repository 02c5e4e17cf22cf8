use leptos::prelude::*;

/// Sets what a tool that acts changes (a kind of record and the argument holding its id), so the
/// change reads the record first; an empty kind clears it.
#[server(prefix = "/fn", endpoint = "set_write_target")]
pub async fn set_write_target(id: i64, tool: String, kind: String, id_argument: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let target = (!kind.trim().is_empty()).then_some((kind.as_str(), id_argument.as_str()));
    let notice = match memory()?.connectors.set_write_target(&me, id, &tool, target).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&connector(id), notice).await
}
