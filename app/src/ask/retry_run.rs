use leptos::prelude::*;

/// Try again on a failed run: a new run on the same message, back to its thread.
#[server(prefix = "/fn", endpoint = "retry_run")]
pub async fn retry_run(thread: i64, run: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::ssr::*;
    use engine::runs::{service::Asker, RunId, ThreadId};
    let me = signed_in().await?;
    let runs = runs()?;
    match runs.retry(&Asker { person: me, unwatched: false }, RunId(run)).await {
        Ok(started) => {
            runs.launch(started.run);
            go_to(&crate::paths::thread(started.thread));
            Ok(())
        }
        Err(e) => notice_back(&crate::paths::thread(ThreadId(thread)), Notice::refused(refusal(&e))).await,
    }
}
