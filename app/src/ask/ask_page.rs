use super::ask_agent::AskAgent;
use super::load_ask::{load_ask, AskData};
use crate::components::{loaded, when};
use crate::paths::thread;
use engine::runs::service::AgentChoice;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// Ask: pick one of the company's agents and write a question; the answer opens in its thread.
#[component]
pub fn AskPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_ask());
    view! {
        <h1>"Ask"</h1>
        {loaded(data, |d| view! { <AskForm data=d/> })}
    }
}

/// "Sales Assistant (Sales)", the name alone for an agent with no role, and "Inbox (Alice Chen) ·
/// your private agent" for the asker's own.
pub fn agent_label(a: &AgentChoice) -> String {
    match &a.role {
        _ if a.private => format!("{} · your private agent", a.name),
        Some(role) => format!("{} ({role})", a.name),
        None => a.name.clone(),
    }
}

#[component]
fn AskForm(data: AskData) -> impl IntoView {
    let AskData { agents, threads, draft } = data;
    let (chosen, question, message) = match draft {
        Some(d) => (d.agent, d.question, Some(d.message)),
        None => (String::new(), String::new(), None),
    };
    let none_yet = agents.is_empty();
    view! {
        {message.map(|m| view! { <p class="notice refused" role="alert">{m}</p> })}
        {if none_yet {
            view! { <p>"There is no agent you may ask yet."</p> }.into_any()
        } else {
            view! {
                <form method="post" action=AskAgent::url() class="ask">
                    <label>"Agent "
                        <select name="agent">
                            {agents.iter().map(|a| {
                                let id = a.id.to_string();
                                let selected = id == chosen;
                                view! { <option value=id selected=selected>{agent_label(a)}</option> }
                            }).collect_view()}
                        </select>
                    </label>
                    <label for="question">"Question"</label>
                    <textarea id="question" name="question" rows="4">{question}</textarea>
                    <div class="actions"><button type="submit">"Ask"</button></div>
                </form>
            }.into_any()
        }}
        <section class="threads">
            <h2>"Your threads"</h2>
            {if threads.is_empty() {
                view! { <p>"You have not asked anything yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="threads">
                        {threads.into_iter().map(|t| {
                            let at = t.asked_at.as_ref().map(when).unwrap_or_default();
                            view! {
                                <li>
                                    <a href=thread(t.id)>{t.title}</a>
                                    <span class="meta">{format!(" · {} · {at}", t.agent_name)}</span>
                                    {t.working.then(|| view! { <span class="tag">" working"</span> })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}
