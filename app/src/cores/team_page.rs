use super::core_panel::CorePanel;
use crate::paths::TEAMS;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// One team: its team core.
#[component]
pub fn TeamPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let scope = Signal::derive(move || format!("team:{}", id.get()));
    view! {
        <p class="crumbs"><a href=TEAMS>"Teams"</a></p>
        <CorePanel scope/>
    }
}
