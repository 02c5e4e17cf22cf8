use leptos::prelude::*;

/// Profile → Password: a person changes their own password after giving the current one. Their
/// other sessions end; this one is kept by taking the new generation.
#[server(prefix = "/fn", endpoint = "change_password")]
pub async fn change_password(current: String, password: String, repeat: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::PASSWORD;
    use crate::ssr::*;
    let me = signed_in().await?;
    if password != repeat {
        return notice_back(PASSWORD, Notice::refused("The two new passwords differ; type the same one twice")).await;
    }
    let notice = match org()?.people.change_password(&me, &current, &password).await {
        Ok(generation) => {
            session().await?.insert(GENERATION_KEY, generation).await.map_err(internal)?;
            Notice::ok("Changed your password. Your other sessions have ended; this one stays signed in.")
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(PASSWORD, notice).await
}
