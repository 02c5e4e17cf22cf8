use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "revoke_token")]
pub async fn revoke_token(id: i64) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::TOKENS;
    use crate::ssr::*;
    use engine::auth::AuthError;
    let me = signed_in().await?;
    let notice = match auth()?.revoke_api_token(&me, id).await {
        Ok(()) => Notice::ok("Revoked the token; it no longer works"),
        Err(AuthError::Internal(detail)) => return Err(internal(detail)),
        Err(e) => Notice::refused(e.to_string()),
    };
    set_flash(&notice_key(TOKENS), &notice).await?;
    go_to(TOKENS);
    Ok(())
}
