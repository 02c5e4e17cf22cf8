use leptos::prelude::*;

/// Reads the card again from its source, as the person and with the key it was kept with.
#[server(prefix = "/fn", endpoint = "refresh_card")]
pub async fn refresh_card(id: i64, record: String) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::MY_MEMORY;
    use crate::ssr::*;
    use engine::cards::service::RefreshOutcome;
    let me = signed_in().await?;
    let notice = match memory()?.reads.refresh(&me, id).await {
        Ok(o @ RefreshOutcome::NotChecked(_)) => Notice::refused(format!("{record}: {}", o.sentence())),
        Ok(o) => Notice::ok(format!("{record}: {}", o.sentence())),
        Err(e) => Notice::refused(refusal(&e)),
    };
    notice_back(MY_MEMORY, notice).await
}
