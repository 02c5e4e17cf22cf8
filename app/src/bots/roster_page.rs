use super::load_roster::{load_roster, RosterData};
use crate::components::loaded;
use crate::paths;
use leptos::prelude::*;

#[component]
pub fn RosterPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_roster());
    view! {
        <h1>"Bots"</h1>
        {loaded(data, |d| view! { <Roster data=d/> })}
    }
}

#[component]
fn Roster(data: RosterData) -> impl IntoView {
    view! {
        <p class="meta">{data.model}</p>
        <ul class="roster">
            {data.lines.into_iter().map(|l| view! {
                <li>
                    <a href=paths::org_agent(&l.name)>{l.name.clone()}</a>
                    {format!(" — {} · owner {} · {} active memory lines", l.description, l.owner, l.active)}
                </li>
            }).collect_view()}
        </ul>
    }
}
