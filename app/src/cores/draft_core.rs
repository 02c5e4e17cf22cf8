use leptos::prelude::*;

/// Draft from what exists, on a role's page: the draft opens in the editor, unsaved. A refusal
/// (not allowed, nothing to draft from) goes back to the role's page with the reason.
#[server(prefix = "/fn", endpoint = "draft_core")]
pub async fn draft_core(role: String) -> Result<(), ServerFnError> {
    use crate::flash::{draft_key, Draft, Notice};
    use crate::paths::{core_editor, core_home};
    use crate::ssr::*;
    use engine::cores::CoreScope;
    use engine::org::RoleSlug;
    let me = signed_in().await?;
    let slug = RoleSlug::parse(&role).map_err(|e| ServerFnError::new(e.to_string()))?;
    let scope = CoreScope::Company(slug.clone());
    match drafter()?.draft(&me, &slug).await {
        Ok(d) => {
            let draft = Draft {
                message: d.line(),
                text: d.text,
                note: "Drafted from what exists".into(),
                based_on: d.based_on,
                changed: false,
                reloaded: false,
                drafted: true,
            };
            set_flash(&draft_key(&scope.key()), &draft).await?;
            go_to(&core_editor(&scope));
            Ok(())
        }
        Err(e) => notice_back(&core_home(&scope), Notice::refused(refusal(&e))).await,
    }
}
