use leptos::prelude::*;

/// The editor's Reload: opens the newest version and keeps the person's own text below it.
#[server(prefix = "/fn", endpoint = "reload_core")]
pub async fn reload_core(scope: String, based_on: u32, text: String, note: String) -> Result<(), ServerFnError> {
    use crate::flash::{draft_key, Draft};
    use crate::paths::core_editor;
    use crate::ssr::*;
    use engine::cores::CoreScope;
    signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(refused)?;
    let draft = Draft { text, note, based_on, message: String::new(), changed: false, reloaded: true, drafted: false };
    set_flash(&draft_key(&scope.key()), &draft).await?;
    go_to(&core_editor(&scope));
    Ok(())
}
