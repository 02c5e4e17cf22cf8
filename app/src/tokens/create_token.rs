use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "create_token")]
pub async fn create_token(name: String) -> Result<(), ServerFnError> {
    use super::load_tokens::NEW_SECRET_KEY;
    use crate::flash::{notice_key, Notice};
    use crate::paths::TOKENS;
    use crate::ssr::*;
    use engine::auth::AuthError;
    let me = signed_in().await?;
    match auth()?.create_api_token(&me, &name).await {
        Ok((info, secret)) => {
            set_flash(NEW_SECRET_KEY, &secret).await?;
            set_flash(&notice_key(TOKENS), &Notice::ok(format!("Made the token {}", info.name))).await?;
        }
        Err(AuthError::Internal(detail)) => return Err(internal(detail)),
        Err(e) => set_flash(&notice_key(TOKENS), &Notice::refused(e.to_string())).await?,
    }
    go_to(TOKENS);
    Ok(())
}
