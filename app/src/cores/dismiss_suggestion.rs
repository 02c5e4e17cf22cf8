use leptos::prelude::*;

/// Dismiss changes nothing but the suggestion's state.
#[server(prefix = "/fn", endpoint = "dismiss_suggestion")]
pub async fn dismiss_suggestion(id: i64, scope: String) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::core_home;
    use crate::ssr::*;
    use engine::cores::CoreScope;
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    let notice = match cores()?.dismiss_suggestion(&me, id).await {
        Ok(()) => Notice::ok("Dismissed the suggestion; the core is unchanged"),
        Err(e) => Notice::refused(refusal(&e)),
    };
    set_flash(&notice_key(&core_home(&scope)), &notice).await?;
    go_to(&core_home(&scope));
    Ok(())
}
