use crate::flash::Notice;
use engine::runs::service::InboxView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxData {
    pub actions: Vec<InboxView>,
    pub notice: Option<Notice>,
}

/// The signed-in person's own Inbox, newest first.
#[server(prefix = "/fn", endpoint = "load_inbox")]
pub async fn load_inbox() -> Result<InboxData, ServerFnError> {
    use crate::flash::notice_key;
    use crate::ssr::*;
    let me = signed_in().await?;
    let actions = runs()?.inbox.inbox(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(crate::paths::INBOX)).await?;
    Ok(InboxData { actions, notice })
}
