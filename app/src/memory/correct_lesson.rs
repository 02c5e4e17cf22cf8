use leptos::prelude::*;

/// Correct: the person's words supersede one of their lessons. A refused correction keeps what
/// was typed, under the lesson it was for.
#[server(prefix = "/fn", endpoint = "correct_lesson")]
pub async fn correct_lesson(id: i64, text: String) -> Result<(), ServerFnError> {
    use super::load_my_memory::{CorrectDraft, CORRECT_DRAFT};
    use crate::flash::{draft_key, Notice};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    use engine::lessons::service::CORRECTED;
    let me = signed_in().await?;
    let notice = match lessons()?.correct(&me, id, &text).await {
        Ok(_) => Notice::ok(CORRECTED),
        Err(e) => {
            set_flash(&draft_key(CORRECT_DRAFT), &CorrectDraft { id, text }).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MY_MEMORY, notice).await
}
