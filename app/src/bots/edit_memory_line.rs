use leptos::prelude::*;

/// Closes the line and inserts the correction that supersedes it. A refusal keeps the text.
#[server(prefix = "/fn", endpoint = "edit_memory_line")]
pub async fn edit_memory_line(id: i64, agent: String, text: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::org_agent;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = org_agent(&agent);
    let notice = match bots()?.pages.edit_memory(&Caller::Person(me), id, &text).await {
        Ok(new) => Notice::ok(format!("Corrected line #{id}; #{} supersedes it and core.md is re-rendered", new.id)),
        Err(e) => {
            set_flash(&memory_draft_key(id), &text).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&back, notice).await
}
