use leptos::prelude::*;

/// Company core limit, then Set limit.
#[server(prefix = "/fn", endpoint = "set_core_limit")]
pub async fn set_core_limit(role: String, limit: String) -> Result<(), ServerFnError> {
    use crate::flash::{notice_key, Notice};
    use crate::paths::core_home;
    use crate::ssr::*;
    use engine::cores::{CoreError, CoreScope};
    use engine::org::RoleSlug;
    use engine::tokens::format_count;
    let me = signed_in().await?;
    let slug = RoleSlug::parse(&role).map_err(|e| ServerFnError::new(e.to_string()))?;
    let home = core_home(&CoreScope::Company(slug.clone()));
    let outcome = match limit.trim().parse::<u32>() {
        Ok(n) => cores()?.set_company_core_limit(&me, &slug, n).await.map(|_| n),
        Err(_) => Err(CoreError::Invalid("The limit is a whole number of tokens, such as 3000".to_string())),
    };
    let notice = match outcome {
        Ok(n) => Notice::ok(format!("The company core limit is now {} tokens", format_count(n))),
        Err(e) => Notice::refused(refusal(&e)),
    };
    set_flash(&notice_key(&home), &notice).await?;
    go_to(&home);
    Ok(())
}
