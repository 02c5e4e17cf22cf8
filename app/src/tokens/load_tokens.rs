use crate::flash::Notice;
use engine::store::ApiTokenInfo;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokensData {
    pub tokens: Vec<ApiTokenInfo>,
    pub notice: Option<Notice>,
    /// A token just made, shown this once.
    pub new_secret: Option<String>,
}

pub const NEW_SECRET_KEY: &str = "new_api_token";

#[server(prefix = "/fn", endpoint = "load_tokens")]
pub async fn load_tokens() -> Result<TokensData, ServerFnError> {
    use crate::{flash::notice_key, paths::TOKENS, ssr::*};
    let me = signed_in().await?;
    let tokens = auth()?.api_tokens(&me).await.map_err(internal)?;
    let notice = take_flash(&notice_key(TOKENS)).await?;
    let new_secret = take_flash(NEW_SECRET_KEY).await?;
    Ok(TokensData { tokens, notice, new_secret })
}
