use crate::flash::Notice;
use engine::cards::service::CardView;
use engine::cards::store::PrepareSetting;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MyMemoryData {
    pub cards: Vec<CardView>,
    pub prepare: PrepareSetting,
    pub prepare_line: String,
    pub notice: Option<Notice>,
    /// The card Forget asks about, when it is asking.
    pub confirm: Option<CardView>,
    /// Connectors that read with people's own keys: (id, name, whether this person gave theirs).
    pub own_keys: Vec<(i64, String, bool)>,
    /// The person's own zone; none means the company's.
    pub own_zone: Option<String>,
}

/// Only the person, signed in as themselves, reads their cards.
#[server(prefix = "/fn", endpoint = "load_my_memory")]
pub async fn load_my_memory(forget: Option<i64>) -> Result<MyMemoryData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    let (_, me) = signed_in().await?;
    let memory = memory()?;
    let cards = memory.my_cards(&me).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))?;
    let (prepare, prepare_line) =
        memory.prepare_status(&me).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))?;
    let notice = take_flash(&notice_key(MY_MEMORY)).await?;
    let confirm = forget.and_then(|id| cards.iter().find(|c| c.card == id).cloned());
    let own_keys = memory.own_key_connectors(&me).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))?;
    let own_zone = memory.own_zone(&me).await.map_err(|e| ServerFnError::new(memory_refusal(&e)))?;
    Ok(MyMemoryData { cards, prepare, prepare_line, notice, confirm, own_keys, own_zone })
}
