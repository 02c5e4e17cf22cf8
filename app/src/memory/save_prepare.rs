use leptos::prelude::*;

/// Off by default; off means no call is made for this person.
#[server(prefix = "/fn", endpoint = "save_prepare")]
pub async fn save_prepare(enabled: Option<String>, at_time: String, zone: String) -> Result<(), ServerFnError> {
    use super::load_my_memory::{PrepareDraft, PREPARE_DRAFT};
    use crate::flash::{draft_key, Notice};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let memory = memory()?;
    let notice = match memory.prepare.save_prepare(&me, enabled.is_some(), &at_time, &zone).await {
        Ok(()) => match memory.prepare.prepare_status(&me).await {
            Ok((_, line)) => Notice::ok(format!("Prepare my day saved. {line}")),
            Err(e) => Notice::refused(refusal(&e)),
        },
        Err(e) => {
            // A refused save keeps what was typed, for the form to show again.
            let draft = PrepareDraft { enabled: enabled.is_some(), at_time, zone };
            set_flash(&draft_key(PREPARE_DRAFT), &draft).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MY_MEMORY, notice).await
}
