use leptos::prelude::*;

/// `fields` holds one field a line: `name: structured` or `name: free text`.
#[server(prefix = "/fn", endpoint = "confirm_shape")]
pub async fn confirm_shape(
    id: i64,
    tool: String,
    kind: String,
    id_field: String,
    version_field: String,
    get_tool: String,
    fields: String,
) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    use engine::cards::service::ShapeForm;
    let me = signed_in().await?;
    let back = connector(id);
    let form = ShapeForm { connector: id, tool, kind, id_field, version_field, get_tool, fields };
    let notice = match memory()?.connectors.confirm_shape_form(&me, &form).await {
        Ok(shape) => Notice::ok(format!("Confirmed what {} returns: cards of kind {}", shape.tool, shape.kind)),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
