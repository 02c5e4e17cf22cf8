use super::ask_in_thread::AskInThread;
use super::load_thread::load_thread;
use super::load_thread_page::{load_thread_page, ThreadPageData};
use super::retry_run::RetryRun;
use crate::components::{ErrorLine, Loading, NoticeLine};
use crate::paths::ASK;
use engine::runs::service::{MessageView, RunView, ThreadView};
use engine::runs::RunId;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_params_map;
use std::time::Duration;

/// How often an open page looks again while a run is working.
const LOOK_AGAIN: Duration = Duration::from_secs(1);

/// A thread: the questions and their answers. While a run works, the page looks again: with
/// JavaScript, it fetches the thread about every second; without, the browser reloads it.
#[component]
pub fn ThreadPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").and_then(|p| p.parse::<i64>().ok()).unwrap_or(0));
    let data = Resource::new(move || id.get(), load_thread_page);
    // The thread as last fetched by this page, once it has looked again.
    let fresh: RwSignal<Option<ThreadView>> = RwSignal::new(None);
    let failed_looks = RwSignal::new(0u32);
    // Effects run only in the browser: this is the JavaScript-on way of showing the answer.
    Effect::new(move |_| {
        failed_looks.track();
        let id = id.get();
        let working = match fresh.get().filter(|t| t.id.0 == id) {
            Some(t) => t.working,
            None => data.get().and_then(|d| d.ok()).is_some_and(|d| d.thread.id.0 == id && d.thread.working),
        };
        if working {
            set_timeout(
                move || {
                    leptos::task::spawn_local(async move {
                        match load_thread(id).await {
                            Ok(t) => fresh.set(Some(t)),
                            Err(_) => failed_looks.update(|n| *n += 1),
                        }
                    })
                },
                LOOK_AGAIN,
            );
        }
    });
    view! {
        <Suspense fallback=Loading>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => view! { <Thread data=d fresh/> }.into_any(),
                    Err(error) => view! { <p class="crumbs"><a href=ASK>"Ask"</a></p> <ErrorLine error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Thread(data: ThreadPageData, fresh: RwSignal<Option<ThreadView>>) -> impl IntoView {
    let ThreadPageData { thread, notice, draft } = data;
    let id = thread.id;
    let (question, message) = match draft {
        Some(d) => (d.question, Some(d.message)),
        None => (String::new(), None),
    };
    let first = thread.clone();
    let current = move || fresh.get().filter(|t| t.id == id).unwrap_or_else(|| first.clone());
    view! {
        <p class="crumbs"><a href=ASK>"Ask"</a></p>
        <h1>{thread.title.clone()}</h1>
        <p class="meta">{format!("Asked of {}", thread.agent_name)}</p>
        // Without JavaScript the browser looks again by itself; inside noscript, a page with
        // JavaScript never reloads.
        {thread.working.then(|| view! { <noscript inner_html=r#"<meta http-equiv="refresh" content="2">"#></noscript> })}
        <NoticeLine notice/>
        <div class="messages">{move || messages(current())}</div>
        {message.map(|m| view! { <p class="notice refused" role="alert">{m}</p> })}
        <form method="post" action=AskInThread::url() class="ask">
            <input type="hidden" name="thread" value=id.to_string()/>
            <label for="question">"Ask a follow-up"</label>
            <textarea id="question" name="question" rows="3">{question}</textarea>
            <div class="actions"><button type="submit">"Ask"</button></div>
        </form>
    }
}

fn messages(thread: ThreadView) -> impl IntoView {
    // An agent's message that answers a run shown above is shown there, with its steps; a
    // retried run's earlier answer stays as a message of its own.
    let shown_runs: Vec<RunId> = thread.messages.iter().filter_map(|m| m.run.as_ref().map(|r| r.id)).collect();
    let id = thread.id.0;
    thread
        .messages
        .into_iter()
        .filter(|m| !(m.from_agent && m.answer_of.is_some_and(|r| shown_runs.contains(&r))))
        .map(|m| message(m, id))
        .collect_view()
}

fn message(m: MessageView, thread: i64) -> impl IntoView {
    let class = if m.from_agent { "message from-agent" } else { "message" };
    view! {
        <article class=class>
            <p class="author">{m.author}<span class="meta">{format!(" · {}", crate::components::when(&m.at))}</span></p>
            <p class="text">{m.text}</p>
            {m.run.map(|r| run(r, thread))}
        </article>
    }
}

fn run(r: RunView, thread: i64) -> impl IntoView {
    let working = r.state == "running";
    let run_id = r.id.to_string();
    view! {
        <section class="run" data-state=r.state.clone()>
            {working.then(|| view! { <p class="working" role="status">{format!("{} is working on it…", r.agent_name)}</p> })}
            {r.answer.clone().map(|a| view! {
                <div class="answer">
                    <p class="author">{r.agent_name.clone()}</p>
                    <p class="text">{a}</p>
                </div>
            })}
            {r.check.clone().map(|c| {
                let held = r.answer.is_none() && c.state == "checking";
                view! {
                    <div class="check" data-check=c.state.clone() role="status">
                        <p class="check-state">
                            {if held { "Checking: the answer shows once it is checked".to_string() } else { c.words.clone() }}
                        </p>
                        {(!c.lines.is_empty()).then(|| view! {
                            <ul class="changes">{c.lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                        })}
                    </div>
                }
            })}
            {r.failure.clone().map(|f| view! {
                <div class="failed">
                    <p class="notice refused" role="alert">{f}</p>
                    <form method="post" action=RetryRun::url() class="inline">
                        <input type="hidden" name="thread" value=thread.to_string()/>
                        <input type="hidden" name="run" value=run_id/>
                        <button type="submit">"Try again"</button>
                    </form>
                </div>
            })}
            {r.model_note.clone().map(|n| view! { <p class="model-note">{n}</p> })}
            <p class="meta labels">
                {format!("Data label: {}", r.data_label)}
                {r.review_mode.then(|| view! { " · " <span class="tag review">"Review mode"</span> })}
            </p>
            {(!r.steps.is_empty()).then(|| view! {
                <details class="steps">
                    <summary>"Details"</summary>
                    <ol>
                        {r.steps.into_iter().map(|s| view! {
                            <li data-kind=s.kind.clone()>
                                // The step that says what the run read from memory is named as
                                // people know it, with what it read listed under it.
                                {(s.kind == "memory_used").then(|| view! {
                                    <span class="step-name">"Memory used"</span>
                                    " "
                                })}
                                <span class="line">{s.line}</span>
                                {(!s.words.is_empty()).then(|| view! {
                                    <ul>{s.words.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}</ul>
                                })}
                            </li>
                        }).collect_view()}
                    </ol>
                </details>
            })}
        </section>
    }
}
