use super::load_core_version::{load_core_version, VersionPage};
use super::restore_core::RestoreCore;
use crate::components::{loaded, when, NoticeLine};
use crate::paths::core_home;
use engine::diff::DiffLine;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

/// One past version, its difference from the current text, and Restore.
#[component]
pub fn CoreVersionPage() -> impl IntoView {
    let params = use_params_map();
    let key = Memo::new(move |_| {
        let p = params.read();
        (p.get("scope").unwrap_or_default(), p.get("version").and_then(|v| v.parse::<u32>().ok()).unwrap_or(0))
    });
    let data = Resource::new(move || key.get(), |(scope, version)| load_core_version(scope, version));
    view! {
        {loaded(data, |d| view! { <Version page=d/> })}
    }
}

#[component]
fn Version(page: VersionPage) -> impl IntoView {
    let VersionPage { view, notice } = page;
    let v = view.version.clone();
    let scope = v.scope.clone();
    let is_current = v.version == view.current_version;
    view! {
        <p class="crumbs"><a href=core_home(&scope)>{view.title.clone()}</a></p>
        <h1>{format!("{}, version {}", view.title, v.version)}</h1>
        <NoticeLine notice/>
        <p class="meta">
            {format!("Saved by {} on {} · {} tokens", v.author, when(&v.saved_at), v.tokens)}
            {(!v.note.is_empty()).then(|| format!(" · {}", v.note))}
            {v.restored_from.map(|r| format!(" · restored from version {r}"))}
        </p>
        <pre class="core-text">{v.text.clone()}</pre>
        {view.may_restore.then(|| view! {
            <form method="post" action=RestoreCore::url()>
                <input type="hidden" name="scope" value=scope.key()/>
                <input type="hidden" name="from" value=v.version.to_string()/>
                <input type="hidden" name="based_on" value=view.current_version.to_string()/>
                <button type="submit">"Restore"</button>
                <span class="hint">{format!(" Saves this text as version {}.", view.current_version + 1)}</span>
            </form>
        })}
        <h2>{if is_current { "This is the current version".to_string() } else { format!("Changes from this version to the current one (version {})", view.current_version) }}</h2>
        {(!is_current).then(|| view! {
            <pre class="diff">
                {view.diff_to_current.into_iter().map(|line| match line {
                    DiffLine::Same(l) => view! { <span class="same">{format!("  {l}\n")}</span> }.into_any(),
                    DiffLine::Removed(l) => view! { <del>{format!("- {l}\n")}</del> }.into_any(),
                    DiffLine::Added(l) => view! { <ins>{format!("+ {l}\n")}</ins> }.into_any(),
                }).collect_view()}
            </pre>
        })}
    }
}
