use leptos::prelude::*;

/// What a form sent without the box ticked is told.
pub const NOT_CONFIRMED: &str =
    "Tick \u{201c}I understand that this cannot be undone\u{201d} to erase it; nothing was changed.";

/// Erases a third party's email address or phone number, once the admin ticked that it cannot be
/// undone. The outcome goes back to the page as a notice; the value is never kept for it, not
/// even after a refusal (a refused form starts empty), since a flash is kept in the session's row.
#[server(prefix = "/fn", endpoint = "erase_third_party")]
pub async fn erase_third_party(value: String, confirm: Option<String>) -> Result<(), ServerFnError> {
    use crate::flash::Notice;
    use crate::paths::ERASURE;
    use crate::ssr::*;
    use engine::erasure::service::ErasureBy;
    let me = signed_in().await?;
    let notice = if confirm.as_deref() != Some("yes") && me.is_admin {
        Notice::refused(NOT_CONFIRMED)
    } else {
        match erasures()?.erase(ErasureBy::Person(&me), &value).await {
            Ok(erased) => Notice::ok(erased.sentence()),
            Err(e) => Notice::refused(refusal(&e)),
        }
    };
    notice_back(ERASURE, notice).await
}
