use leptos::prelude::*;

/// Restore: an earlier text comes back as a new version.
#[server(prefix = "/fn", endpoint = "restore_core")]
pub async fn restore_core(scope: String, from: u32, based_on: u32) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::{core_home, core_version};
    use crate::ssr::*;
    use engine::cores::CoreScope;
    let me = signed_in().await?;
    let scope = CoreScope::parse(&scope).map_err(|e| ServerFnError::new(refusal(&e)))?;
    match cores()?.restore_core(&me, &scope, from, based_on).await {
        Ok(saved) => {
            let text = format!("Restored version {from} as version {}", saved.version);
            set_flash(&notice_key(&core_home(&scope)), &Notice::ok(text)).await?;
            go_to(&core_home(&scope));
        }
        Err(e) => {
            set_flash(&notice_key(&core_version(&scope, from)), &Notice::refused(refusal(&e))).await?;
            go_to(&core_version(&scope, from));
        }
    }
    Ok(())
}
