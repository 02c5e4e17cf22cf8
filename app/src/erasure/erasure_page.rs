use super::erase_third_party::EraseThirdParty;
use super::load_erasure::{load_erasure, ErasureData};
use crate::components::{loaded, NoticeLine};
use engine::erasure::service::shown_back;
use engine::erasure::SOURCE_MAY_KEEP_AGAIN;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn ErasurePage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_erasure());
    view! {
        <h1>"Erase a third party"</h1>
        {loaded(data, |d| view! { <Erasure d/> })}
    }
}

/// What the admin typed, read back as what will be erased (with JavaScript on; the form works the
/// same without it).
fn read_back(typed: &str) -> String {
    if typed.trim().is_empty() {
        return String::new();
    }
    shown_back(typed).unwrap_or_else(|e| e.sentence())
}

#[component]
fn Erasure(d: ErasureData) -> impl IntoView {
    let (typed, set_typed) = signal(String::new());
    view! {
        <NoticeLine notice=d.notice/>
        <p>
            "Erase an email address or a phone number of someone outside the company. Every card, list snapshot, lesson (of any scope, in any state, with the versions it replaced) and who's-who entry that names it, in any spelling, is removed at once, with what only stood for them. This cannot be undone."
        </p>
        <p>
            "Engram keeps no copy of the value: the audit log records only a keyed hash of it and how many of each kind were removed."
        </p>
        <p class="source-note">{SOURCE_MAY_KEEP_AGAIN}</p>
        <p>
            "Conversations (threads, answers and their details) and the Inbox are the record of work done, and stay as they are."
        </p>
        <form class="erase" method="post" action=EraseThirdParty::url()>
            <label for="erase-value">"Email address or phone number"</label>
            <input
                id="erase-value"
                name="value"
                type="text"
                autocomplete="off"
                on:input=move |ev| set_typed.set(event_target_value(&ev))
            />
            <p class="read-back" aria-live="polite">{move || read_back(&typed.get())}</p>
            <label class="confirm">
                <input type="checkbox" name="confirm" value="yes"/>
                " I understand that this cannot be undone"
            </label>
            <button type="submit">"Erase"</button>
        </form>
    }
}
