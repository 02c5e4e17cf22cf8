use leptos::prelude::*;

/// Memory's daily budget, in cents. A refused one keeps what was typed.
#[server(prefix = "/fn", endpoint = "set_memory_budget")]
pub async fn set_memory_budget(cents: String) -> Result<(), ServerFnError> {
    use super::load_memory_settings::BUDGET_DRAFT;
    use crate::flash::{draft_key, Notice};
    use crate::paths::MEMORY_SETTINGS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match nightly()?.settings.set_budget(&me, &cents).await {
        Ok(line) => Notice::ok(line),
        Err(e) => {
            set_flash(&draft_key(BUDGET_DRAFT), &cents).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MEMORY_SETTINGS, notice).await
}
