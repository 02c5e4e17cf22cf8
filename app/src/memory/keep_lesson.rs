use leptos::prelude::*;

/// Keeps a lesson in the person's own words: for their own asks, or proposed for their team or the
/// company. A refused one keeps what was typed.
#[server(prefix = "/fn", endpoint = "keep_lesson")]
pub async fn keep_lesson(text: String, scope: Option<String>) -> Result<(), ServerFnError> {
    use super::load_my_memory::{LessonDraft, LESSON_DRAFT};
    use crate::flash::{draft_key, Notice};
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let scope = scope.unwrap_or_else(|| "private".to_string());
    let notice = match lessons()?.keep(&me, &scope, &text).await {
        Ok(l) if l.state == engine::lessons::LessonState::Waiting => {
            Notice::ok("Proposed. It waits for review under No longer current until a reviewer accepts it")
        }
        Ok(_) => Notice::ok("Kept. Your own asks read it as data when a question shares a word with it"),
        Err(e) => {
            set_flash(&draft_key(LESSON_DRAFT), &LessonDraft { text, scope }).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MY_MEMORY, notice).await
}
