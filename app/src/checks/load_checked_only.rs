use crate::flash::Notice;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedOnlyData {
    pub on: bool,
    pub notice: Option<Notice>,
}

/// Whether a role ("role:<slug>") or a team ("team:<id>") shows only checked answers; admins only.
#[server(prefix = "/fn", endpoint = "load_checked_only")]
pub async fn load_checked_only(scope: String) -> Result<CheckedOnlyData, ServerFnError> {
    use crate::ssr::*;
    let me = signed_in().await?;
    let on = runs()?.is_checked_only(&me, &scope).await.map_err(refused)?;
    let notice = take_flash(&super::checked_only_notice_key(&scope)).await?;
    Ok(CheckedOnlyData { on, notice })
}
