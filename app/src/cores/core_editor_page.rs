use super::load_core_editor::{load_core_editor, EditorData};
use super::reload_core::ReloadCore;
use super::save_core::SaveCore;
use crate::components::loaded;
use crate::paths::core_home;
use engine::tokens::{count_tokens, meter};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;

/// The core editor: a textarea with a live meter. Save posts a plain form, so it works without
/// JavaScript; with it, the meter follows every keystroke and Save stays off over the limit.
#[component]
pub fn CoreEditorPage() -> impl IntoView {
    let params = use_params_map();
    let scope = Memo::new(move |_| params.read().get("scope").unwrap_or_default());
    let data = Resource::new(move || scope.get(), load_core_editor);
    view! {
        {loaded(data, |d| view! { <CoreEditor data=d/> })}
    }
}

#[component]
fn CoreEditor(data: EditorData) -> impl IntoView {
    let EditorData { view, draft } = data;
    let scope = view.subject.scope.clone();
    let current_text = view.current.as_ref().map(|c| c.text.clone()).unwrap_or_default();
    let current_version = view.current.as_ref().map(|c| c.version).unwrap_or(0);
    let drafted = draft.as_ref().is_some_and(|d| d.drafted);
    let (initial, based_on, note, kept, message, changed) = match draft {
        Some(d) if d.reloaded => (
            current_text,
            current_version,
            d.note,
            Some(d.text),
            Some(if current_version == 0 {
                "There is no saved version yet. Your text is below to copy from.".to_string()
            } else {
                format!("Reloaded version {current_version}. Your text is below to copy from.")
            }),
            false,
        ),
        Some(d) => (d.text, d.based_on, d.note, None, Some(d.message), d.changed),
        None => (current_text, current_version, String::new(), None, None, false),
    };
    let message_class = if drafted { "notice" } else { "notice refused" };
    let limit = view.limit;
    let text = RwSignal::new(initial.clone());
    let tokens = Memo::new(move |_| count_tokens(&text.read()));
    let over = move || tokens.get() > limit;
    // Save is turned off only once the page is live: without JavaScript nobody could turn it back
    // on, and the server refuses an over-limit save anyway.
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let home = core_home(&scope);
    view! {
        <p class="crumbs"><a href=home.clone()>{view.title.clone()}</a></p>
        <h1>{format!("Edit the {}", view.title)}</h1>
        {message.map(|m| view! { <p class=message_class role="alert">{m}</p> })}
        {(!view.may_edit).then(|| view! {
            <p class="notice warn">"You can read this core, but saving it is up to its owners."</p>
        })}
        <form method="post" action=SaveCore::url() class="editor">
            <input type="hidden" name="scope" value=scope.key()/>
            <input type="hidden" name="based_on" value=based_on.to_string()/>
            <p class="meta">{if based_on == 0 { "A new core".to_string() } else { format!("Editing version {based_on}") }}</p>
            <label for="core-text">"Text"</label>
            <textarea id="core-text" name="text" rows="16" on:input:target=move |ev| text.set(ev.target().value())>
                {initial}
            </textarea>
            <p class="meter" class:over=over>{move || meter(tokens.get(), limit)}</p>
            <label>"What changed " <input type="text" name="note" value=note/></label>
            <div class="actions">
                <button type="submit" disabled=move || live.get() && over()>"Save"</button>
                {changed.then(|| view! {
                    <button type="submit" formaction=ReloadCore::url() class="secondary">"Reload"</button>
                })}
                <a href=home>"Cancel"</a>
            </div>
        </form>
        {kept.map(|k| view! {
            <section class="kept">
                <h2>"Your text"</h2>
                <textarea id="kept-text" readonly rows="10">{k}</textarea>
            </section>
        })}
    }
}
