use leptos::prelude::*;

/// The flash key for a refused Decline's reason, shown again in its form.
pub fn decline_draft_key(id: i64) -> String {
    format!("decline-draft:{id}")
}

/// Approves (carries out) or declines a bot's self-edit that waits for its owner or lead.
#[server(prefix = "/fn", endpoint = "decide_self_edit")]
pub async fn decide_self_edit(
    id: i64,
    back: String,
    decision: String,
    reason: Option<String>,
) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::IMPROVE;
    use crate::ssr::*;
    use engine::persona::service::Caller;
    let me = signed_in().await?;
    let back = local_path(&back, IMPROVE);
    let approve = decision == "approve";
    let notice = match bots()?.self_edits.decide_self_edit(&Caller::Person(me), id, approve, reason.as_deref()).await {
        Ok(e) if approve => Notice::ok(format!(
            "Approved self-edit #{id}: {} {} is carried out, and can be undone until {}",
            e.action,
            e.target,
            e.undo_until.map(|u| u.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_default()
        )),
        Ok(_) => Notice::ok(format!("Declined self-edit #{id}; nothing was changed")),
        Err(e) => {
            // A refused Decline keeps the reason typed: in its form while the edit still waits,
            // and in the notice in case it no longer does.
            match reason.as_deref().map(str::trim).filter(|r| !r.is_empty() && !approve) {
                Some(r) => {
                    set_flash(&decline_draft_key(id), &r.to_string()).await?;
                    Notice::refused(format!(
                        "{}. Your reason was: \u{201c}{r}\u{201d}",
                        refusal(&e).trim_end_matches('.')
                    ))
                }
                None => Notice::refused(refusal(&e)),
            }
        }
    };
    notice_back(&back, notice).await
}
