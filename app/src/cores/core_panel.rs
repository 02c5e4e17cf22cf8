use super::accept_suggestion::AcceptSuggestion;
use super::dismiss_suggestion::DismissSuggestion;
use super::draft_core::DraftCore;
use super::load_core_page::{load_core_page, CorePage};
use super::set_core_limit::SetCoreLimit;
use crate::components::{loaded, when, NoticeLine};
use crate::paths::{core_editor, core_home, core_version};
use engine::cores::CoreScope;
use engine::tokens::meter;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

/// One core: its text, meter, history, limit and suggested changes. History shows 20 versions
/// at a time; `?before=N` shows those older than N, so paging is a plain link.
#[component]
pub fn CorePanel(#[prop(into)] scope: Signal<String>) -> impl IntoView {
    let query = use_query_map();
    let data = Resource::new(
        move || (scope.get(), query.read().get("before")),
        |(scope, before)| load_core_page(scope, before),
    );
    view! {
        {loaded(data, |page| view! { <CoreSection page/> })}
    }
}

#[component]
fn CoreSection(page: CorePage) -> impl IntoView {
    let CorePage { view, notice } = page;
    let scope = view.subject.scope.clone();
    let (heading, kind) = match scope {
        CoreScope::Company(_) => ("Company core", "company core"),
        CoreScope::Team(_) => ("Team core", "team core"),
    };
    let tokens = view.current.as_ref().map(|c| c.tokens).unwrap_or(0);
    let has_current = view.current.is_some();
    let current_version = view.current.as_ref().map(|c| c.version).unwrap_or(0);
    let editor = core_editor(&scope);
    let limit = view.limit;
    let role_slug = view.subject.role.as_ref().map(|r| r.slug.as_str().to_string()).unwrap_or_default();
    let scope_key = scope.key();
    let history = view.history.versions.clone();
    let older = view.history.next_before;
    // An older page: the way back to the latest versions.
    let paged = has_current && view.history.versions.first().map(|v| v.version) != Some(current_version);
    let home = core_home(&scope);
    let suggestions = view.suggestions.clone();
    let name = match (&view.subject.team, &view.subject.role) {
        (Some(team), _) => team.name.clone(),
        (None, Some(role)) => role.name.clone(),
        _ => String::new(),
    };
    let role_line = match (&view.subject.team, &view.subject.role) {
        (Some(_), Some(role)) => Some(format!("Role: {}", role.name)),
        (Some(_), None) => Some("Role: none".to_string()),
        _ => None,
    };
    view! {
        <h1>{name}</h1>
        {role_line.map(|l| view! { <p class="meta">{l}</p> })}
        <section class="core" data-scope=scope_key.clone()>
            <h2>{heading}</h2>
            <NoticeLine notice/>
            {view.notice.clone().map(|t| view! { <p class="notice warn">{t}</p> })}
            {match view.current.clone() {
                Some(c) => {
                    view! {
                        <p class="meta">
                            "Version " {c.version} ", saved by " {c.author} " on " {when(&c.saved_at)}
                            {(!c.note.is_empty()).then(|| format!(" — {}", c.note))}
                        </p>
                        <pre class="core-text">{c.text}</pre>
                    }
                        .into_any()
                }
                None => view! { <p class="empty">{format!("No {kind} yet.")}</p> }.into_any(),
            }}
            <p class="meter">{meter(tokens, limit)}</p>
            {view.may_edit.then(|| {
                let company = matches!(scope, CoreScope::Company(_));
                let role = role_slug.clone();
                view! {
                    <div class="actions">
                        <a class="button" href=editor.clone()>{if has_current { "Edit" } else { "Write it" }}</a>
                        {company.then(|| view! {
                            <form method="post" action=DraftCore::url() class="inline">
                                <input type="hidden" name="role" value=role/>
                                <button type="submit" class="secondary">"Draft from what exists"</button>
                            </form>
                        })}
                    </div>
                }
            })}
            {(!history.is_empty()).then(|| {
                let scope = scope.clone();
                view! {
                    <h3>"History"</h3>
                    <ol class="history" reversed>
                        {history.into_iter().map(|v| view! {
                            <li>
                                <a href=core_version(&scope, v.version)>{format!("Version {}", v.version)}</a>
                                {format!(" · {} · {} · {} tokens", v.author, when(&v.saved_at), v.tokens)}
                                {(!v.note.is_empty()).then(|| format!(" · {}", v.note))}
                                {(v.version == current_version).then_some(" · current")}
                            </li>
                        }).collect_view()}
                    </ol>
                }
            })}
            {(older.is_some() || paged).then(|| view! {
                <p class="pager">
                    {paged.then(|| view! { <a href=home.clone()>"Latest versions"</a> })}
                    {older.map(|n| view! { <a href=format!("{home}?before={n}")>"Older versions"</a> })}
                </p>
            })}
            {view.may_set_limit.then(|| view! {
                <details class="limit">
                    <summary>"Company core limit"</summary>
                    <form method="post" action=SetCoreLimit::url()>
                        <input type="hidden" name="role" value=role_slug.clone()/>
                        <label>"Tokens " <input type="number" name="limit" value=limit.to_string() min="0" step="1"/></label>
                        <button type="submit">"Set limit"</button>
                    </form>
                    <p class="hint">"From 2,000 up to 6,000 tokens. A run of this role carries the whole core."</p>
                </details>
            })}
            {(!suggestions.is_empty()).then(|| view! {
                <section class="suggestions">
                    <h3>"Suggested changes"</h3>
                    {suggestions.into_iter().map(|s| {
                        let id = s.id.to_string();
                        view! {
                            <article class="suggestion">
                                <p class="line">{s.line}</p>
                                <p><strong>"Why: "</strong>{s.why}</p>
                                <p><strong>"Rests on: "</strong>{s.rests_on}</p>
                                <p class="meta">{format!("From the {}, {}", s.source, when(&s.created_at))}</p>
                                <form method="post" action=AcceptSuggestion::url() class="inline">
                                    <input type="hidden" name="id" value=id.clone()/>
                                    <input type="hidden" name="scope" value=scope_key.clone()/>
                                    <button type="submit">"Accept"</button>
                                </form>
                                <form method="post" action=DismissSuggestion::url() class="inline">
                                    <input type="hidden" name="id" value=id/>
                                    <input type="hidden" name="scope" value=scope_key.clone()/>
                                    <button type="submit" class="secondary">"Dismiss"</button>
                                </form>
                            </article>
                        }
                    }).collect_view()}
                </section>
            })}
        </section>
    }
}
