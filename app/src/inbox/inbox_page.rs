use super::decide_action::DecideAction;
use super::load_inbox::{load_inbox, InboxData};
use crate::components::{loaded, when, NoticeLine};
use engine::runs::inbox::ActionState;
use engine::runs::service::InboxView;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// What an action's state reads as.
pub fn state_words(state: ActionState) -> &'static str {
    match state {
        ActionState::Waiting => "Waiting for you",
        ActionState::Approved => "Approved, being done",
        ActionState::Declined => "Declined",
        ActionState::Done => "Done",
        ActionState::Failed => "Not done",
    }
}

#[component]
pub fn InboxPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_inbox());
    view! {
        <h1>"Inbox"</h1>
        <p class="meta">"What your agents would change or send waits here. Nothing is done until you approve it."</p>
        {loaded(data, |d| view! { <Inbox data=d/> })}
    }
}

#[component]
fn Inbox(data: InboxData) -> impl IntoView {
    let InboxData { actions, notice } = data;
    view! {
        <NoticeLine notice/>
        {if actions.is_empty() {
            view! { <p>"Nothing waits in your Inbox."</p> }.into_any()
        } else {
            view! { <ul class="inbox">{actions.into_iter().map(|a| view! { <Action a/> }).collect_view()}</ul> }.into_any()
        }}
    }
}

#[component]
fn Action(a: InboxView) -> impl IntoView {
    let id = a.id.to_string();
    let arguments = serde_json::to_string_pretty(&a.arguments).unwrap_or_default();
    let waiting = a.state == ActionState::Waiting;
    view! {
        <li class="action" data-action=id.clone()>
            <p>
                <strong>{a.line.clone()}</strong>
                {format!(" · asked by {} · ", a.agent)}
                {when(&a.created_at)}
                " · "
                <a href=crate::paths::thread(a.thread)>"the thread"</a>
            </p>
            <pre class="arguments">{arguments}</pre>
            <p class="meta state">{state_words(a.state)}{a.outcome.clone().map(|o| format!(": {o}"))}</p>
            {waiting.then(|| view! {
                <form method="post" action=DecideAction::url() class="inline">
                    <input type="hidden" name="id" value=id.clone()/>
                    <input type="hidden" name="approve" value="true"/>
                    <button type="submit">"Approve"</button>
                </form>
                <form method="post" action=DecideAction::url() class="inline">
                    <input type="hidden" name="id" value=id.clone()/>
                    <input type="hidden" name="approve" value="false"/>
                    <button type="submit">"Decline"</button>
                </form>
            })}
        </li>
    }
}
