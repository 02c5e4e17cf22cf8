use super::load_setup::load_setup;
use super::set_up::SetUp;
use super::{SetupDraft, DEFAULT_ZONE};
use crate::components::Loading;
use engine::org::setup::time_zone_names;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// Set up Engram: the company's name and time zone, and the first admin. Only an empty database
/// shows it; the server sends everyone here until it is done.
#[component]
pub fn SetupPage() -> impl IntoView {
    let draft = Resource::new(|| (), |_| load_setup());
    view! {
        <h1>"Set up Engram"</h1>
        <p>"Engram has no company yet. Name yours and its first admin, who can then add everyone else."</p>
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                let draft = draft.await.ok().flatten().unwrap_or_default();
                view! { <SetupForm draft/> }
            })}
        </Suspense>
    }
}

#[component]
fn SetupForm(draft: SetupDraft) -> impl IntoView {
    let SetupDraft { company, zone, locale, name, email, message } = draft;
    let locale = if locale.trim().is_empty() { "en-US".to_string() } else { locale.trim().to_string() };
    let zone = if zone.trim().is_empty() { DEFAULT_ZONE.to_string() } else { zone.trim().to_string() };
    view! {
        {(!message.is_empty()).then(|| view! { <p class="notice refused" role="alert">{message}</p> })}
        <form method="post" action=SetUp::url() class="setup">
            <fieldset>
                <legend>"The company"</legend>
                <label>"Company name " <input type="text" name="company" value=company maxlength="80" required/></label>
                <label>"Time zone "
                    <select name="zone">
                        {time_zone_names().map(|z| view! { <option value=z selected=z == zone>{z}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Locale for numbers and dates " <input type="text" name="locale" value=locale maxlength="20" size="8"/></label>
                <p class="hint">"Such as en-IN (₹18,50,000 · 5 Dec 2026), en-US or de-DE. Card values read this way; what is stored does not change."</p>
            </fieldset>
            <fieldset>
                <legend>"The first admin"</legend>
                <label>"Your name " <input type="text" name="name" value=name maxlength="80" autocomplete="name" required/></label>
                <label>"Email " <input type="email" name="email" value=email autocomplete="username" required/></label>
                <label>"Password " <input type="password" name="password" autocomplete="new-password" minlength="8" required/></label>
                <p class="hint">"At least 8 characters, and not one of the most common passwords."</p>
            </fieldset>
            <button type="submit">"Set up Engram"</button>
        </form>
    }
}
