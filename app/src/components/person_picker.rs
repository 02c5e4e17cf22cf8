//! A person picker: a text field, never a list of everyone. Without JavaScript a person types a
//! name or an email and the server finds them (or says why it could not, keeping what was typed);
//! with JavaScript the field offers at most ten matches as they type, each sent as its email.

use crate::people::find_people::find_people;
use leptos::prelude::*;

/// `name` is the form field; `value` what it holds at first (a current choice's email, or what was
/// typed into a refused form); `label` its words; `list` an id unique on the page.
#[component]
pub fn PersonPicker(
    name: &'static str,
    value: String,
    label: &'static str,
    list: String,
    #[prop(optional)] required: bool,
) -> impl IntoView {
    let matches = RwSignal::new(Vec::<engine::org::listing::PersonChoice>::new());
    // Only the newest answer is shown, whatever order the answers arrive in.
    let asked = StoredValue::new(0u64);
    let on_input = move |ev| {
        let typed = event_target_value(&ev);
        let n = asked.get_value() + 1;
        asked.set_value(n);
        leptos::task::spawn_local(async move {
            if let Ok(found) = find_people(typed).await {
                if asked.get_value() == n {
                    matches.set(found);
                }
            }
        });
    };
    view! {
        <label>{label}" "
            <input type="text" name=name value=value list=list.clone() autocomplete="off" required=required
                placeholder="a name or an email" on:input=on_input/>
        </label>
        <datalist id=list>
            {move || matches.get().into_iter().map(|p| view! {
                <option value=p.email.clone()>{format!("{} <{}>", p.name, p.email)}</option>
            }).collect_view()}
        </datalist>
    }
}
