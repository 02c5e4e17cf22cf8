use crate::flash::Notice;
use engine::learning::nightly::settings::MemorySettingsView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemorySettingsData {
    pub settings: MemorySettingsView,
    pub notice: Option<Notice>,
    /// What a refused save was given, to show again.
    pub draft: Option<String>,
    /// What a refused locale was given, to show again.
    pub locale_draft: Option<String>,
}

/// The flash key for a refused budget.
pub const BUDGET_DRAFT: &str = "memory-budget";
/// The flash key for a refused locale.
pub const LOCALE_DRAFT: &str = "company-locale";

#[server(prefix = "/fn", endpoint = "load_memory_settings")]
pub async fn load_memory_settings() -> Result<MemorySettingsData, ServerFnError> {
    use crate::flash::{draft_key, notice_key};
    use crate::paths::MEMORY_SETTINGS;
    use crate::ssr::*;
    let me = signed_in().await?;
    let settings = nightly()?.settings.settings(&me).await.map_err(refused)?;
    let notice = take_flash(&notice_key(MEMORY_SETTINGS)).await?;
    let draft = take_flash(&draft_key(BUDGET_DRAFT)).await?;
    let locale_draft = take_flash(&draft_key(LOCALE_DRAFT)).await?;
    Ok(MemorySettingsData { settings, notice, draft, locale_draft })
}
