use crate::flash::Notice;
use engine::cards::service::Sheet;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SheetData {
    pub sheet: Sheet,
    pub notice: Option<Notice>,
    /// Whether its toolset is marked who's who.
    pub whos_who: bool,
    /// Every role as (slug, name), for the roles a toolset admits.
    #[serde(default)]
    pub role_slugs: Vec<(String, String)>,
    /// Its notes for agents, or what was typed when a save was refused.
    #[serde(default)]
    pub notes: String,
}

#[server(prefix = "/fn", endpoint = "load_sheet")]
pub async fn load_sheet(id: i64) -> Result<SheetData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let sheet = memory()?.connectors.sheet(&me, id).await.map_err(refused)?;
    let whos_who = lists()?.is_whos_who(id).await.map_err(refused)?;
    let notice = take_flash(&notice_key(&connector(id))).await?;
    let notes = match take_flash(&super::save_connector_notes::notes_draft_key(id)).await? {
        Some(typed) => typed,
        None => drafter()?.connector_notes(&me, id).await.map_err(refused)?,
    };
    let role_slugs = org()?
        .outline()
        .await
        .map_err(refused)?
        .roles
        .into_iter()
        .map(|r| (r.slug.as_str().to_string(), r.name))
        .collect();
    Ok(SheetData { sheet, notice, whos_who, role_slugs, notes })
}
