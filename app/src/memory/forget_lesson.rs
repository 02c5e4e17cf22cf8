use leptos::prelude::*;

/// Forget: the lesson goes, with the versions it replaced.
#[server(prefix = "/fn", endpoint = "forget_lesson")]
pub async fn forget_lesson(id: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match lessons()?.forget(&me, id).await {
        Ok(_) => Notice::ok("Forgotten, with the versions it replaced."),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
