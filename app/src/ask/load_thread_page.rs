use crate::flash::{Notice, QuestionDraft};
use engine::runs::service::ThreadView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadPageData {
    pub thread: ThreadView,
    pub notice: Option<Notice>,
    /// A refused follow-up question, kept.
    pub draft: Option<QuestionDraft>,
}

#[server(prefix = "/fn", endpoint = "load_thread_page")]
pub async fn load_thread_page(id: i64) -> Result<ThreadPageData, ServerFnError> {
    use crate::flash::{notice_key, question_draft_key};
    use crate::ssr::*;
    use engine::runs::ThreadId;
    let me = signed_in().await?;
    let thread = match runs()?.threads.thread(&me, ThreadId(id)).await {
        Ok(t) => t,
        Err(e) => {
            if matches!(e, engine::runs::RunError::NotFound(_)) {
                not_found();
            }
            return Err(refused(e));
        }
    };
    let page = crate::paths::thread(ThreadId(id));
    let notice = take_flash(&notice_key(&page)).await?;
    let draft = take_flash(&question_draft_key(&page)).await?;
    Ok(ThreadPageData { thread, notice, draft })
}
