use super::correct_lesson::CorrectLesson;
use super::decide_proposal::DecideProposal;
use super::forget_card::ForgetCard;
use super::forget_lesson::ForgetLesson;
use super::keep_lesson::KeepLesson;
use super::load_my_memory::{load_my_memory, CorrectDraft, LessonDraft, MyMemoryData};
use super::pin_back::PinBack;
use super::pin_card::PinCard;
use super::refresh_card::RefreshCard;
use super::save_prepare::SavePrepare;
use super::set_own_key::SetOwnKey;
use crate::components::{loaded, NoticeLine};
use crate::paths::MY_MEMORY;
use engine::cards::service::CardView;
use engine::cards::service::ShownField;
use engine::lessons::service::{LessonView, MyLessons, ProposalView};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

/// Profile → Memory. `?forget=ID` asks before forgetting a record, `?forget_lesson=ID` before
/// forgetting a lesson.
#[component]
pub fn MyMemoryPage() -> impl IntoView {
    let query = use_query_map();
    let asking = move || {
        let q = query.read();
        let id = |key: &str| q.get(key).and_then(|p| p.parse::<i64>().ok());
        (id("forget"), id("forget_lesson"))
    };
    let data = Resource::new(asking, |(forget, forget_lesson)| load_my_memory(forget, forget_lesson));
    view! {
        <h1>"Memory"</h1>
        {loaded(data, |d| view! { <MyMemory data=d/> })}
    }
}

/// A field's value in the company's locale, or its stored value marked unknown when the last
/// read did not return it.
fn value(c: &CardView, f: &ShownField) -> String {
    if f.unknown {
        format!("{} (unknown: not returned by {})", f.value, c.source)
    } else {
        f.value.clone()
    }
}

