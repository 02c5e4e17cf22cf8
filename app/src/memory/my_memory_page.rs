use super::forget_card::ForgetCard;
use super::keep_note::KeepNote;
use super::load_my_memory::{load_my_memory, MyMemoryData};
use super::pin_back::PinBack;
use super::pin_card::PinCard;
use super::refresh_card::RefreshCard;
use super::save_prepare::SavePrepare;
use super::set_own_key::SetOwnKey;
use crate::components::{loaded, NoticeLine};
use crate::paths::MY_MEMORY;
use engine::cards::service::CardView;
use engine::cards::source::CardField;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

/// Profile → Memory. `?forget=ID` asks before Forget.
#[component]
pub fn MyMemoryPage() -> impl IntoView {
    let query = use_query_map();
    let forget = move || query.read().get("forget").and_then(|p| p.parse::<i64>().ok());
    let data = Resource::new(forget, load_my_memory);
    view! {
        <h1>"Memory"</h1>
        {loaded(data, |d| view! { <MyMemory data=d/> })}
    }
}

/// A field's value, or its stored value marked unknown when the last read did not return it.
fn value(c: &CardView, f: &CardField) -> String {
    if c.not_returned.contains(&f.name) {
        format!("{} (unknown: not returned by {})", f.value, c.source)
    } else {
        f.value.clone()
    }
}

fn values(c: &CardView) -> String {
    c.fields
        .iter()
        .filter(|f| !f.free_text)
        .map(|f| format!("{}: {}", f.name, value(c, f)))
        .collect::<Vec<_>>()
        .join(" · ")
}

#[component]
fn MyMemory(data: MyMemoryData) -> impl IntoView {
    let MyMemoryData {
        cards,
        prepare,
        prepare_line,
        notice,
        confirm,
        own_keys,
        own_zone,
        forgotten,
        prepare_draft,
        notes,
        note_draft,
    } = data;
    let empty = cards.is_empty();
    // A refused save shows the form as it was typed, not as it is stored.
    let (enabled, at_time, zone) = match prepare_draft {
        Some(d) => (d.enabled, d.at_time, d.zone),
        None => (prepare.enabled, prepare.at_time, own_zone.unwrap_or_default()),
    };
    view! {
        <NoticeLine notice/>
        <section>
            <h2>"What I'm working on"</h2>
            <p class="meta">"The records kept for your work, most used first. Only you see what they say."</p>
            {confirm.map(|c| view! {
                <div class="confirm" role="alertdialog" aria-label="Forget this record?">
                    <p>{format!("Forget {} {}? It is removed from your memory and not kept for you again for 30 days, unless you pin it.", c.kind, c.record_id)}</p>
                    <form method="post" action=ForgetCard::url() class="inline">
                        <input type="hidden" name="id" value=c.card.to_string()/>
                        <button type="submit">"Forget it"</button>
                    </form>
                    <a href=MY_MEMORY>"Keep it"</a>
                </div>
            })}
            {empty.then(|| view! { <p>"Nothing is kept for your work yet."</p> })}
            <ul class="cards">
                {cards.into_iter().map(|c| view! { <CardLine card=c/> }).collect_view()}
            </ul>
        </section>
        {(!forgotten.is_empty()).then(|| view! {
            <section>
                <h2>"Forgotten"</h2>
                <p class="meta">"Not kept for you again until the date shown, unless you pin it back. Pinning reads it again from its source, as you."</p>
                <ul class="forgotten">
                    {forgotten.into_iter().map(|f| view! {
                        <li>
                            {f.line.clone()}" "
                            <form method="post" action=PinBack::url() class="inline">
                                <input type="hidden" name="connector" value=f.connector.to_string()/>
                                <input type="hidden" name="kind" value=f.kind.clone()/>
                                <input type="hidden" name="record_id" value=f.record_id.clone()/>
                                <button type="submit">"Pin it back"</button>
                            </form>
                        </li>
                    }).collect_view()}
                </ul>
            </section>
        })}
        <section class="notes">
            <h2>"Private notes"</h2>
            <p class="meta">"What you keep for your own asks, such as how someone prefers to be reached. Only you and your own asks read a note, as data: nothing is sent or written from a value in it without reading its source first."</p>
            <ul class="notes">
                {notes.into_iter().map(|(text, age)| view! {
                    <li><span class="text">{text}</span>" "<span class="meta">{age}</span></li>
                }).collect_view()}
            </ul>
            <form method="post" action=KeepNote::url()>
                <label for="note-text">"Keep a note"</label>
                <textarea id="note-text" name="text" rows="2" required>{note_draft.unwrap_or_default()}</textarea>
                <button type="submit">"Keep note"</button>
            </form>
        </section>
        <section>
            <h2>"Prepare my day"</h2>
            <p class="prepare">{prepare_line}</p>
            <form method="post" action=SavePrepare::url() class="inline">
                <label><input type="checkbox" name="enabled" value="on" checked=enabled/>" On"</label>
                <label>" at " <input type="time" name="at_time" value=at_time required/></label>
                <label>" your time zone " <input type="text" name="zone" value=zone placeholder="the company's"/></label>
                <button type="submit">"Save"</button>
            </form>
            <p class="meta">"At that time it reads your role's “my work” lists as you and keeps what they return. It does nothing else."</p>
        </section>
        {(!own_keys.is_empty()).then(|| view! {
            <section>
                <h2>"Your own keys"</h2>
                {own_keys.into_iter().map(|(id, name, has)| view! {
                    <form method="post" action=SetOwnKey::url() class="inline">
                        <input type="hidden" name="connector" value=id.to_string()/>
                        <label>{format!("{name} ({}) ", if has { "given; not shown again" } else { "not given yet" })}
                            <input type="password" name="key" required autocomplete="off"/>
                        </label>
                        <button type="submit">"Save key"</button>
                    </form>
                }).collect_view()}
            </section>
        })}
    }
}

#[component]
fn CardLine(card: CardView) -> impl IntoView {
    let id = card.card;
    let free: Vec<_> = card
        .fields
        .iter()
        .filter(|f| f.free_text && !f.value.is_empty())
        .map(|f| (f.name.clone(), value(&card, f)))
        .collect();
    let record = format!("{} {}", card.kind, card.record_id);
    view! {
        <li id=format!("card-{id}") class="card">
            <p class="line">
                {card.line.clone()}
                {card.pinned.then(|| view! { <span class="tag">" · pinned"</span> })}
                {card.open_work.then(|| view! { <span class="tag">" · open work"</span> })}
            </p>
            <p class="record"><strong>{card.record_id.clone()}</strong>" · "{values(&card)}</p>
            {free.into_iter().map(|(name, value)| view! { <p class="free"><em>{name}": "</em>{value}</p> }).collect_view()}
            <div class="actions">
                <form method="post" action=PinCard::url() class="inline">
                    <input type="hidden" name="id" value=id.to_string()/>
                    <input type="hidden" name="pinned" value=(!card.pinned).to_string()/>
                    <button type="submit">{if card.pinned { "Unpin" } else { "Pin" }}</button>
                </form>
                <form method="post" action=RefreshCard::url() class="inline">
                    <input type="hidden" name="id" value=id.to_string()/>
                    <input type="hidden" name="record" value=record/>
                    <button type="submit">"Refresh"</button>
                </form>
                <a class="button" href=format!("{MY_MEMORY}?forget={id}")>"Forget"</a>
            </div>
        </li>
    }
}
