use super::load_memory_settings::{load_memory_settings, MemorySettingsData};
use super::set_company_locale::SetCompanyLocale;
use super::set_memory_budget::SetMemoryBudget;
use crate::components::{loaded, NoticeLine};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn MemorySettingsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_memory_settings());
    view! {
        <h1>"Memory settings"</h1>
        {loaded(data, |d| view! { <MemorySettings d/> })}
    }
}

#[component]
fn MemorySettings(d: MemorySettingsData) -> impl IntoView {
    let s = d.settings;
    let value = d.draft.unwrap_or_else(|| s.budget_cents.to_string());
    let default_note = s.is_default.then_some(" (the default)");
    let stops = s.stops;
    let locale = d.locale_draft.unwrap_or_else(|| s.locale.clone());
    let sample = s.locale_sample;
    let no_stops = stops.is_empty();
    view! {
        <NoticeLine notice=d.notice/>
        <p>"Lessons load into runs by default."</p>
        <section class="memory-budget">
            <h2>"Daily budget"</h2>
            <p>
                "The nightly job and drafting record shapes call a model within this budget each day, counted in the spend ledger. When it runs out the job stops for the day and the people it left out are read first the next night."
            </p>
            <form method="post" action=SetMemoryBudget::url()>
                <label for="memory-budget">"Cents a day" {default_note}</label>
                <input id="memory-budget" name="cents" type="text" inputmode="numeric" value=value/>
                <button type="submit">"Save"</button>
            </form>
            <p class="spent">{s.spent_line}</p>
        </section>
        <section class="company-locale">
            <h2>"How values read"</h2>
            <p>
                "Card values are shown to people with their labels, and numbers, amounts and dates in this locale. What is stored, and what agents read, stays as the source gave it."
            </p>
            <form method="post" action=SetCompanyLocale::url()>
                <label for="company-locale">"Locale, such as en-IN, en-US or de-DE"</label>
                <input id="company-locale" name="locale" type="text" value=locale maxlength="20"/>
                <button type="submit">"Save"</button>
            </form>
            <p class="locale-sample">"Reads as: " {sample}</p>
        </section>
        <section class="budget-stops">
            <h2>"Nights the budget ran out"</h2>
            {if no_stops {
                view! { <p>"None yet."</p> }.into_any()
            } else {
                view! { <ul class="budget-stops">{stops.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul> }.into_any()
            }}
        </section>
    }
}
