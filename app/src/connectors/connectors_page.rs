use super::create_connector::CreateConnector;
use super::load_connectors::{load_connectors, ConnectorsData};
use crate::components::{loaded, NoticeLine};
use crate::paths;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

#[component]
pub fn ConnectorsPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| load_connectors());
    view! {
        <h1>"Connectors"</h1>
        {loaded(data, |d: ConnectorsData| view! {
            <NoticeLine notice=d.notice/>
            <ul class="roster">
                {d.connectors.into_iter().map(|c| view! {
                    <li>
                        <a href=paths::connector(c.id)>{c.name.clone()}</a>
                        {format!(" — {} · reads with {} · {}", c.base_url, c.key_mode.as_str().replace('_', " "), if c.killed { "switched off" } else { "live" })}
                    </li>
                }).collect_view()}
            </ul>
            <h2>"Add a connector"</h2>
            <form method="post" action=CreateConnector::url() class="settings">
                <label>"Name " <input type="text" name="name" required maxlength="60"/></label>
                <label>" Base URL " <input type="url" name="base_url" required placeholder="https://"/></label>
                <label>" Company key " <input type="password" name="company_key" required autocomplete="off"/></label>
                <button type="submit">"Add"</button>
            </form>
            <p class="meta">"The key is checked against the system's tool list, then stored and never shown again."</p>
        })}
    }
}
