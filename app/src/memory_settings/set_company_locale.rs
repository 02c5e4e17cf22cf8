use leptos::prelude::*;

/// The locale card values read in for everyone. A refused one keeps what was typed.
#[server(prefix = "/fn", endpoint = "set_company_locale")]
pub async fn set_company_locale(locale: String) -> Result<(), ServerFnError> {
    use super::load_memory_settings::LOCALE_DRAFT;
    use crate::flash::{draft_key, Notice};
    use crate::paths::MEMORY_SETTINGS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match nightly()?.settings.set_locale(&me, &locale).await {
        Ok(line) => Notice::ok(line),
        Err(e) => {
            set_flash(&draft_key(LOCALE_DRAFT), &locale).await?;
            Notice::refused(refusal(&e))
        }
    };
    notice_back(MEMORY_SETTINGS, notice).await
}
