use leptos::prelude::*;

/// The editor's Save. Refusals keep the person's text in a draft and go back to the editor.
#[server(prefix = "/fn", endpoint = "save_core")]
pub async fn save_core(scope: String, based_on: u32, text: String, note: String) -> Result<(), ServerFnError> {
    use crate::flash::{draft_key, Draft, Notice};
    use crate::paths::{core_editor, core_home};
    use crate::ssr::*;
    use engine::cores::{CoreError, CoreScope};
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(refused)?;
    match cores()?.save_core(&me, &scope, based_on, &text, &note).await {
        Ok(saved) => notice_back(&core_home(&scope), Notice::ok(format!("Saved version {}", saved.version))).await,
        Err(e) => {
            let draft = Draft {
                message: refusal(&e),
                changed: matches!(e, CoreError::Changed { .. }),
                reloaded: false,
                drafted: false,
                text,
                note,
                based_on,
            };
            set_flash(&draft_key(&scope.key()), &draft).await?;
            go_to(&core_editor(&scope));
            Ok(())
        }
    }
}
