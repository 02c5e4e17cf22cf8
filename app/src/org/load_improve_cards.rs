use crate::flash::Notice;
use engine::persona::service::ImproveCard;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImproveData {
    pub cards: Vec<ImproveCard>,
    pub notice: Option<Notice>,
}

#[server(prefix = "/fn", endpoint = "load_improve_cards")]
pub async fn load_improve_cards() -> Result<ImproveData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let cards =
        bots()?.improve_cards(&Caller::Person(me)).await.map_err(|e| ServerFnError::new(persona_refusal(&e)))?;
    let notice = take_flash(&notice_key(IMPROVE)).await?;
    Ok(ImproveData { cards, notice })
}
