// The sheet posts its settings as one plain form, so the function takes each field.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;

/// The sheet's settings; moving the key mode or turning Keep cards off removes cards at once.
#[server(prefix = "/fn", endpoint = "save_connector")]
pub async fn save_connector(
    id: i64,
    key_mode: String,
    label: String,
    keep_cards: Option<String>,
    killed: Option<String>,
    reference_soft: u32,
    reference_hard: u32,
    state_soft: u32,
    state_hard: u32,
    moving_soft: u32,
    moving_hard: u32,
    free_text_soft: u32,
    free_text_hard: u32,
    hourly_limit: u32,
) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::connector;
    use crate::ssr::*;
    use engine::cards::service::SettingsForm;
    use engine::cards::source::{FactLimits, Freshness};
    let me = signed_in().await?;
    let back = connector(id);
    let form = SettingsForm {
        key_mode,
        label,
        keep_cards: keep_cards.is_some(),
        killed: killed.is_some(),
        facts: FactLimits {
            reference: Freshness { soft_mins: reference_soft, hard_mins: reference_hard },
            state: Freshness { soft_mins: state_soft, hard_mins: state_hard },
            moving: Freshness { soft_mins: moving_soft, hard_mins: moving_hard },
        },
        free_text: Freshness { soft_mins: free_text_soft, hard_mins: free_text_hard },
        hourly_limit,
    };
    let notice = match memory()?.connectors.save_settings_form(&me, id, &form).await {
        Ok(line) => Notice::ok(line),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(&back, notice).await
}
