use leptos::prelude::*;

/// A follow-up question at the bottom of a thread. A refusal comes back to the thread with the
/// question kept.
#[server(prefix = "/fn", endpoint = "ask_in_thread")]
pub async fn ask_in_thread(thread: i64, question: String) -> Result<(), ServerFnError> {
    use crate::flash::{question_draft_key, QuestionDraft};
    use crate::ssr::*;
    use engine::runs::{service::Asker, ThreadId};
    let me = signed_in().await?;
    let runs = runs()?;
    let page = crate::paths::thread(ThreadId(thread));
    match runs.ask_in_thread(&Asker { person: me, unwatched: false }, ThreadId(thread), &question).await {
        Ok(started) => {
            runs.launch(started.run);
            go_to(&crate::paths::thread(started.thread));
        }
        Err(e) => {
            let draft = QuestionDraft { agent: String::new(), question, message: refusal(&e) };
            set_flash(&question_draft_key(&page), &draft).await?;
            go_to(&page);
        }
    }
    Ok(())
}
