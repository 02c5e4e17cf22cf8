use super::load_events::load_events;
use crate::components::{loaded, when};
use crate::paths::EVENTS;
use engine::runs::{CoreRefScope, Event, MemoryRef};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Events, newest first. `?after=ID` shows those after an event, for following them.
#[component]
pub fn EventsPage() -> impl IntoView {
    let query = use_query_map();
    let after = Memo::new(move |_| query.read().get("after").and_then(|a| a.parse::<i64>().ok()).unwrap_or(0));
    let data = Resource::new(move || after.get(), load_events);
    view! {
        <h1>"Events"</h1>
        {loaded(data, |events| view! { <Events events/> })}
    }
}

/// What people read for an event's name.
pub fn event_name(name: &str) -> String {
    match name {
        "memory_used" => "Memory used".to_string(),
        "message_checked" => "Answer checked".to_string(),
        "limit_may_be_too_long" => "A limit may be too long".to_string(),
        "lessons_to_review" => "Lessons to review".to_string(),
        "memory_budget_spent" => "Memory's daily budget spent".to_string(),
        "password_reset" => "Password reset by an admin".to_string(),
        "sign_in_locked" => "Sign-in locked after wrong passwords".to_string(),
        other => other.to_string(),
    }
}

/// What an event is about, by id: its run, its message or its connector.
fn of(e: &Event) -> String {
    let mut parts = Vec::new();
    if let Some(r) = e.run {
        parts.push(format!("run {r}"));
    }
    if let Some(m) = e.message {
        parts.push(format!("message {m}"));
    }
    if let Some(c) = e.connector {
        parts.push(format!("connector {c}"));
    }
    parts.join(", ")
}

/// A ref by its id alone: "core company role:sales v1", "slice", "card:12".
pub fn ref_id(r: &MemoryRef) -> String {
    match r {
        MemoryRef::Core(c) => match &c.scope {
            CoreRefScope::Company(role) => format!("core company {role} v{}", c.version),
            CoreRefScope::Team(team) => format!("core team {team} v{}", c.version),
        },
        MemoryRef::Slice => "slice".to_string(),
        MemoryRef::Card(id) => id.clone(),
        MemoryRef::Lesson(id) => format!("lesson {id}"),
        MemoryRef::Snapshot(id) => format!("snapshot {id}"),
    }
}

#[component]
fn Events(events: Vec<Event>) -> impl IntoView {
    let newest = events.iter().map(|e| e.id).max();
    let mut events = events;
    events.sort_by_key(|e| std::cmp::Reverse(e.id));
    view! {
        {if events.is_empty() {
            view! { <p>"No events yet."</p> }.into_any()
        } else {
            view! {
                <table class="events">
                    <thead><tr><th>"Event"</th><th>"When"</th><th>"Of"</th><th>"Thread"</th><th>"State"</th><th>"Refs"</th></tr></thead>
                    <tbody>
                        {events.into_iter().map(|e| view! {
                            <tr data-event=e.id.to_string()>
                                <td>{event_name(&e.name)}</td>
                                <td>{when(&e.at)}</td>
                                <td>{of(&e)}</td>
                                <td>{e.thread.map(|t| format!("thread {t}"))}</td>
                                <td>{e.state.clone().map(|s| s.replace('_', " "))}</td>
                                <td>{e.refs.iter().map(|r| view! { <code>{ref_id(r)}</code>" " }).collect_view()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        {newest.map(|id| view! { <p><a href=format!("{EVENTS}?after={id}")>"Newer events"</a></p> })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::runs::CoreRef;

    #[test]
    fn events_show_ids_and_names_only() {
        assert_eq!(event_name("memory_used"), "Memory used");
        assert_eq!(event_name("message_checked"), "Answer checked");
        assert_eq!(event_name("password_reset"), "Password reset by an admin");
        assert_eq!(event_name("sign_in_locked"), "Sign-in locked after wrong passwords");
        let core = MemoryRef::Core(CoreRef { scope: CoreRefScope::Company("role:sales".into()), version: 1 });
        assert_eq!(ref_id(&core), "core company role:sales v1");
        assert_eq!(ref_id(&MemoryRef::Slice), "slice");
        assert_eq!(ref_id(&MemoryRef::Card("card:12".into())), "card:12");
    }
}
