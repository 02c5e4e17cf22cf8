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
    structured_soft: u32,
    structured_hard: u32,
    free_text_soft: u32,
    free_text_hard: u32,
    hourly_limit: u32,
) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::connector;
    use crate::ssr::*;
    use engine::cards::access::DataLabel;
    use engine::cards::source::{Freshness, KeyMode};
    let me = signed_in().await?;
    let memory = memory()?;
    let back = connector(id);
    let notice = match (KeyMode::parse(&key_mode), DataLabel::parse(&label)) {
        (Some(mode), Some(label)) => match memory.sheet(&me, id).await {
            Ok(sheet) => {
                let mut c = sheet.connector;
                c.key_mode = mode;
                c.label = label;
                c.keep_cards = keep_cards.is_some();
                c.killed = killed.is_some();
                c.structured = Freshness { soft_mins: structured_soft, hard_mins: structured_hard };
                c.free_text = Freshness { soft_mins: free_text_soft, hard_mins: free_text_hard };
                c.hourly_limit = hourly_limit;
                match memory.save_settings(&me, &c).await {
                    Ok(line) => Notice::ok(line),
                    Err(e) => Notice::refused(memory_refusal(&e)),
                }
            }
            Err(e) => Notice::refused(memory_refusal(&e)),
        },
        _ => Notice::refused("Choose a key mode and a data label from the lists"),
    };
    set_flash(&notice_key(&back), &notice).await?;
    go_to(&back);
    Ok(())
}
