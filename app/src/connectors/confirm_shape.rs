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
    use crate::flash::{notice_key, Notice};
    use crate::paths::connector;
    use crate::ssr::*;
    use engine::cards::source::{RecordShape, ShapeField};
    let me = signed_in().await?;
    let back = connector(id);
    let mut parsed = Vec::new();
    let mut bad = None;
    for line in fields.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.split_once(':') {
            Some((n, k)) if !n.trim().is_empty() && matches!(k.trim(), "structured" | "free text") => {
                parsed.push(ShapeField { name: n.trim().to_string(), free_text: k.trim() == "free text" })
            }
            _ => bad = Some(line.to_string()),
        }
    }
    let notice = if let Some(line) = bad {
        Notice::refused(format!("Write each field as \u{201c}name: structured\u{201d} or \u{201c}name: free text\u{201d}; not \u{201c}{line}\u{201d}"))
    } else {
        let shape = RecordShape {
            connector: id,
            tool: tool.clone(),
            kind: kind.trim().to_string(),
            id_field: id_field.trim().to_string(),
            version_field: Some(version_field.trim().to_string()).filter(|v| !v.is_empty()),
            fields: parsed,
            get_tool: get_tool.trim().to_string(),
            confirmed: true,
        };
        match memory()?.confirm_shape(&me, &shape).await {
            Ok(()) => Notice::ok(format!("Confirmed what {tool} returns: cards of kind {}", shape.kind)),
            Err(e) => Notice::refused(memory_refusal(&e)),
        }
    };
    set_flash(&notice_key(&back), &notice).await?;
    go_to(&back);
    Ok(())
}
