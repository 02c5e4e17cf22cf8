use leptos::prelude::*;

/// The invite page's form: the person sets their password, the link is used up, and they are
/// signed in and taken to Profile → Memory.
#[server(prefix = "/fn", endpoint = "accept_invite")]
pub async fn accept_invite(secret: String, password: String, repeat: String) -> Result<(), ServerFnError> {
    use super::load_invite::invite_page_path;
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let back = invite_page_path(&secret);
    if password != repeat {
        return notice_back(&back, Notice::refused("The two passwords differ; type the same one twice")).await;
    }
    let person = match org()?.people.accept_invite(&secret, &password).await {
        Ok(p) => p,
        Err(e) => return notice_back(&back, Notice::refused(refusal(&e))).await,
    };
    tracing::info!(person = %person.id, "set a password through an invite link");
    begin_session(&session().await?, &*auth()?, &person).await.map_err(internal)?;
    go_to(MY_MEMORY);
    Ok(())
}
