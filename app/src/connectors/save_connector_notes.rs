use leptos::prelude::*;

/// The flash refused notes leave their text under, per connector.
pub fn notes_draft_key(connector: i64) -> String {
    crate::flash::draft_key(&format!("connector-notes:{connector}"))
}

/// A connector's Notes for agents, saved by an admin. Refused notes keep what was typed.
#[server(prefix = "/fn", endpoint = "save_connector_notes")]
pub async fn save_connector_notes(connector: i64, text: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match drafter()?.save_connector_notes(&me, connector, &text).await {
        Ok(()) => Notice::ok("Saved the notes for agents. Draft from what exists reads them"),
        Err(e) => {
            set_flash(&notes_draft_key(connector), &text).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(&crate::paths::connector(connector), notice).await
}
