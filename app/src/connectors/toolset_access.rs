//! The setup sheet's toolset sections: the roles it admits, and the tools that read with people's
//! own keys.

use super::set_admits_roles::SetAdmitsRoles;
use super::set_own_key_tools::SetOwnKeyTools;
use engine::cards::service::admits_line;
use engine::cards::source::Connector;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;

/// What choosing no role means, said where the roles are chosen.
pub const NONE_CHOSEN_NOTE: &str = "With no role chosen, it admits everyone in the company. Narrowing takes effect at \
     each person's next read: someone it no longer admits loses the cards it kept for them.";

/// What a tool on people's own keys does, said where it is set.
pub const OWN_KEYS_NOTE: &str = "A tool on people's own keys reads as each person with the key they give under \
     Profile → Memory. Cards it kept with the company key are no longer shown, and cards of a key no tool reads \
     with any more are removed at once.";

/// Who it admits: a box per role, none ticked for everyone.
#[component]
pub fn AdmitsRoles(connector: Connector, roles: Vec<(String, String)>) -> impl IntoView {
    let names: Vec<String> = connector
        .admits_roles
        .iter()
        .map(|s| roles.iter().find(|(slug, _)| slug == s).map(|(_, n)| n.clone()).unwrap_or_else(|| s.clone()))
        .collect();
    view! {
        <section class="admits">
            <h2>"Who it admits"</h2>
            <p class="admits-now">{admits_line(&names)}</p>
            <form method="post" action=SetAdmitsRoles::url() class="settings">
                <input type="hidden" name="id" value=connector.id.to_string()/>
                <ul class="roles">
                    {roles.iter().map(|(slug, name)| {
                        let on = connector.admits_roles.contains(slug);
                        view! {
                            <li><label><input type="checkbox" name="roles[]" value=slug.clone() checked=on/>" " {name.clone()}</label></li>
                        }
                    }).collect_view()}
                </ul>
                <button type="submit">"Save who it admits"</button>
            </form>
            <p class="meta">{NONE_CHOSEN_NOTE}</p>
        </section>
    }
}

/// Own keys: a box per ticked tool.
#[component]
pub fn OwnKeys(connector: Connector) -> impl IntoView {
    let now = if connector.own_key_tools.is_empty() {
        "No tool is set to people's own keys.".to_string()
    } else {
        format!("On people's own keys: {}.", connector.own_key_tools.join(", "))
    };
    view! {
        <section class="own-keys">
            <h2>"Own keys"</h2>
            <p class="own-keys-now">{now}</p>
            {if connector.ticked.is_empty() {
                view! { <p class="meta">"Tick its read tools first."</p> }.into_any()
            } else {
                view! {
                    <form method="post" action=SetOwnKeyTools::url() class="settings">
                        <input type="hidden" name="id" value=connector.id.to_string()/>
                        <ul class="tools">
                            {connector.ticked.iter().map(|t| {
                                let on = connector.own_key_tools.contains(t);
                                view! {
                                    <li><label><input type="checkbox" name="tools[]" value=t.clone() checked=on/>" " <code>{t.clone()}</code>" uses people's own keys"</label></li>
                                }
                            }).collect_view()}
                        </ul>
                        <button type="submit">"Save own keys"</button>
                    </form>
                }.into_any()
            }}
            <p class="meta">{OWN_KEYS_NOTE}</p>
        </section>
    }
}
