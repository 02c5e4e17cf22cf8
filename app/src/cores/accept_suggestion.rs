use leptos::prelude::*;

/// Accept saves the suggested line as a new version, or is refused and leaves it open.
#[server(prefix = "/fn", endpoint = "accept_suggestion")]
pub async fn accept_suggestion(id: i64, scope: String) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::core_home;
    use crate::ssr::*;
    use engine::cores::CoreScope;
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    let notice = match cores()?.accept_suggestion(&me, id).await {
        Ok(saved) => Notice::ok(format!("Accepted the suggestion: saved version {}", saved.version)),
        Err(e) => Notice::refused(refusal(&e)),
    };
    set_flash(&notice_key(&core_home(&scope)), &notice).await?;
    go_to(&core_home(&scope));
    Ok(())
}
