use super::core_panel::CorePanel;
use crate::checks::checked_only_toggle::CheckedOnlyToggle;
use crate::paths::ROLES;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// One role: what it always knows.
#[component]
pub fn RolePage() -> impl IntoView {
    let params = use_params_map();
    let slug = Memo::new(move |_| params.read().get("slug").unwrap_or_default());
    let scope = Signal::derive(move || format!("company:role:{}", slug.get()));
    view! {
        <p class="crumbs"><a href=ROLES>"Roles and core knowledge"</a></p>
        <CorePanel scope/>
        {move || {
            let slug = slug.get();
            view! { <CheckedOnlyToggle scope=format!("role:{slug}") back=format!("{ROLES}/{slug}")/> }
        }}
    }
}
