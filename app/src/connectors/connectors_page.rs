use super::load_connectors::load_connectors;
use crate::components::loaded;
use crate::paths;
use engine::cards::source::Connector;
use leptos::prelude::*;

#[component]
pub fn ConnectorsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_connectors());
    view! {
        <h1>"Connectors"</h1>
        {loaded(data, |list: Vec<Connector>| view! {
            <ul class="roster">
                {list.into_iter().map(|c| view! {
                    <li>
                        <a href=paths::connector(c.id)>{c.name.clone()}</a>
                        {format!(" — {} · {} · {}", c.base_url, c.key_mode.as_str().replace('_', " "), if c.killed { "switched off" } else { "live" })}
                    </li>
                }).collect_view()}
            </ul>
        })}
    }
}
