use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "create_token")]
pub async fn create_token(name: String) -> Result<(), ServerFnError> {
    use super::load_tokens::NEW_SECRET_KEY;
    use crate::flash::Notice;
    use crate::paths::TOKENS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match auth()?.create_api_token(&me, &name).await {
        Ok((info, secret)) => {
            set_flash(NEW_SECRET_KEY, &secret).await?;
            Notice::ok(format!("Made the token {}", info.name))
        }
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(TOKENS, notice).await
}
