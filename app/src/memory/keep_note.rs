use leptos::prelude::*;

/// Keeps a private note for the person's own asks. A refused note keeps what was typed.
#[server(prefix = "/fn", endpoint = "keep_note")]
pub async fn keep_note(text: String) -> Result<(), ServerFnError> {
    use super::load_my_memory::NOTE_DRAFT;
    use crate::flash::{draft_key, Notice};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match runs()?.keep_note(&me, "private", &text).await {
        Ok(_) => {
            Notice::ok("Note kept. Your own asks read it as data when a question shares a word with it".to_string())
        }
        Err(e) => {
            set_flash(&draft_key(NOTE_DRAFT), &text).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MY_MEMORY, notice).await
}
