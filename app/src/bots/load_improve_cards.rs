use crate::flash::Notice;
use engine::persona::self_edit_store::SelfEdit;
use engine::persona::service::ImproveCard;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImproveData {
    pub cards: Vec<ImproveCard>,
    /// Bots' self-edits waiting for this person's approval.
    pub self_edits: Vec<SelfEdit>,
    pub notice: Option<Notice>,
    /// A refused Decline's reason, by self-edit, so nothing typed is lost.
    pub decline_drafts: Vec<(i64, String)>,
}

#[server(prefix = "/fn", endpoint = "load_improve_cards")]
pub async fn load_improve_cards() -> Result<ImproveData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let me = Caller::Person(me);
    let bots = bots()?;
    let cards = bots.improve.improve_cards(&me).await.map_err(refused)?;
    let self_edits = bots.self_edits.waiting_self_edits(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(IMPROVE)).await?;
    let mut decline_drafts = Vec::new();
    for e in &self_edits {
        if let Some(text) = take_flash::<String>(&super::decide_self_edit::decline_draft_key(e.id)).await? {
            decline_drafts.push((e.id, text));
        }
    }
    Ok(ImproveData { cards, self_edits, notice, decline_drafts })
}
