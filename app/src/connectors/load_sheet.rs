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
}

#[server(prefix = "/fn", endpoint = "load_sheet")]
pub async fn load_sheet(id: i64) -> Result<SheetData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::connector;
    use crate::ssr::*;
    let me = signed_in().await?;
    let sheet = memory()?.sheet(&me, id).await.map_err(refused)?;
    let whos_who = lists()?.is_whos_who(id).await.map_err(refused)?;
    let notice = take_flash(&notice_key(&connector(id))).await?;
    Ok(SheetData { sheet, notice, whos_who })
}
