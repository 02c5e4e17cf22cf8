use super::SetupDraft;
use leptos::prelude::*;

/// What a refused setup left for the form, once.
#[server(prefix = "/fn", endpoint = "load_setup")]
pub async fn load_setup() -> Result<Option<SetupDraft>, ServerFnError> {
    crate::ssr::take_flash(super::SETUP_DRAFT_KEY).await
}
