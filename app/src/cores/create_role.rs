use leptos::prelude::*;

/// New role.
#[server(prefix = "/fn", endpoint = "create_role")]
pub async fn create_role(name: String) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::ROLES;
    use crate::ssr::*;
    let me = signed_in().await?;
    let notice = match org()?.create_role(&me, &name).await {
        Ok(role) => Notice::ok(format!("Added the role {} ({})", role.name, role.slug)),
        Err(e) => Notice::refused(org_refusal(&e)),
    };
    set_flash(&notice_key(ROLES), &notice).await?;
    go_to(ROLES);
    Ok(())
}
