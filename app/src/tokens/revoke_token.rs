use leptos::prelude::*;

#[server(prefix = "/fn", endpoint = "revoke_token")]
pub async fn revoke_token(id: i64) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::TOKENS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match auth()?.revoke_api_token(&me, id).await {
        Ok(()) => Notice::ok("Revoked the token; it no longer works"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(TOKENS, notice).await
}
