use leptos::prelude::*;

/// Ticks or unticks one read tool. Unticking may remove cards no tool reads any more.
#[server(prefix = "/fn", endpoint = "tick_tool")]
pub async fn tick_tool(id: i64, tool: String, on: bool) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let memory = memory()?;
    let back = connector(id);
    let notice = match memory.sheet(&me, id).await {
        Ok(sheet) => {
            let mut c = sheet.connector;
            let listed = sheet.read_tools.unwrap_or_default();
            if on && !listed.iter().any(|t| t.name == tool) {
                Notice::refused(format!("{tool} is not a read tool the source lists"))
            } else {
                c.ticked.retain(|t| *t != tool);
                if on {
                    c.ticked.push(tool.clone());
                }
                match memory.save_settings(&me, &c).await {
                    Ok(line) => Notice::ok(line),
                    Err(e) => Notice::refused(memory_refusal(&e)),
                }
            }
        }
        Err(e) => Notice::refused(memory_refusal(&e)),
    };
    set_flash(&notice_key(&back), &notice).await?;
    go_to(&back);
    Ok(())
}