/// "Contact: Priya Raman · Value: ₹18,50,000 · Next follow up: 5 Dec 2026"
fn values(c: &CardView) -> String {
    c.shown
        .iter()
        .filter(|f| !f.free_text)
        .map(|f| format!("{}: {}", f.label, value(c, f)))
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
        confirm_lesson,
        own_keys,
        own_zone,
        forgotten,
        prepare_draft,
        lessons,
        lesson_draft,
        correct_draft,
        review,
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
                <ConfirmForget
                    label="Forget this record?"
                    question=format!("Forget {} {}? It is removed from your memory and not kept for you again for 30 days, unless you pin it.", c.kind, c.record_id)
                    action=ForgetCard::url()
                    id=c.card.to_string()
                />
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
        {(!review.is_empty()).then(|| view! { <Review proposals=review/> })}
        <Learned lessons draft=lesson_draft correcting=correct_draft confirm=confirm_lesson/>
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
        .shown
        .iter()
        .filter(|f| f.free_text && !f.value.is_empty())
        .map(|f| (f.label.clone(), value(&card, f)))
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

/// Profile → Memory → What I've learned: the person's own lessons with their evidence, Correct
/// and Forget, and those no longer current.
#[component]
fn Learned(
    lessons: MyLessons,
    draft: Option<LessonDraft>,
    correcting: Option<CorrectDraft>,
    confirm: Option<LessonView>,
) -> impl IntoView {
    let MyLessons { in_use, no_longer_current } = lessons;
    let (typed, scope) = draft.map(|d| (d.text, d.scope)).unwrap_or_else(|| (String::new(), "private".into()));
    let scopes = [
        ("private", "Only me"),
        ("team", "My team (after its lead or an admin accepts it)"),
        ("company", "The company (after an admin accepts it)"),
        ("partner", "Partner knowledge (after an admin accepts it; loads only into agents that list it)"),
    ];
    let empty = in_use.is_empty();
    view! {
        <section class="lessons">
            <h2>"What I've learned"</h2>
            <p class="meta">"What your runs learned, and what you kept in your own words. Only you and your own asks read a lesson, as data: nothing is sent or written from a value in it without reading its source first."</p>
            {confirm.map(|l| view! {
                <ConfirmForget
                    label="Forget this lesson?"
                    question=format!("Forget \u{201c}{}\u{201d}? It is removed from your memory with the versions it replaced.", l.text)
                    action=ForgetLesson::url()
                    id=l.id.to_string()
                />
            })}
            {empty.then(|| view! { <p>"No lessons in use yet."</p> })}
            <ul class="lessons">
                {in_use.into_iter().map(|l| {
                    let typed = correcting.as_ref().filter(|d| d.id == l.id).map(|d| d.text.clone());
                    view! { <LessonLine lesson=l typed/> }
                }).collect_view()}
            </ul>
            <form method="post" action=KeepLesson::url()>
                <label for="lesson-text">"Keep a lesson"</label>
                <textarea id="lesson-text" name="text" rows="2" required>{typed}</textarea>
                <label for="lesson-scope">"For"</label>
                <select id="lesson-scope" name="scope">
                    {scopes.into_iter().map(|(value, words)| {
                        let selected = value == scope;
                        view! { <option value=value selected=selected>{words}</option> }
                    }).collect_view()}
                </select>
                <button type="submit">"Keep lesson"</button>
            </form>
            {(!no_longer_current.is_empty()).then(|| view! {
                <h3>"No longer current"</h3>
                <ul class="lessons past">
                    {no_longer_current.into_iter().map(|l| {
                        let (id, text, line) = (l.id.to_string(), l.text.clone(), l.line.clone());
                        view! {
                            <li data-lesson=id>
                                <span class="text">{text}</span>" "
                                <span class="meta">{line}</span>
                                <Evidence lesson=l/>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            })}
        </section>
    }
}

#[component]
fn Evidence(lesson: LessonView) -> impl IntoView {
    view! {
        <span class="evidence">
            {lesson.evidence.into_iter().map(|e| match e.thread {
                Some(t) => view! { " · "<a href=format!("/threads/{t}")>{e.words}</a> }.into_any(),
                None => view! { " · "<span>{e.words}</span> }.into_any(),
            }).collect_view()}
        </span>
    }
}

/// A lesson in use, with Correct (its form open when a correction of it was refused) and Forget.
#[component]
fn LessonLine(lesson: LessonView, typed: Option<String>) -> impl IntoView {
    let id = lesson.id.to_string();
    let (li_id, form_id) = (id.clone(), id.clone());
    let field = format!("correct-{id}");
    let open = typed.is_some();
    let text = typed.unwrap_or_else(|| lesson.text.clone());
    let (shown, line, changeable) = (lesson.text.clone(), lesson.line.clone(), lesson.yours_to_change);
    view! {
        <li data-lesson=li_id>
            <span class="text">{shown}</span>" "
            <span class="meta">{line}</span>
            <Evidence lesson/>
            {changeable.then(|| view! {
                <details open=open>
                    <summary>"Correct"</summary>
                    <form method="post" action=CorrectLesson::url()>
                        <input type="hidden" name="id" value=form_id/>
                        <label for=field.clone()>"In your words"</label>
                        <textarea id=field name="text" rows="2" required>{text}</textarea>
                        <button type="submit">"Save correction"</button>
                    </form>
                </details>
                <a class="button" href=format!("{MY_MEMORY}?forget_lesson={id}")>"Forget"</a>
            })}
        </li>
    }
}

/// The Review queue: team and company proposals waiting for this person, with Accept and Decline.
#[component]
fn Review(proposals: Vec<ProposalView>) -> impl IntoView {
    view! {
        <section class="review">
            <h2>"Review"</h2>
            <p class="meta">"Proposals for a team or the company wait here until a reviewer accepts them; until then only you and the person they came from see them."</p>
            <ul class="proposals">
                {proposals.into_iter().map(|p| {
                    let id = p.lesson.id.to_string();
                    let (li_id, accept_id, text) = (id.clone(), id.clone(), p.lesson.text.clone());
                    let line = format!("for {}, from {} · {}", p.to, p.from, p.lesson.line);
                    view! {
                        <li data-lesson=li_id>
                            <span class="text">{text}</span>" "
                            <span class="meta">{line}</span>
                            <Evidence lesson=p.lesson/>
                            <form method="post" action=DecideProposal::url() class="inline">
                                <input type="hidden" name="id" value=accept_id/>
                                <input type="hidden" name="decision" value="accept"/>
                                <button type="submit">"Accept"</button>
                            </form>
                            <form method="post" action=DecideProposal::url() class="inline">
                                <input type="hidden" name="id" value=id/>
                                <input type="hidden" name="decision" value="decline"/>
                                <button type="submit">"Decline"</button>
                            </form>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}

/// Forgetting asks first: the question, Forget it (the form that forgets) and Keep it (back to
/// the page, nothing changed).
#[component]
fn ConfirmForget(label: &'static str, question: String, action: &'static str, id: String) -> impl IntoView {
    view! {
        <div class="confirm" role="alertdialog" aria-label=label>
            <p>{question}</p>
            <form method="post" action=action class="inline">
                <input type="hidden" name="id" value=id/>
                <button type="submit">"Forget it"</button>
            </form>
            <a href=MY_MEMORY>"Keep it"</a>
        </div>
    }
}
